"""A scope's commit chain as rows, read out whole and written back verbatim (export/import).

Restoring keeps the chain's ids, hashes and sequence numbers, so the nodes and edges imported
after it still name the commits that made them. A chain is restored only into a scope with
no history of its own: two chains cannot be interleaved without breaking their hashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from memlane.store.schema import commits, scope_heads
from memlane.store.sql.core import SqlCore


class CommitHistory(SqlCore):
    async def commit_rows(self, tenant_id: str, scope: str, *, after_seq: int, limit: int) -> list[dict[str, Any]]:
        q = (
            sa.select(commits)
            .where(commits.c.tenant_id == tenant_id, commits.c.scope == scope, commits.c.seq > after_seq)
            .order_by(commits.c.seq)
            .limit(limit)
        )
        async with self._read() as conn:
            return [dict(r._mapping) for r in await conn.execute(q)]

    async def restore_commits(
        self, tenant_id: str, scope: str, rows: Sequence[dict[str, Any]], *, now: datetime
    ) -> int:
        if not rows:
            return 0
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            if head.head_commit_id is not None:
                return 0
            ordered = sorted(rows, key=lambda r: int(r["seq"]))
            names = {c.name for c in commits.c}
            await self._insert_rows(
                conn,
                commits,
                [
                    {**{k: v for k, v in r.items() if k in names}, "tenant_id": tenant_id, "scope": scope}
                    for r in ordered
                ],
            )
            last = ordered[-1]
            await conn.execute(
                scope_heads.update()
                .where(scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope)
                .values(
                    head_commit_id=last["id"],
                    head_hash=last["commit_hash"],
                    commit_seq=int(last["seq"]),
                    rev=head.rev + 1,
                    updated_at=now,
                )
            )
        return len(ordered)


__all__ = ["CommitHistory"]
