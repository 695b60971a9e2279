"""Contradictions close facts: the older of two similar nodes that say opposite things stops
being valid when the newer one began (domain/validity.py).

Consolidation never merges such a pair (its guardrail skips it, consolidation.py); with
validity it no longer leaves both standing either. Which one is newer is read from when each
fact began: ``valid_at`` if the writer gave it, else when it was written. A pair whose two
facts began at the same instant is left alone (neither can be said to replace the other), and
a fact already closed keeps its end. Nothing is deleted: the older node stays, readable as
history (``include_invalid``, ``as_of``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlane.domain.clock import iso
from memlane.domain.model import Node
from memlane.store.base import NodePatch


@dataclass(frozen=True, slots=True)
class Closure:
    """``id`` stops being valid at ``at``, when ``by`` (which contradicts it) began."""

    id: str
    by: str
    at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "by": self.by, "invalid_at": iso(self.at)}


def began(n: Node) -> datetime | None:
    return n.valid_at or n.created_at


def plan_closures(pairs: Iterable[tuple[str, str]], by_id: Mapping[str, Node]) -> list[Closure]:
    """For each contradictory pair, the older fact closed by the newer; a fact contradicted by
    several newer ones closes at the earliest of them."""
    out: dict[str, Closure] = {}
    for a_id, b_id in pairs:
        a, b = by_id.get(a_id), by_id.get(b_id)
        if a is None or b is None:
            continue
        start_a, start_b = began(a), began(b)
        if start_a is None or start_b is None or start_a == start_b:
            continue
        older, newer, at = (a, b, start_b) if start_a < start_b else (b, a, start_a)
        if older.invalid_at is not None:
            continue
        known = out.get(older.id)
        if known is None or at < known.at:
            out[older.id] = Closure(older.id, newer.id, at)
    return sorted(out.values(), key=lambda c: c.id)


def closure_patches(closures: Iterable[Closure], fresh: Mapping[str, Node]) -> tuple[list[NodePatch], list[Closure]]:
    """The patches of the closures still due on the nodes as stored now (under the write
    lock): a node gone or closed meanwhile is left as it is."""
    patches: list[NodePatch] = []
    applied: list[Closure] = []
    for c in closures:
        n = fresh.get(c.id)
        if n is None or n.invalid_at is not None or (n.valid_at is not None and c.at <= n.valid_at):
            continue
        slots = {**n.slots, "closed_by": c.by}
        patches.append(NodePatch(id=c.id, invalid_at=c.at, slots=slots))
        applied.append(c)
    return patches, applied


__all__ = ["Closure", "began", "closure_patches", "plan_closures"]
