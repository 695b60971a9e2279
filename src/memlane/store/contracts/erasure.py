"""Erasure of a subject (domain/erasure.py), and the server secret its receipts are keyed with."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from memlane.domain.erasure import ErasureReceipt, ErasureSubject


class ErasureOps(Protocol):
    """Everything of a subject, removed in one transaction and made physical."""

    async def erase(
        self,
        subject: ErasureSubject,
        *,
        erasure_id: str,
        actor: str | None,
        now: datetime,
        knowledge_scope: str,
        subject_digest: str,
    ) -> ErasureReceipt:
        """Remove everything of ``subject`` on every surface in one transaction, empty the
        commits that name it (hashes kept), record the receipt as an audit event, then make the
        removal physical (SQLite: keyword index merged, WAL truncated; PostgreSQL: VACUUM).
        ``knowledge_scope`` is where knowledge items are synced: erasing it erases them.
        ``subject_digest`` names the subject in the receipt (``ErasureSubject.digest``)."""
        ...


class SecretOps(Protocol):
    """Secrets every replica shares (not tenant data: the one kind of method without a tenant)."""

    async def server_secret(self, name: str) -> str:
        """A secret every replica shares, generated and stored on first use."""
        ...
