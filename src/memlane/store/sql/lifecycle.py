"""What the offline jobs change (rules feedback, activation, decay, consolidation): keyset
scans, read-modify-write of nodes under the scope lock, moving and deleting edges.

Each change chains one commit, like a write from the API, so the history shows what a job
did. Removing edges also bumps the scope's epoch: the in-memory edge cache cannot see a
removal in an incremental refresh and must reload (sqlite/edge_cache.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.filters import TRUE, Term
from memlane.domain.model import Commit, CommitInfo, Edge, Node
from memlane.store.base import EdgeRedirectResult, NodeMutation, edge_from_row, node_from_row
from memlane.store.schema import NODE_COLUMNS_NO_VECTOR, edges, nodes, scope_heads
from memlane.store.sql.core import SqlCore, chunks
from memlane.store.sql.writes import write_patches
from memlane.store.sql_filters import to_sql

#: an edge's columns without ``rev`` (a store detail an ``Edge`` does not carry)
EDGE_COLUMNS = [c for c in edges.c if c.name != "rev"]


def resolve_redirects(redirects: Mapping[str, str]) -> dict[str, str]:
    """Follow chains (a -> b -> c gives a -> c); self-maps and cycles are dropped, so no
    final target is itself redirected."""
    final: dict[str, str] = {}
    for start, first in redirects.items():
        seen = {start}
        target = first
        while target in redirects and target not in seen:
            seen.add(target)
            target = redirects[target]
        if target not in seen:
            final[start] = target
    return final


@dataclass(slots=True)
class RedirectPlan:
    ops: list[dict[str, Any]] = field(default_factory=list)
    #: edges moved onto new endpoints
    moved: list[Edge] = field(default_factory=list)
    #: edges removed: self-loops, and duplicates merged into an edge already there
    deleted: list[str] = field(default_factory=list)
    #: edges that absorbed a duplicate (their weight and confidence may have grown)
    merged_into: dict[str, Edge] = field(default_factory=dict)
    redirected: int = 0
    merged: int = 0
    removed_self_loops: int = 0


def plan_redirects(
    moving: Mapping[str, Edge], occupied: dict[tuple[str, str, str], Edge], final: Mapping[str, str]
) -> RedirectPlan:
    """``moving``: edges touching an alias; ``occupied``: the other edges leaving the targets,
    by (type, src, dst), which a moved edge may collide with (and which this extends)."""
    plan = RedirectPlan()
    for e in sorted(moving.values(), key=lambda x: x.id):
        src, dst = final.get(e.src_id, e.src_id), final.get(e.dst_id, e.dst_id)
        base = {"id": e.id, "type": e.type, "from": [e.src_id, e.dst_id], "to": [src, dst]}
        if src == dst:
            plan.deleted.append(e.id)
            plan.removed_self_loops += 1
            plan.ops.append({**base, "op": "remove_self_loop"})
            continue
        key = (e.type, src, dst)
        keeper = occupied.get(key)
        if keeper is not None:
            keeper.weight = max(keeper.weight, e.weight)
            keeper.confidence = max(keeper.confidence, e.confidence)
            plan.merged_into[keeper.id] = keeper
            plan.deleted.append(e.id)
            plan.merged += 1
            plan.ops.append({**base, "op": "merge", "into": keeper.id})
            continue
        e.src_id, e.dst_id = src, dst
        occupied[key] = e
        plan.moved.append(e)
        plan.redirected += 1
        plan.ops.append({**base, "op": "redirect"})
    return plan


class Lifecycle(SqlCore):
    async def head_commit_id(self, tenant_id: str, scope: str) -> str | None:
        q = sa.select(scope_heads.c.head_commit_id).where(
            scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope
        )
        async with self._read() as conn:
            value = (await conn.execute(q)).scalar_one_or_none()
        return str(value) if value is not None else None

    async def list_scopes(
        self,
        tenant_id: str | None = None,
        *,
        after: tuple[str, str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[tuple[str, str]]:
        q = sa.select(scope_heads.c.tenant_id, scope_heads.c.scope).order_by(
            scope_heads.c.tenant_id, scope_heads.c.scope
        )
        if tenant_id is not None:
            q = q.where(scope_heads.c.tenant_id == tenant_id)
        if after is not None:
            q = q.where(sa.tuple_(scope_heads.c.tenant_id, scope_heads.c.scope) > sa.tuple_(*after))
        if limit is not None:
            q = q.limit(limit)
        if offset:
            q = q.offset(offset)
        async with self._read() as conn:
            return [(r.tenant_id, r.scope) for r in await conn.execute(q)]

    async def scan_edges(
        self, tenant_id: str, scope: str, *, after: tuple[str, str, str] | None, limit: int
    ) -> list[Edge]:
        if limit <= 0:
            return []
        key = sa.tuple_(edges.c.type, edges.c.src_id, edges.c.dst_id)
        cond: list[Any] = [edges.c.tenant_id == tenant_id, edges.c.scope == scope]
        if after is not None:
            cond.append(key > sa.tuple_(*after))
        q = sa.select(*EDGE_COLUMNS).where(*cond).order_by(edges.c.type, edges.c.src_id, edges.c.dst_id).limit(limit)
        async with self._read() as conn:
            return [edge_from_row(r) for r in await conn.execute(q)]

    async def get_edges(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[Edge]:
        found: list[Edge] = []
        async with self._read() as conn:
            for part in chunks(list(dict.fromkeys(ids))):
                q = sa.select(*EDGE_COLUMNS).where(
                    edges.c.tenant_id == tenant_id, edges.c.scope == scope, edges.c.id.in_(part)
                )
                found.extend(edge_from_row(r) for r in await conn.execute(q))
        return found

    async def scan_nodes(
        self,
        tenant_id: str,
        scope: str,
        *,
        after_id: str | None,
        limit: int,
        tiers: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        where: Term = TRUE,
    ) -> list[Node]:
        if limit <= 0:
            return []
        cond: list[Any] = [nodes.c.tenant_id == tenant_id, nodes.c.scope == scope]
        if where != TRUE:
            cond.append(to_sql(where, nodes))
        if after_id is not None:
            cond.append(nodes.c.id > after_id)
        if tiers:
            cond.append(nodes.c.tier.in_(list(tiers)))
        if types:
            cond.append(nodes.c.type.in_(list(types)))
        q = sa.select(*NODE_COLUMNS_NO_VECTOR).where(*cond).order_by(nodes.c.id).limit(limit)
        async with self._read() as conn:
            return [node_from_row(r) for r in await conn.execute(q)]

    async def mutate_nodes(
        self,
        tenant_id: str,
        scope: str,
        ids: Sequence[str],
        mutate: NodeMutation,
        commit: CommitInfo,
        *,
        now: datetime,
    ) -> Commit | None:
        wanted = list(dict.fromkeys(ids))
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            found: dict[str, Node] = {}
            for part in chunks(wanted):
                rows = await conn.execute(
                    sa.select(*NODE_COLUMNS_NO_VECTOR).where(
                        nodes.c.tenant_id == tenant_id, self._in_scope(nodes.c.scope, scope), nodes.c.id.in_(part)
                    )
                )
                for r in rows:
                    n = node_from_row(r)
                    found[n.id] = n
            patches, diff = mutate([found[i] for i in wanted if i in found])
            patches = [p for p in patches if p.id in found]
            if not patches:
                return None
            chained = await self._chain_commit(conn, tenant_id, scope, head, commit, diff, now, bump_rev=True)
            await write_patches(conn, tenant_id, scope, patches, head.rev + 1, chained.id, now)
            return chained

    async def redirect_edges(
        self, tenant_id: str, scope: str, redirects: Mapping[str, str], commit: CommitInfo, *, now: datetime
    ) -> EdgeRedirectResult:
        final = resolve_redirects(redirects)
        if not final:
            return EdgeRedirectResult(None)
        aliases = sorted(final)
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            moving = await self._edges_touching_any(conn, tenant_id, scope, aliases)
            if not moving:
                return EdgeRedirectResult(None)
            targets = sorted({final.get(e.src_id, e.src_id) for e in moving.values()})
            occupied = {
                (e.type, e.src_id, e.dst_id): e
                for e in await self._edges_leaving(conn, tenant_id, scope, targets)
                if e.id not in moving
            }
            plan = plan_redirects(moving, occupied, final)
            diff = {"edge_redirects": plan.ops, "redirects": {a: final[a] for a in aliases}}
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, bump_epoch=bool(plan.deleted)
            )
            await self._write_redirects(conn, tenant_id, plan, commit_id=chained.id, rev=head.rev + 1, now=now)
            return EdgeRedirectResult(
                chained, redirected=plan.redirected, merged=plan.merged, removed_self_loops=plan.removed_self_loops
            )

    async def _edges_touching_any(
        self, conn: AsyncConnection, tenant_id: str, scope: str, node_ids: Sequence[str]
    ) -> dict[str, Edge]:
        found: dict[str, Edge] = {}
        for part in chunks(node_ids, 250):
            rows = await conn.execute(
                sa.select(edges).where(
                    edges.c.tenant_id == tenant_id,
                    edges.c.scope == scope,
                    sa.or_(edges.c.src_id.in_(part), edges.c.dst_id.in_(part)),
                )
            )
            found.update((e.id, e) for e in map(edge_from_row, rows))
        return found

    async def _edges_leaving(
        self, conn: AsyncConnection, tenant_id: str, scope: str, src_ids: Sequence[str]
    ) -> list[Edge]:
        found: list[Edge] = []
        for part in chunks(src_ids):
            rows = await conn.execute(
                sa.select(edges).where(
                    edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.src_id.in_(part)
                )
            )
            found.extend(map(edge_from_row, rows))
        return found

    async def _write_redirects(
        self, conn: AsyncConnection, tenant_id: str, plan: RedirectPlan, *, commit_id: str, rev: int, now: datetime
    ) -> None:
        stamp = {"updated_at": now, "commit_id": commit_id, "rev": rev}
        for part in chunks(plan.deleted):
            await conn.execute(edges.delete().where(edges.c.tenant_id == tenant_id, edges.c.id.in_(part)))
        for e in plan.moved:
            if e.id not in plan.merged_into:  # merged into after it moved: written below, with the larger values
                await self._update_edge(conn, tenant_id, e.id, src_id=e.src_id, dst_id=e.dst_id, **stamp)
        for e in plan.merged_into.values():
            await self._update_edge(
                conn,
                tenant_id,
                e.id,
                src_id=e.src_id,
                dst_id=e.dst_id,
                weight=e.weight,
                confidence=e.confidence,
                **stamp,
            )

    @staticmethod
    async def _update_edge(conn: AsyncConnection, tenant_id: str, edge_id: str, **values: Any) -> None:
        await conn.execute(edges.update().where(edges.c.tenant_id == tenant_id, edges.c.id == edge_id).values(**values))

    async def delete_edges(
        self, tenant_id: str, scope: str, edge_ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> Commit | None:
        wanted = sorted(set(edge_ids))
        if not wanted:
            return None
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            found: list[Edge] = []
            for part in chunks(wanted):
                rows = await conn.execute(
                    sa.select(edges).where(
                        edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.id.in_(part)
                    )
                )
                found.extend(edge_from_row(r) for r in rows)
            if not found:
                return None
            diff = {
                "deleted_edges": [
                    {"id": e.id, "type": e.type, "src_id": e.src_id, "dst_id": e.dst_id}
                    for e in sorted(found, key=lambda x: x.id)
                ]
            }
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, bump_epoch=True
            )
            for part in chunks([e.id for e in found]):
                await conn.execute(edges.delete().where(edges.c.tenant_id == tenant_id, edges.c.id.in_(part)))
            return chained


__all__ = ["Lifecycle", "RedirectPlan", "plan_redirects", "resolve_redirects"]
