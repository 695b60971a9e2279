"""What a node is embedded as: its own words, with the memories written just before it.

A conversation turn written alone ("Yes, last week!", "That sounds great, where was it?")
says little without the turns around it, and users write turns one at a time. So the server
builds the context itself: the vector of a node is computed from its text followed by the
text of up to ``window`` nodes inserted just before it in the same scope, newest first, each
prefixed by its speaker (``slots.speaker``, else the speaker its text starts with:
``Caroline (8 May, 2023): words`` is embedded as ``Caroline: words``, like the same turn
written with slots; domain/text_signals.py) when it has one. Measured on LoCoMo
(BENCHMARKS.md, "Retrieval quality"), this is what lets a reply be found by the question it
answers.

Only memories of one conversation take part (the same session, or turns with a speaker),
and only neighbours with the same audience count (memory lane, owners, user, session, task):
a vector must not carry words its node's readers may not see. A memory from another
conversation ends the window. The keyword index and the
stored text are untouched; only the vector sees the neighbours. A neighbour edited later does
not re-embed the nodes after it: the context is the one the node was written in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memlane.domain.model import Node
from memlane.domain.text_signals import header, speaker_of

#: how far back (in insertions of the tenant) a neighbour is looked for
LOOKBACK_SPAN = 64


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """``window`` predecessors appended to a node's text (0 = the node alone); ``speaker``
    prefixes each text with ``slots.speaker``."""

    window: int = 0
    speaker: bool = False

    @property
    def active(self) -> bool:
        return self.window > 0 or self.speaker


def audience(n: Node) -> tuple[str | None, ...]:
    """Who may read a node, as far as the embedding context is concerned."""
    return (n.memory_lane, n.owner_agent_id, n.owner_team_id, n.user_id, n.session_id, n.task_id)


def spoken(n: Node, cfg: ContextConfig) -> str:
    text = n.text
    given = n.slots.get("speaker")
    if isinstance(given, str) and given.strip():
        return f"{given.strip()}: {text}" if cfg.speaker and text else text
    stated = header(text) if cfg.speaker else None
    return f"{stated.speaker}: {stated.body}" if stated is not None else text


def conversational(a: Node, b: Node) -> bool:
    """Whether two memories belong to one conversation: the same session (``slots.session`` or
    ``session_id``), or both said by someone (``slots.speaker``). Unrelated notes written one
    after another stay apart: a neighbour's words would raise their similarity to queries
    about the neighbour, and a threshold would no longer mean what it says."""
    x, y = a.slots.get("session"), b.slots.get("session")
    if x is not None and y is not None:
        return bool(x == y)
    if a.session_id is not None and a.session_id == b.session_id:
        return True
    return speaker_of(a.slots, a.text) is not None and speaker_of(b.slots, b.text) is not None


def in_a_conversation(n: Node) -> bool:
    """Whether a memory can have conversational neighbours at all; the others are embedded
    alone without a look-up (bulk imports of plain notes cost nothing extra)."""
    return n.slots.get("session") is not None or n.session_id is not None or speaker_of(n.slots, n.text) is not None


def neighbours(node: Node, preceding: Sequence[Node], window: int) -> list[Node]:
    """The first ``window`` of ``preceding`` (newest first) of the node's conversation and
    audience, stopping at the first memory of another conversation."""
    out: list[Node] = []
    for prev in preceding:
        if len(out) >= window or not conversational(node, prev):
            break
        if prev.status != "active" or audience(prev) != audience(node) or not prev.text:
            continue
        out.append(prev)
    return out


def contextual_text(node: Node, preceding: Sequence[Node], cfg: ContextConfig) -> str:
    """The node's own text first (it dominates a mean-pooled embedding), then its neighbours."""
    parts = [spoken(node, cfg), *(spoken(p, cfg) for p in neighbours(node, preceding, cfg.window))]
    return "\n".join(p for p in parts if p)
