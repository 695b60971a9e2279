"""Retrieval priority per layer (docs/api-layers.md §5), as sort keys over candidates.

identity: exact match on the memory's tags, keyword match, semantic match, recentness.
project: architecture-critical, role-critical, safety-critical, semantic relevance; a memory
  is critical by its tags: ``architecture-critical``, ``safety-critical``, and ``role-critical``
  or ``role:<caller role>`` (e.g. ``role:planner``). Only relevant candidates are lifted by
  criticality: similarity at least half of the best one's (``RELEVANCE_RATIO``), so a critical
  but unrelated memory does not push aside the answer.
workspace: same task_id, same agent, recency, semantic match.
Keys compare lexicographically; each earlier criterion dominates the later ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memlane.domain.model import Node
from memlane.services.layers.roles import IDENTITY, PROJECT, WORKSPACE

RELEVANCE_RATIO = 0.5
ARCHITECTURE_TAG = "architecture-critical"
SAFETY_TAG = "safety-critical"
ROLE_TAG = "role-critical"
_TOKEN = re.compile(r"[\w][\w:-]*", re.UNICODE)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class Candidate:
    node: Node
    similarity: float = 0.0
    keyword_hit: bool = False
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RankContext:
    query: str | None = None
    role: str | None = None
    task_id: str | None = None
    agent: str | None = None
    tags: tuple[str, ...] = ()


def _tokens(text: str | None) -> set[str]:
    return {t.lower() for t in _TOKEN.findall(text or "")}


def _ts(n: Node) -> float:
    return (n.updated_at or n.created_at or _EPOCH).timestamp()


def exact_tag_match(n: Node, ctx: RankContext) -> bool:
    tags = {t.lower() for t in n.tags}
    if not tags:
        return False
    wanted = _tokens(ctx.query) | {t.lower() for t in ctx.tags}
    if ctx.query:
        wanted.add(ctx.query.strip().lower())
    return bool(tags & wanted)


def criticality(n: Node, role: str | None) -> tuple[bool, bool, bool]:
    tags = {t.lower() for t in n.tags}
    role_critical = ROLE_TAG in tags or (role is not None and f"role:{role}" in tags)
    return ARCHITECTURE_TAG in tags, role_critical, SAFETY_TAG in tags


def rank(layer: str, candidates: list[Candidate], ctx: RankContext) -> list[Candidate]:
    """Candidates in the layer's priority order; ties end on id for a stable answer."""
    if layer == IDENTITY:
        for c in candidates:
            c.reasons = [
                r for r, on in (("exact_tag", exact_tag_match(c.node, ctx)), ("keyword", c.keyword_hit)) if on
            ] + ["semantic"]
        return sorted(
            candidates,
            key=lambda c: (
                -int("exact_tag" in c.reasons),
                -int(c.keyword_hit),
                -round(c.similarity, 6),
                -_ts(c.node),
                c.node.id,
            ),
        )
    if layer == PROJECT:
        best = max((c.similarity for c in candidates), default=0.0)
        floor = best * RELEVANCE_RATIO if best > 0 else 0.0

        def key(c: Candidate) -> tuple[object, ...]:
            relevant = c.similarity >= floor or c.keyword_hit
            arch, role_c, safety = criticality(c.node, ctx.role) if relevant else (False, False, False)
            c.reasons = [
                r
                for r, on in (("architecture_critical", arch), ("role_critical", role_c), ("safety_critical", safety))
                if on
            ] + ["semantic"]
            return (-int(relevant), -int(arch), -int(role_c), -int(safety), -round(c.similarity, 6), c.node.id)

        return sorted(candidates, key=key)
    if layer == WORKSPACE:
        for c in candidates:
            c.reasons = [
                r
                for r, on in (
                    ("task_id", ctx.task_id is not None and c.node.task_id == ctx.task_id),
                    ("agent", ctx.agent is not None and c.node.agent == ctx.agent),
                )
                if on
            ] + ["recency", "semantic"]
        return sorted(
            candidates,
            key=lambda c: (
                -int("task_id" in c.reasons),
                -int("agent" in c.reasons),
                -_ts(c.node),
                -round(c.similarity, 6),
                c.node.id,
            ),
        )
    raise ValueError(f"unknown layer {layer}")
