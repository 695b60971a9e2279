"""The graph surface (docs/api-graph.md): /v1/memory/write, /recall, /recall_text."""
