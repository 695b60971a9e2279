"""Node activation and feedback (``POST /v1/memory/nodes/activate``): the signals adaptive decay
reads.

Each found node gets, in ``slots``: ``feedback_positive`` / ``feedback_negative`` (counts),
``feedback_quality`` = ``(positive + 1) / (positive + negative + 2)`` (the mean of a uniform
Beta prior updated by the outcomes: 0.5 without evidence, towards 1 with positive and towards 0
with negative outcomes; rules' ``evidence_score`` is the same quantity rescaled to -1..1), the
``last_feedback_*`` markers the contract names, and ``activation_count``. With ``activate``
(default) ``last_activated`` is set to now, which restarts the node's inactivity clock.
A neutral outcome changes no counter but is still recorded as the last outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlane.domain.clock import Clock, iso
from memlane.domain.model import Commit, CommitInfo, Node
from memlane.domain.visibility import Viewer, visibility_of
from memlane.services.lifecycle.refs import resolve_refs
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteService
from memlane.store.base import NodePatch

MAX_REASON_CHARS = 1000


def count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def feedback_quality(positive: int, negative: int) -> float:
    """Laplace-smoothed share of positive outcomes, in (0, 1); 0.5 without feedback."""
    return (positive + 1) / (positive + negative + 2)


def node_quality(slots: dict[str, Any]) -> float:
    """A node's feedback quality, recomputed from its counters (robust to a damaged value)."""
    return feedback_quality(count(slots.get("feedback_positive")), count(slots.get("feedback_negative")))


def apply_activation(
    slots: dict[str, Any],
    *,
    outcome: str,
    now: datetime,
    run_id: str | None,
    reason: str | None,
    input_sha256: str,
    activate: bool,
) -> dict[str, Any]:
    out = dict(slots)
    positive, negative = count(slots.get("feedback_positive")), count(slots.get("feedback_negative"))
    if outcome == "positive":
        positive += 1
    elif outcome == "negative":
        negative += 1
    out.update(
        feedback_positive=positive,
        feedback_negative=negative,
        feedback_quality=round(feedback_quality(positive, negative), 6),
        last_feedback_outcome=outcome,
        last_feedback_at=iso(now),
        last_feedback_run_id=run_id,
        last_feedback_reason=reason[:MAX_REASON_CHARS] if reason else None,
        last_feedback_input_sha256=input_sha256,
    )
    if activate:
        out["activation_count"] = count(slots.get("activation_count")) + 1
    return out


@dataclass(slots=True)
class ActivationResult:
    requested: int
    resolved: int
    found: int = 0
    updated: int = 0
    node_ids: list[str] = field(default_factory=list)
    missing_node_ids: list[str] = field(default_factory=list)
    missing_client_ids: list[str] = field(default_factory=list)
    commit: Commit | None = None

    @property
    def missing(self) -> int:
        return len(self.missing_node_ids) + len(self.missing_client_ids)


class ActivationService:
    def __init__(self, reader: MemoryReader, writes: WriteService, *, clock: Clock):
        self.reader = reader
        self.writes = writes
        self.clock = clock

    async def activate(
        self,
        viewer: Viewer,
        scope: str,
        *,
        node_ids: Sequence[str],
        client_ids: Sequence[str],
        outcome: str,
        activate: bool,
        run_id: str | None,
        reason: str | None,
        actor: str | None,
        input_sha256: str,
    ) -> ActivationResult:
        tenant_id = viewer.tenant_id
        reach = visibility_of(viewer)
        refs = await resolve_refs(self.reader, viewer, scope, node_ids, client_ids)
        result = ActivationResult(requested=refs.requested, resolved=len(refs.node_ids))
        now = self.clock.now()

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            seen = [n for n in found if reach.can_see(n)]
            result.found = len(seen)
            patches = []
            for n in seen:
                slots = apply_activation(
                    n.slots,
                    outcome=outcome,
                    now=now,
                    run_id=run_id,
                    reason=reason,
                    input_sha256=input_sha256,
                    activate=activate,
                )
                patches.append(NodePatch(id=n.id, slots=slots, last_activated=now if activate else None))
            result.node_ids = [p.id for p in patches]
            diff = {
                "activate": {
                    "node_ids": result.node_ids,
                    "outcome": outcome,
                    "activate": activate,
                    "run_id": run_id,
                    "reason": reason[:MAX_REASON_CHARS] if reason else None,
                }
            }
            return patches, diff

        info = CommitInfo(actor=actor, input_sha256=input_sha256, kind="activate")
        result.commit = await self.writes.mutate(tenant_id, scope, refs.node_ids, mutate, info)
        if result.commit is None:
            result.node_ids = []
        result.updated = len(result.node_ids)
        result.missing_node_ids, result.missing_client_ids = refs.missing(set(result.node_ids))
        return result
