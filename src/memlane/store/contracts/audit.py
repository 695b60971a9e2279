"""Recall audits (who recalled what) and the retention that bounds them and the jobs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.model import RecallAudit


class AuditOps(Protocol):
    """Recall audit rows, appended in batches and read newest first."""

    async def record_recall_audits(self, entries: Sequence[RecallAudit]) -> None:
        """Append recall audit rows, all in one transaction."""
        ...

    async def list_recall_audit(self, tenant_id: str, scope: str, *, limit: int) -> list[dict[str, Any]]:
        """Newest first: who recalled what from a scope."""
        ...


class RetentionOps(Protocol):
    """Old audit rows and finished jobs, removed a batch at a time (services/retention.py)."""

    async def delete_recall_audits_before(self, cutoff: datetime, *, limit: int) -> int:
        """Remove up to ``limit`` recall audit rows created before ``cutoff`` (retention)."""
        ...

    async def delete_finished_jobs_before(self, cutoff: datetime, *, limit: int) -> int:
        """Remove up to ``limit`` done/failed jobs last updated before ``cutoff`` (retention)."""
        ...
