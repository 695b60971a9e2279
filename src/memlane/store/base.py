"""The values the store's contracts (store/contracts/) take and return besides the domain's
records, and the row mappers every backend shares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from memlane.domain.model import (
    Commit,
    Edge,
    Job,
    Node,
    WriteResult,
)
from memlane.domain.node_fields import edge_from_mapping, node_from_mapping

Vector = npt.NDArray[np.float32]


@dataclass(slots=True)
class PendingEmbedding:
    """A node waiting for its vector; ``rev`` guards against embedding stale text."""

    tenant_id: str
    id: str
    scope: str
    text: str
    rev: int


@dataclass(slots=True)
class NodePatch:
    """A partial update of one node; ``None`` fields are left alone."""

    id: str
    tier: str | None = None
    slots: dict[str, Any] | None = None
    status: str | None = None
    title: str | None = None
    text_summary: str | None = None
    last_activated: datetime | None = None
    memory_lane: str | None = None
    expires_at: datetime | None = None
    tags: list[str] | None = None
    #: closes the fact (event time); the store stamps ``expired_at`` with the patch's time
    invalid_at: datetime | None = None


FollowUpJobs = Callable[[WriteResult], list[Job]]


class LeasePicker(Protocol):
    """Chooses, inside the lease's transaction, which of the candidate jobs (in tenant turns,
    oldest first within a tenant) are leased: at least one when there is any."""

    def pick(self, candidates: Sequence[Job]) -> list[Job]: ...


def edge_from_row(row: Any) -> Edge:
    return edge_from_mapping(row._mapping)


def node_from_row(row: Any) -> Node:
    return node_from_mapping(row._mapping)


def commit_from_row(row: Any) -> Commit:
    m = row._mapping
    return Commit(
        tenant_id=m["tenant_id"],
        id=m["id"],
        scope=m["scope"],
        parent_id=m["parent_id"],
        parent_hash=m["parent_hash"],
        commit_hash=m["commit_hash"],
        actor=m["actor"],
        input_sha256=m["input_sha256"],
        kind=m["kind"],
        diff=m["diff"],
        created_at=m["created_at"],
        erased_at=m["erased_at"],
    )


def job_from_row(row: Any) -> Job:
    m = row._mapping
    return Job(
        tenant_id=m["tenant_id"],
        id=m["id"],
        kind=m["kind"],
        payload=m["payload"] or {},
        status=m["status"],
        attempts=m["attempts"],
        max_attempts=m["max_attempts"],
        scope=m["scope"],
        idempotency_key=m["idempotency_key"],
        run_after=m["run_after"],
        lease_owner=m["lease_owner"],
        lease_expires_at=m["lease_expires_at"],
        last_error=m["last_error"],
        result=m["result"],
        progress=m["progress"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
    )


NodeMutation = Callable[[list[Node]], tuple[Sequence[NodePatch], dict[str, Any]]]


@dataclass(slots=True)
class EdgeRedirectResult:
    """What ``redirect_edges`` did; ``commit`` is None when nothing changed."""

    commit: Commit | None
    redirected: int = 0
    merged: int = 0
    removed_self_loops: int = 0
