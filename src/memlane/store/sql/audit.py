"""Who recalled what: an append-only log, kept apart from the graph (no commit, no rev),
so auditing a recall never contends with the scope's writers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from memlane.domain.clock import new_id
from memlane.domain.model import RecallAudit
from memlane.store.schema import recall_audit
from memlane.store.sql.core import SqlCore, chunks


class RecallAuditLog(SqlCore):
    async def record_recall_audits(self, entries: Sequence[RecallAudit]) -> None:
        if not entries:
            return
        rows = [
            {
                "tenant_id": a.tenant_id,
                "id": new_id(),
                "scope": a.scope,
                "endpoint": a.endpoint,
                "consumer_agent_id": a.consumer_agent_id,
                "consumer_team_id": a.consumer_team_id,
                "query_sha256": a.query_sha256,
                "seed_ids": list(a.seed_ids),
                "returned_count": a.returned_count,
                "created_at": a.created_at,
            }
            for a in entries
        ]
        async with self._write_tx() as conn:
            for part in chunks(rows):
                await conn.execute(recall_audit.insert(), list(part))

    async def list_recall_audit(self, tenant_id: str, scope: str, *, limit: int) -> list[dict[str, Any]]:
        q = (
            sa.select(recall_audit)
            .where(recall_audit.c.tenant_id == tenant_id, recall_audit.c.scope == scope)
            .order_by(recall_audit.c.created_at.desc())
            .limit(limit)
        )
        async with self._read() as conn:
            return [dict(r._mapping) for r in await conn.execute(q)]

    async def delete_recall_audits_before(self, cutoff: datetime, *, limit: int) -> int:
        """Delete up to ``limit`` rows older than ``cutoff`` (every tenant); returns how many."""
        key = sa.tuple_(recall_audit.c.tenant_id, recall_audit.c.id)
        async with self._write_tx() as conn:
            found = (
                await conn.execute(
                    sa.select(recall_audit.c.tenant_id, recall_audit.c.id)
                    .where(recall_audit.c.created_at < cutoff)
                    .limit(limit)
                )
            ).all()
            if found:
                await conn.execute(recall_audit.delete().where(key.in_([tuple(r) for r in found])))
        return len(found)


__all__ = ["RecallAuditLog"]
