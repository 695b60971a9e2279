"""Archive rehydrate (``POST /v1/memory/archive/rehydrate``): bring cold or archived nodes back
into an active tier on demand.

Only upward moves: a node whose tier already ranks at or above ``target_tier`` is a no-op
(``archive < cold < warm < hot``). A moved node gets ``last_activated = now`` (so decay does
not send it straight back) and the ``last_rehydrated_*`` slot markers; ``last_rehydrated_job``
is the id of this rehydrate operation, also written to the commit diff, so a node's markers
lead to the commit that moved it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.domain.clock import Clock, iso, new_id
from memlane.domain.model import TIER_RANK, Commit, CommitInfo, Node
from memlane.domain.visibility import Viewer, visibility_of
from memlane.services.lifecycle.refs import resolve_refs
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteService
from memlane.store.base import NodePatch

MAX_REASON_CHARS = 1000


@dataclass(slots=True)
class RehydrateResult:
    requested: int
    resolved: int
    operation_id: str
    node_ids: list[str] = field(default_factory=list)
    noop_node_ids: list[str] = field(default_factory=list)
    missing_node_ids: list[str] = field(default_factory=list)
    missing_client_ids: list[str] = field(default_factory=list)
    commit: Commit | None = None


class RehydrateService:
    def __init__(self, reader: MemoryReader, writes: WriteService, *, clock: Clock):
        self.reader = reader
        self.writes = writes
        self.clock = clock

    async def rehydrate(
        self,
        viewer: Viewer,
        scope: str,
        *,
        node_ids: Sequence[str],
        client_ids: Sequence[str],
        target_tier: str,
        reason: str | None,
        actor: str | None,
        input_sha256: str,
    ) -> RehydrateResult:
        if target_tier not in ("warm", "hot"):
            raise ValueError(f"target_tier must be warm or hot, not {target_tier!r}")
        tenant_id = viewer.tenant_id
        reach = visibility_of(viewer)
        refs = await resolve_refs(self.reader, viewer, scope, node_ids, client_ids)
        result = RehydrateResult(requested=refs.requested, resolved=len(refs.node_ids), operation_id=new_id())
        now = self.clock.now()
        target_rank = TIER_RANK[target_tier]
        note = reason[:MAX_REASON_CHARS] if reason else None

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            seen = [n for n in found if reach.can_see(n)]
            patches: list[NodePatch] = []
            moves: list[dict[str, str]] = []
            result.node_ids, result.noop_node_ids = [], []
            for n in seen:
                if TIER_RANK.get(n.tier, 0) >= target_rank:
                    result.noop_node_ids.append(n.id)
                    continue
                slots = dict(n.slots)
                slots.update(
                    last_rehydrated_at=iso(now),
                    last_rehydrated_job=result.operation_id,
                    last_rehydrated_from_tier=n.tier,
                    last_rehydrated_to_tier=target_tier,
                    last_rehydrated_reason=note,
                    last_rehydrated_input_sha256=input_sha256,
                )
                patches.append(NodePatch(id=n.id, tier=target_tier, slots=slots, last_activated=now))
                result.node_ids.append(n.id)
                moves.append({"id": n.id, "from": n.tier, "to": target_tier})
            diff = {
                "rehydrate": {
                    "operation_id": result.operation_id,
                    "target_tier": target_tier,
                    "reason": note,
                    "moves": moves,
                }
            }
            return patches, diff

        info = CommitInfo(actor=actor, input_sha256=input_sha256, kind="rehydrate")
        result.commit = await self.writes.mutate(tenant_id, scope, refs.node_ids, mutate, info)
        if result.commit is None:
            result.node_ids = []
        found = set(result.node_ids) | set(result.noop_node_ids)
        result.missing_node_ids, result.missing_client_ids = refs.missing(found)
        return result
