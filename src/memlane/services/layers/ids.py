"""Memory ids as the layered and tool surfaces show them: ``mem_<node id>``, 1:1 with nodes."""

from __future__ import annotations

PREFIX = "mem_"


def to_public(node_id: str) -> str:
    return PREFIX + node_id


def to_node_id(public_id: str) -> str:
    """Accepts ``mem_<uuid>`` or the bare node id, so ids from the graph surface work too."""
    value = public_id.strip()
    return value[len(PREFIX) :] if value.startswith(PREFIX) else value
