"""Vectors arriving for pending nodes, failures, and re-embedding after a model change.

Vectors change no content, so none of these chain a commit; each bumps the scope's ``rev``
instead, which makes the in-memory caches reload the rows (sqlite/vector_cache.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.model import CLIENT_EMBEDDING_MODEL
from memlane.domain.node_plan import NO_VECTOR
from memlane.store.base import PendingEmbedding, Vector
from memlane.store.schema import nodes
from memlane.store.sql.core import SqlCore, chunks


class EmbeddingWrites(SqlCore):
    async def embedding_counts(self) -> dict[str, int]:
        q = (
            sa.select(nodes.c.embedding_status, sa.func.count())
            .where(nodes.c.embedding_status != "ready")
            .group_by(nodes.c.embedding_status)
        )
        async with self._read() as conn:
            return {r[0]: int(r[1]) for r in await conn.execute(q)}

    async def pending_embeddings(self, tenant_id: str, ids: Sequence[str]) -> list[PendingEmbedding]:
        out: list[PendingEmbedding] = []
        async with self._read() as conn:
            for part in chunks(list(ids)):
                rows = await conn.execute(
                    sa.select(
                        nodes.c.id,
                        nodes.c.scope,
                        nodes.c.title,
                        nodes.c.text_summary,
                        nodes.c.rev,
                        nodes.c.embedding_status,
                    ).where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part))
                )
                for r in rows:
                    # filtered here, not in SQL: SQLite's planner then keeps to the primary key
                    if r.embedding_status == "ready":
                        continue
                    text = "\n".join(p for p in (r.title, r.text_summary) if p)
                    out.append(PendingEmbedding(tenant_id=tenant_id, id=r.id, scope=r.scope, text=text, rev=r.rev))
        return out

    async def set_embeddings(
        self, items: Sequence[tuple[PendingEmbedding, Vector]], model_id: str, *, now: datetime
    ) -> list[str]:
        stale: list[str] = []
        if not items:
            return stale

        async def tx(conn: AsyncConnection) -> list[str]:
            revs: dict[tuple[str, str], int] = {}
            for p, _ in items:
                key = (p.tenant_id, p.scope)
                if key not in revs:
                    revs[key] = await self._bump_rev(conn, p.tenant_id, p.scope, now)
            for p, vec in items:
                res = await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == p.tenant_id, nodes.c.id == p.id, nodes.c.rev == p.rev)
                    .values(
                        embedding=np.asarray(vec, dtype=np.float32),
                        embedding_status="ready",
                        embedding_model=model_id,
                        embedding_dim=len(vec),
                        rev=revs[(p.tenant_id, p.scope)],
                    )
                )
                if res.rowcount == 0:
                    stale.append(p.id)
            return stale

        return await self._in_write_tx(tx)

    async def mark_embedding_failed(self, tenant_id: str, ids: Sequence[str], *, now: datetime) -> None:
        async with self._write_tx() as conn:
            for part in chunks(list(ids)):
                await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part), nodes.c.embedding_status == "pending")
                    .values(embedding_status="failed")
                )

    async def mark_stale_embeddings(
        self, model_id: str, dimension: int, *, now: datetime, limit: int
    ) -> list[tuple[str, str]]:
        async with self._write_tx() as conn:
            rows = (
                await conn.execute(
                    sa.select(nodes.c.tenant_id, nodes.c.id, nodes.c.scope)
                    .where(
                        nodes.c.embedding_status == "ready",
                        nodes.c.embedding_model.is_not(None),
                        nodes.c.embedding_model != model_id,
                        sa.not_(
                            sa.and_(
                                nodes.c.embedding_model == CLIENT_EMBEDDING_MODEL, nodes.c.embedding_dim == dimension
                            )
                        ),
                    )
                    .limit(limit)
                )
            ).all()
            scopes = {(r.tenant_id, r.scope) for r in rows}
            revs = {key: await self._bump_rev(conn, key[0], key[1], now) for key in sorted(scopes)}
            for r in rows:
                await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == r.tenant_id, nodes.c.id == r.id)
                    .values(**NO_VECTOR, rev=revs[(r.tenant_id, r.scope)])
                )
            return [(r.tenant_id, r.id) for r in rows]


__all__ = ["EmbeddingWrites"]
