"""Adaptive decay: a durable periodic job moves idle nodes down the tiers
(hot -> warm -> cold -> archive) by inactivity and feedback quality.

For a node (docs/lifecycle.md has the worked numbers):

    idle_days      = now - (last_activated, else created_at), in days
    quality        = (feedback_positive + 1) / (feedback_positive + feedback_negative + 2)
    effective_days = idle_days * 2 ** (1 - 2 * quality)

Without feedback quality is 0.5 and the factor is 1; all-positive feedback tends to a factor of
0.5 (the node ages half as fast), all-negative feedback to 2 (twice as fast). The node's tier
becomes the lowest one whose threshold ``effective_days`` has reached (warm after
``MEMLANE_DECAY_WARM_AFTER_DAYS``, cold after ``..._COLD_...``, archive after
``..._ARCHIVE_...``), and only ever *down*: decay never promotes; activation and rehydrate do.
Rule nodes (governed by their state, not their tier) and nodes with ``slots.pinned=true`` are
never decayed.

Scheduling: a durable periodic job (jobs/periodic.py), one per ``MEMLANE_DECAY_INTERVAL_SEC``.
Jobs are rows in the database: a restart resumes, and with several workers exactly one runs
each period.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired, Protocol

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import TIER_RANK, CommitInfo, Job, Node
from memlane.jobs.lifecycle_kinds import LIFECYCLE_DECAY
from memlane.jobs.periodic import PeriodicJob
from memlane.services.lifecycle.activation import node_quality
from memlane.services.writing import WriteService
from memlane.store.base import NodePatch
from memlane.store.contracts.jobs import JobProgressOps, JobSubmitOps
from memlane.store.contracts.maintenance import ScopeScanOps

DECAYING_TIERS = ("hot", "warm", "cold")
PAGE = 500
ACTOR = "memlane:decay"


@dataclass(frozen=True, slots=True)
class DecayPolicy:
    """When idle nodes move down a tier (``MEMLANE_DECAY_*``, ``Settings.decay``, which checks that
    the thresholds grow)."""

    interval_sec: float = 3600.0
    warm_after_days: float = 7.0
    cold_after_days: float = 30.0
    archive_after_days: float = 90.0

    @property
    def enabled(self) -> bool:
        return self.interval_sec > 0


def effective_idle_days(node: Node, now: datetime) -> float:
    anchor = node.last_activated or node.created_at or now
    idle = max((now - anchor).total_seconds() / 86400.0, 0.0)
    return float(idle * 2.0 ** (1.0 - 2.0 * node_quality(node.slots)))


def exempt(node: Node) -> bool:
    return node.type == "rule" or node.slots.get("pinned") is True


def decay_target(node: Node, now: datetime, cfg: DecayPolicy) -> str | None:
    """The tier ``node`` should move down to now, or None to stay."""
    if exempt(node) or node.tier not in DECAYING_TIERS:
        return None
    days = effective_idle_days(node, now)
    if days >= cfg.archive_after_days:
        target = "archive"
    elif days >= cfg.cold_after_days:
        target = "cold"
    elif days >= cfg.warm_after_days:
        target = "warm"
    else:
        return None
    return target if TIER_RANK[target] < TIER_RANK[node.tier] else None


class DecayReport(TypedDict):
    """A sweep's totals (scopes swept, nodes scanned and moved by from->to tier, commits), as
    the job's progress and result; a periodic job's result also says when the next runs."""

    scopes: int
    scanned: int
    moved: int
    by_move: dict[str, int]
    commits: int
    next_run_after: NotRequired[str | None]


@dataclass(slots=True)
class DecayStats:
    scopes: int = 0
    scanned: int = 0
    moved: int = 0
    by_move: dict[str, int] = field(default_factory=dict)
    commits: int = 0

    def as_dict(self) -> DecayReport:
        return {
            "scopes": self.scopes,
            "scanned": self.scanned,
            "moved": self.moved,
            "by_move": dict(sorted(self.by_move.items())),
            "commits": self.commits,
        }


#: called after each scope with the running totals (the job records them as its progress)
Progress = Callable[[DecayStats], Awaitable[None]]


class DecayStore(ScopeScanOps, JobSubmitOps, JobProgressOps, Protocol):
    """The scopes and nodes decay pages through, the queue its next run goes on, and its progress."""


class DecayService:
    def __init__(
        self, store: DecayStore, writes: WriteService, *, clock: Clock, settings: DecayPolicy, job_max_attempts: int
    ):
        self.store = store
        self.writes = writes
        self.clock = clock
        self.settings = settings
        self.schedule = PeriodicJob(LIFECYCLE_DECAY, settings.interval_sec, job_max_attempts)

    async def sweep_scope(self, tenant_id: str, scope: str, stats: DecayStats | None = None) -> DecayStats:
        """One pass over the scope's decaying tiers; each page that moves nodes is one commit."""
        stats = stats or DecayStats()
        stats.scopes += 1
        now = self.clock.now()
        cfg = self.settings
        params = {
            "now": iso(now),
            "warm_after_days": cfg.warm_after_days,
            "cold_after_days": cfg.cold_after_days,
            "archive_after_days": cfg.archive_after_days,
        }
        after: str | None = None
        while True:
            page = await self.store.scan_nodes(tenant_id, scope, after_id=after, limit=PAGE, tiers=DECAYING_TIERS)
            if not page:
                break
            after = page[-1].id
            stats.scanned += len(page)
            movers = [n.id for n in page if decay_target(n, now, cfg) is not None]
            if movers:
                moved = await self._move(tenant_id, scope, movers, now, params)
                for key, n in moved.items():
                    stats.by_move[key] = stats.by_move.get(key, 0) + n
                    stats.moved += n
                stats.commits += 1 if moved else 0
            if len(page) < PAGE:
                break
        return stats

    async def _move(
        self, tenant_id: str, scope: str, ids: Sequence[str], now: datetime, params: dict[str, Any]
    ) -> dict[str, int]:
        moved: dict[str, int] = {}

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            moved.clear()
            patches: list[NodePatch] = []
            moves: list[dict[str, Any]] = []
            for n in found:  # re-checked under the write lock: activity since the scan wins
                target = decay_target(n, now, self.settings)
                if target is None:
                    continue
                days = round(effective_idle_days(n, now), 3)
                slots = dict(n.slots)
                slots.update(
                    last_decay_at=iso(now),
                    last_decay_from_tier=n.tier,
                    last_decay_to_tier=target,
                    last_decay_effective_idle_days=days,
                )
                patches.append(NodePatch(id=n.id, tier=target, slots=slots))
                moves.append({"id": n.id, "from": n.tier, "to": target, "effective_idle_days": days})
                key = f"{n.tier}->{target}"
                moved[key] = moved.get(key, 0) + 1
            return patches, {"decay": {"params": params, "moves": moves}}

        info = CommitInfo(actor=ACTOR, input_sha256=sha256_hex(canonical_json(params)), kind="decay")
        commit = await self.writes.mutate(tenant_id, scope, ids, mutate, info)
        return moved if commit is not None else {}

    async def sweep(
        self, tenant_id: str | None = None, scope: str | None = None, progress: Progress | None = None
    ) -> DecayStats:
        """Every scope (of one tenant, or of all tenants), or one scope."""
        stats = DecayStats()
        if tenant_id is not None and scope is not None:
            targets = [(tenant_id, scope)]
        else:
            targets = await self.store.list_scopes(tenant_id)
        for t, s in targets:
            await self.sweep_scope(t, s, stats)
            if progress is not None:
                await progress(stats)
        return stats

    # --- the durable periodic job (jobs/periodic.py) ---------------------------------------
    async def ensure_scheduled(self) -> Job | None:
        """Enqueue this period's sweep unless it exists already; None when decay is disabled."""
        return await self.schedule.ensure_scheduled(self.store, self.clock)

    async def run_job(self, job: Job) -> DecayReport:
        """Handler of ``lifecycle_decay``: periodic (all tenants) or one tenant / scope."""
        payload = job.payload
        next_job: Job | None = None
        if payload.get("periodic"):
            if self.settings.enabled:
                # Chain first, so a failing sweep cannot stop later periods.
                next_job = await self.schedule.chain(self.store, self.clock, job)
            target_tenant: str | None = None
            target_scope: str | None = None
        else:
            target_tenant = job.tenant_id
            scope = payload.get("scope")
            target_scope = scope if isinstance(scope, str) else None

        async def report(stats: DecayStats) -> None:
            await self.store.update_job_progress(job, dict(stats.as_dict()), now=self.clock.now())

        stats = await self.sweep(target_tenant, target_scope, progress=report)
        out = stats.as_dict()
        if next_job is not None:
            out["next_run_after"] = iso(next_job.run_after)
        return out


__all__ = ["DecayPolicy", "DecayService", "DecayStats", "decay_target", "effective_idle_days"]
