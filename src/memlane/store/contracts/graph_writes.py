"""Graph writes: every change a caller asks for, chained as one commit per write."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.model import Commit, CommitInfo, EdgeUpsert, NodeUpsert, WriteResult
from memlane.domain.visibility import Visibility
from memlane.rules.governance import EVERY_RULE, RuleRights
from memlane.store.base import FollowUpJobs, NodePatch


class GraphWriteOps(Protocol):
    """Upserts, patches and deletes of nodes and edges (services/writing.py is the one caller)."""

    async def apply_write(
        self,
        tenant_id: str,
        scope: str,
        nodes: Sequence[NodeUpsert],
        edges: Sequence[EdgeUpsert],
        commit: CommitInfo,
        *,
        now: datetime,
        follow_up: FollowUpJobs | None = None,
        writer: Visibility | None = None,
        rights: RuleRights = EVERY_RULE,
    ) -> WriteResult:
        """Upsert nodes (by id, or by client_id when ``match_by_client_id``) and edges, chain a
        commit onto the scope head, and insert ``follow_up`` jobs, all in one transaction.

        Raises ``InvalidRequest`` (code ``edge_endpoint_not_found``) for an edge whose
        endpoint is neither in this write nor stored in the scope. With ``writer`` given, stored
        nodes the writer may not see count as absent for edges, and updating one is a
        ``Conflict`` (code ``client_id_in_use``): lanes hold for writes too. A stored rule
        changes only when ``rights`` govern it (``Forbidden``, code
        ``rule_governance_required``; rules/governance.py).
        """
        ...

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
        """Apply partial updates and chain one commit; ``None`` when no patch applies."""
        ...

    async def delete_nodes(
        self, tenant_id: str, scope: str | None, ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> list[str]:
        """Hard-delete nodes, their edges and vectors; returns the ids that existed."""
        ...
