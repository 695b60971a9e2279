"""The rules surface of the graph spec (docs/api-graph.md): ``/v1/memory/rules/evaluate``,
``/v1/memory/tools/select`` and ``/feedback``, ``/v1/memory/feedback``, ``/v1/memory/rules/state``."""
