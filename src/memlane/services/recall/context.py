"""Recall's context for an LLM prompt: the best nodes as lines of text, each with an item (what
the line shows, with its score) and a citation (which node it came from).

Compression summaries (services/lifecycle/compression.py) come first and the events they cite
are left out, so a rollup turns many event lines into one paragraph with evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memlane.domain.model import Edge, Node
from memlane.services.recall.model import RecallContext

#: how many of the best nodes the context renders
CONTEXT_MAX_ITEMS = 20


def is_compression_summary(node: Node) -> bool:
    return node.type == "concept" and node.slots.get("summary_kind") == "compression_rollup"


def render_context(top: Sequence[Node], scores: Mapping[str, float], edges: Sequence[Edge]) -> RecallContext:
    """``top`` (best first) as the prompt's text: a "Summaries" section, then the other nodes."""
    summaries = [n for n in top if is_compression_summary(n)]
    cited: set[str] = set()
    for s in summaries:
        cited |= _cites(s, edges)
    rest = [n for n in top if not is_compression_summary(n) and n.id not in cited]
    lines: list[str] = []
    items: list[dict[str, Any]] = []
    citations: list[dict[str, Any]] = []
    if summaries:
        lines.append("# Summaries")
        for n in summaries:
            lines.append(f"- {_render(n)} [{n.id}]")
            items.append(_item(n, scores, "summary"))
            citations.append(
                {"node_id": n.id, "type": n.type, "kind": "summary", "derived_from": sorted(cited & _cites(n, edges))}
            )
    if rest:
        lines.append("# Memories" if summaries else "# Memory context")
        for n in rest:
            lines.append(f"- ({n.type}) {_render(n)} [{n.id}]")
            items.append(_item(n, scores, "node"))
            citations.append({"node_id": n.id, "type": n.type, "kind": "node"})
    return RecallContext("\n".join(lines), items, citations)


def _render(n: Node) -> str:
    if n.title and n.text_summary:
        return f"{n.title}: {n.text_summary}"
    return n.title or n.text_summary or ""


def _item(n: Node, scores: Mapping[str, float], kind: str) -> dict[str, Any]:
    return {
        "id": n.id,
        "type": n.type,
        "kind": kind,
        "title": n.title,
        "text_summary": n.text_summary,
        "score": round(scores.get(n.id, 0.0), 6),
    }


def _cites(n: Node, edges: Sequence[Edge]) -> set[str]:
    """The events a summary cites: its ``source_ids`` and its ``derived_from`` edges."""
    out = {str(x) for x in n.slots.get("source_ids", []) or []}
    out.update(e.dst_id for e in edges if e.type == "derived_from" and e.src_id == n.id)
    return out
