"""A scope's commit chain as rows (export), and commits of another store appended to it (import).

An imported commit keeps its id, so the nodes and edges imported after it still name the
commit that made them, but not its place in the other store's chain: it is hashed onto this
scope's head like any write, by the importing actor, at the time of the import, with the
original's fields (actor, hash, time, diff...) inside its own diff (services/writing.py
``import_history``). Its hash is this store's, so an import can neither forge the chain's
head nor another actor's commit; re-importing the same file finds each commit stored already
and appends nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from memlane.domain.errors import Conflict
from memlane.domain.model import ImportedCommit
from memlane.store.schema import commits
from memlane.store.sql.core import ScopeHead, SqlCore, chunks


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

    async def import_commits(
        self, tenant_id: str, scope: str, given: Sequence[ImportedCommit], *, now: datetime
    ) -> int:
        if not given:
            return 0
        appended = 0
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            stored: dict[str, Any] = {}
            for part in chunks([c.id for c in given]):
                q = sa.select(
                    commits.c.id, commits.c.scope, commits.c.diff, commits.c.erased_at, commits.c.commit_hash
                ).where(commits.c.tenant_id == tenant_id, commits.c.id.in_(part))
                stored.update({r.id: r for r in await conn.execute(q)})
            for commit in given:
                row = stored.get(commit.id)
                if row is not None:
                    # stored by an earlier import, or the very commit the file was exported from
                    original = commit.diff.get("imported") if isinstance(commit.diff, dict) else None
                    exported_here = isinstance(original, dict) and original.get("commit_hash") == row.commit_hash
                    same = row.scope == scope and (
                        row.erased_at is not None or row.diff == commit.diff or exported_here
                    )
                    if same:
                        continue
                    raise Conflict(
                        f"commit id {commit.id} is already taken by another commit of this tenant",
                        code="commit_id_taken",
                        details={"commit_id": commit.id},
                    )
                chained = await self._chain_commit(
                    conn, tenant_id, scope, head, commit.info, commit.diff, now, bump_rev=False, commit_id=commit.id
                )
                head = ScopeHead(chained.id, chained.commit_hash, head.commit_seq + 1, head.rev, head.epoch)
                appended += 1
        return appended


__all__ = ["CommitHistory"]
