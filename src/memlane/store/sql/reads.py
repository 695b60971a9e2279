"""Graph reads through SQLAlchemy Core that both backends share: attribute listings, client
ids, commits.

Recall's hot reads (nodes, briefs and embeddings by id, edges around a frontier, vector and
keyword search) are each backend's own: SQLite answers them from plain ``sqlite3``
connections and its in-memory caches, PostgreSQL from fixed asyncpg statements.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from memlane.domain.model import Commit, Node, SeedFilter
from memlane.store.base import commit_from_row, node_from_row
from memlane.store.schema import NODE_COLUMNS_NO_VECTOR, commits, nodes
from memlane.store.sql.core import SqlCore, chunks
from memlane.store.sql_filters import to_sql


class GraphReads(SqlCore):
    async def find_nodes(
        self,
        tenant_id: str,
        scope: str | None,
        flt: SeedFilter,
        *,
        limit: int,
        order_by_recent: bool = True,
        ready_only: bool = False,
    ) -> list[Node]:
        cond = [nodes.c.tenant_id == tenant_id, to_sql(flt.term(), nodes)]
        if scope is not None:
            cond.append(nodes.c.scope == scope)
        if ready_only:
            cond.append(nodes.c.embedding_status == "ready")
        q = sa.select(*NODE_COLUMNS_NO_VECTOR).where(*cond)
        q = q.order_by(nodes.c.updated_at.desc() if order_by_recent else nodes.c.created_at.asc()).limit(limit)
        async with self._read() as conn:
            return [node_from_row(r) for r in await conn.execute(q)]

    async def preceding_nodes(self, tenant_id: str, scope: str, node_id: str, *, limit: int, span: int) -> list[Node]:
        mine = sa.select(nodes.c.row_no).where(nodes.c.tenant_id == tenant_id, nodes.c.id == node_id).scalar_subquery()
        q = (
            sa.select(*NODE_COLUMNS_NO_VECTOR)
            .where(
                nodes.c.tenant_id == tenant_id,
                nodes.c.row_no < mine,
                nodes.c.row_no >= mine - span,
                nodes.c.scope == scope,
            )
            .order_by(nodes.c.row_no.desc())
            .limit(limit)
        )
        async with self._read() as conn:
            return [node_from_row(r) for r in await conn.execute(q)]

    async def resolve_client_ids(self, tenant_id: str, scope: str, client_ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        async with self._read() as conn:
            for part in chunks(list(client_ids)):
                rows = await conn.execute(
                    sa.select(nodes.c.client_id, nodes.c.id).where(
                        nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                    )
                )
                found.update({r[0]: r[1] for r in rows})
        return found

    async def get_commit(self, tenant_id: str, commit_id: str) -> Commit | None:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    sa.select(commits).where(commits.c.tenant_id == tenant_id, commits.c.id == commit_id)
                )
            ).first()
        return commit_from_row(row) if row else None

    async def list_commits(self, tenant_id: str, scope: str, *, limit: int) -> list[Commit]:
        async with self._read() as conn:
            rows = await conn.execute(
                sa.select(commits)
                .where(commits.c.tenant_id == tenant_id, commits.c.scope == scope)
                .order_by(commits.c.seq.desc())
                .limit(limit)
            )
            return [commit_from_row(r) for r in rows]


__all__ = ["GraphReads"]
