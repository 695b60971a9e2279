"""Rows for store tests: node upserts, commit infos and unit vectors, at one fixed moment."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from memlane.domain.clock import new_id
from memlane.domain.model import CommitInfo, Node, NodeUpsert
from tests.support.settings import DIM

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ALL_FIELDS = frozenset(
    {
        "type",
        "tier",
        "title",
        "text_summary",
        "slots",
        "memory_lane",
        "owner_agent_id",
        "owner_team_id",
        "producer_agent_id",
        "salience",
        "importance",
        "confidence",
        "status",
    }
)


def vec(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return list(map(float, v / np.linalg.norm(v)))


def up(
    title: str,
    *,
    client_id: str | None = None,
    embedding: list[float] | None = None,
    tenant: str = "t1",
    scope: str = "s1",
    lane: str = "shared",
    tier: str = "hot",
    type_: str = "event",
    owner_agent: str | None = None,
    owner_team: str | None = None,
    topic_state: str | None = None,
    fields: frozenset[str] = ALL_FIELDS,
) -> NodeUpsert:
    node = Node(
        tenant_id=tenant,
        id=new_id(),
        scope=scope,
        type=type_,
        client_id=client_id,
        tier=tier,
        title=title,
        text_summary=f"{title} summary",
        memory_lane=lane,
        owner_agent_id=owner_agent,
        owner_team_id=owner_team,
        embedding_model="client" if embedding else None,
        topic_state=topic_state,
    )
    return NodeUpsert(node=node, embedding=embedding, match_by_client_id=client_id is not None, fields_set=fields)


def info(sha: str = "a" * 64, parent: str | None = None) -> CommitInfo:
    return CommitInfo(actor="tester", input_sha256=sha, parent_commit_id=parent)
