"""The lifecycle surface of the graph spec (docs/api-graph.md): activation, rehydration, and
the periodic jobs the server schedules at start-up."""
