"""Graph writes: upserts of nodes and edges, patches, deletes, each chained as one commit.

A write runs in one transaction under its scope's lock, in named steps: find the stored
nodes it refers to, plan the node rows (domain/node_plan.py: the write's policy), write
them, then resolve, plan (domain/edge_plan.py) and write the edges, chain the commit, and
enqueue follow-up jobs in the same transaction so a committed write never lacks its
embedding job. The store decides nothing here: it reads what the plans need and runs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.clock import new_id
from memlane.domain.edge_plan import (
    EdgeKey,
    EdgePlan,
    Endpoints,
    StoredEdge,
    missing_endpoints,
    plan_edge_writes,
    resolve_endpoints,
)
from memlane.domain.errors import InvalidRequest
from memlane.domain.model import Commit, CommitInfo, Edge, EdgeUpsert, Node, NodeUpsert, WriteResult
from memlane.domain.node_plan import (
    NO_VECTOR,
    NodePlan,
    RuleReview,
    RuleReviewer,
    StoredNodes,
    plan_node_writes,
    unit_vectors,
)
from memlane.domain.visibility import VISIBILITY_COLUMNS, Visibility
from memlane.rules.governance import EVERY_RULE, RuleRights
from memlane.rules.lifecycle import review_rule_write
from memlane.store.base import FollowUpJobs, NodePatch, node_from_row
from memlane.store.schema import NODE_COLUMNS_NO_VECTOR, edges, nodes
from memlane.store.sql.core import chunks
from memlane.store.sql.jobs import JobQueue

STORED_EDGE_INTERVAL = (edges.c.valid_at, edges.c.invalid_at, edges.c.expired_at)
#: NodePatch fields that are node columns of the same name
PATCH_FIELDS = (
    "tier",
    "slots",
    "status",
    "title",
    "text_summary",
    "last_activated",
    "memory_lane",
    "expires_at",
    "tags",
    "invalid_at",
)


async def write_patches(
    conn: AsyncConnection,
    tenant_id: str,
    scope: str,
    patches: Sequence[NodePatch],
    rev: int,
    commit_id: str,
    now: datetime,
) -> None:
    """Apply partial updates; a patch that changes the text sends the node back to pending."""
    for p in patches:
        values: dict[str, Any] = {"rev": rev, "updated_at": now, "commit_id": commit_id}
        values.update({name: v for name in PATCH_FIELDS if (v := getattr(p, name)) is not None})
        if p.invalid_at is not None:
            values["expired_at"] = now
        if p.title is not None or p.text_summary is not None:
            values.update(NO_VECTOR)
        await conn.execute(
            nodes.update()
            .where(nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.id == p.id)
            .values(**values)
        )


def rule_reviewer(*, now: datetime, actor: str | None, rights: RuleRights) -> RuleReviewer:
    """The rule lifecycle bound to one write: its time, its commit's actor (recorded when the
    write moves a rule's state) and the writer's rights (rules/governance.py)."""

    def review(before: Node | None, after: Node, *, where: str, restore: bool) -> RuleReview:
        return review_rule_write(before, after, where=where, now=now, actor=actor, restore=restore, rights=rights)

    return review


class GraphWrites(JobQueue):
    async def apply_write(
        self,
        tenant_id: str,
        scope: str,
        nodes_in: Sequence[NodeUpsert],
        edges_in: Sequence[EdgeUpsert],
        commit: CommitInfo,
        *,
        now: datetime,
        follow_up: FollowUpJobs | None = None,
        writer: Visibility | None = None,
        rights: RuleRights = EVERY_RULE,
    ) -> WriteResult:
        vectors = unit_vectors(nodes_in)

        async def tx(conn: AsyncConnection) -> WriteResult:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            rev = head.rev + 1
            # known before any row is written, so every row is written once, already stamped
            commit_id = new_id()
            stored = await self._stored_nodes(conn, tenant_id, scope, nodes_in)
            plan = plan_node_writes(
                nodes_in,
                stored,
                vectors,
                tenant_id=tenant_id,
                scope=scope,
                writer=writer,
                now=now,
                commit_id=commit_id,
                rev=rev,
                review=rule_reviewer(now=now, actor=commit.actor, rights=rights),
            )
            await self._write_nodes(conn, tenant_id, plan)
            written_edges, diff_edges = await self._upsert_edges(
                conn, tenant_id, scope, plan.written, edges_in, now, writer, commit_id=commit_id, rev=rev
            )
            diff = {"nodes": plan.diff, "edges": diff_edges}
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, commit_id=commit_id
            )
            result = WriteResult(commit=chained, nodes=plan.written, edges=written_edges, pending_node_ids=plan.pending)
            if follow_up is not None:
                follow = follow_up(result)
                if follow:
                    await self._insert_jobs(conn, follow, now)
            return result

        return await self._in_write_tx(tx)

    async def _stored_nodes(
        self, conn: AsyncConnection, tenant_id: str, scope: str, ups: Sequence[NodeUpsert]
    ) -> StoredNodes:
        """The stored nodes the upserts name, by id (refused when in another scope) or by
        client_id within the scope."""
        ids = [u.node.id for u in ups if not u.match_by_client_id]
        client_ids = [u.node.client_id for u in ups if u.match_by_client_id and u.node.client_id]
        found = StoredNodes()
        for part in chunks(ids):
            rows = await conn.execute(
                sa.select(*NODE_COLUMNS_NO_VECTOR).where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part))
            )
            for r in rows:
                n = node_from_row(r)
                if n.scope != scope:
                    raise InvalidRequest(
                        f"node {n.id} belongs to scope {n.scope!r}, not {scope!r}",
                        code="node_scope_mismatch",
                        details={"field": "nodes.id", "id": n.id},
                    )
                found.add(n, client_wins=False)
        for part in chunks(client_ids):
            rows = await conn.execute(
                sa.select(*NODE_COLUMNS_NO_VECTOR).where(
                    nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                )
            )
            for r in rows:
                found.add(node_from_row(r), client_wins=True)
        return found

    async def _write_nodes(self, conn: AsyncConnection, tenant_id: str, plan: NodePlan) -> None:
        if plan.inserts:
            numbers = await self._allocate_row_numbers(conn, len(plan.inserts))
            for row, number in zip(plan.inserts, numbers, strict=True):
                row["row_no"] = number
            await self._insert_rows(conn, nodes, plan.inserts)
        for node_id, values in plan.updates:
            await conn.execute(
                nodes.update().where(nodes.c.tenant_id == tenant_id, nodes.c.id == node_id).values(**values)
            )

    async def _upsert_edges(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        written: list[Node],
        edges_in: Sequence[EdgeUpsert],
        now: datetime,
        writer: Visibility | None,
        *,
        commit_id: str,
        rev: int,
    ) -> tuple[list[Edge], list[dict[str, Any]]]:
        if not edges_in:
            return [], []
        known = Endpoints.of_write(written)
        ids, client_ids = missing_endpoints(edges_in, known)
        await self._add_stored_endpoints(conn, tenant_id, scope, known, ids, client_ids, writer)
        resolved = resolve_endpoints(edges_in, known, scope)
        stored = await self._stored_edges(conn, tenant_id, scope, sorted({r.src_id for r in resolved}))
        plan = plan_edge_writes(
            resolved, stored, tenant_id=tenant_id, scope=scope, now=now, commit_id=commit_id, rev=rev
        )
        await self._write_edges(conn, tenant_id, plan)
        return plan.edges, plan.diff

    async def _add_stored_endpoints(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        known: Endpoints,
        ids: Sequence[str],
        client_ids: Sequence[str],
        writer: Visibility | None,
    ) -> None:
        """Stored nodes of the scope among ``ids`` / ``client_ids`` join ``known``; those the
        writer may not see stay unknown, so an edge to one is refused like an edge to nothing."""
        cols = [nodes.c.id, nodes.c.client_id, *(nodes.c[name] for name in VISIBILITY_COLUMNS)]
        for part in chunks(ids):
            rows = await conn.execute(
                sa.select(*cols).where(
                    nodes.c.tenant_id == tenant_id, self._in_scope(nodes.c.scope, scope), nodes.c.id.in_(part)
                )
            )
            known.stored.update(r.id for r in rows if writer is None or writer.can_see(r))
        for part in chunks(client_ids):
            rows = await conn.execute(
                sa.select(*cols).where(
                    nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                )
            )
            known.by_client.update({r.client_id: r.id for r in rows if writer is None or writer.can_see(r)})

    async def _stored_edges(
        self, conn: AsyncConnection, tenant_id: str, scope: str, src_ids: Sequence[str]
    ) -> dict[EdgeKey, StoredEdge]:
        """The stored edges leaving ``src_ids`` (id and interval), by (type, src, dst)."""
        found: dict[EdgeKey, StoredEdge] = {}
        cols = (edges.c.id, edges.c.type, edges.c.src_id, edges.c.dst_id, *STORED_EDGE_INTERVAL)
        for part in chunks(src_ids):
            rows = await conn.execute(
                sa.select(*cols).where(
                    edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.src_id.in_(part)
                )
            )
            found.update(
                {(r.type, r.src_id, r.dst_id): StoredEdge(r.id, r.valid_at, r.invalid_at, r.expired_at) for r in rows}
            )
        return found

    async def _write_edges(self, conn: AsyncConnection, tenant_id: str, plan: EdgePlan) -> None:
        for edge_id, values in plan.updates.items():
            await conn.execute(
                edges.update().where(edges.c.tenant_id == tenant_id, edges.c.id == edge_id).values(**values)
            )
        await self._insert_rows(conn, edges, list(plan.inserts.values()))

    async def patch_nodes(
        self,
        tenant_id: str,
        scope: str,
        patches: Sequence[NodePatch],
        commit: CommitInfo,
        *,
        now: datetime,
        diff: dict[str, Any],
    ) -> Commit | None:
        if not patches:
            return None

        async def tx(conn: AsyncConnection) -> Commit:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            chained = await self._chain_commit(conn, tenant_id, scope, head, commit, diff, now, bump_rev=True)
            await write_patches(conn, tenant_id, scope, patches, head.rev + 1, chained.id, now)
            return chained

        return await self._in_write_tx(tx)

    async def delete_nodes(
        self, tenant_id: str, scope: str | None, ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> list[str]:
        if not ids:
            return []
        async with self._write_tx() as conn:
            cond = [nodes.c.tenant_id == tenant_id, nodes.c.id.in_(list(ids))]
            if scope is not None:
                cond.append(nodes.c.scope == scope)
            rows = (await conn.execute(sa.select(nodes.c.id, nodes.c.scope).where(*cond))).all()
            if not rows:
                return []
            by_scope: dict[str, list[str]] = {}
            for r in rows:
                by_scope.setdefault(r.scope, []).append(r.id)
            # a fixed lock order across scopes: opposite orders deadlock on PostgreSQL
            for sc, sids in sorted(by_scope.items()):
                head = await self._lock_scope_head(conn, tenant_id, sc, now)
                diff = {"deleted_nodes": sorted(sids)}
                await self._chain_commit(conn, tenant_id, sc, head, commit, diff, now, bump_rev=True, bump_epoch=True)
                for part in chunks(sids):
                    await conn.execute(
                        edges.delete().where(
                            edges.c.tenant_id == tenant_id, sa.or_(edges.c.src_id.in_(part), edges.c.dst_id.in_(part))
                        )
                    )
                    await conn.execute(nodes.delete().where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part)))
            return [r.id for r in rows]


__all__ = ["GraphWrites", "rule_reviewer", "write_patches"]
