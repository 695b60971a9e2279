"""The commit chain of each scope: read for history and export, appended to by import."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.model import Commit, ImportedCommit


class CommitReadOps(Protocol):
    """Commits of a scope as history shows them: one, the newest page, or the head."""

    async def get_commit(self, tenant_id: str, commit_id: str) -> Commit | None: ...

    async def list_commits(self, tenant_id: str, scope: str, *, limit: int) -> list[Commit]: ...

    async def head_commit_id(self, tenant_id: str, scope: str) -> str | None:
        """The scope's head commit (None before its first write): a cheap "did anything
        change?" check, since every change to a node chains a commit."""
        ...


class HistoryOps(Protocol):
    """A scope's chain as an export writes it and an import appends to it."""

    async def commit_rows(self, tenant_id: str, scope: str, *, after_seq: int, limit: int) -> list[dict[str, Any]]:
        """The scope's commits as column dicts, oldest first, after sequence ``after_seq``."""
        ...

    async def import_commits(
        self, tenant_id: str, scope: str, commits: Sequence[ImportedCommit], *, now: datetime
    ) -> int:
        """Append commits of another store to the scope's chain, in order, each hashed onto
        the head. A commit whose id is stored already is skipped when it is the same import
        (same diff, or erased since); any other commit with that id is ``Conflict``
        ``commit_id_taken`` (``details.commit_id``). Returns how many were appended."""
        ...
