"""Erasure as a use case: who may erase, and what the process forgets besides the store.

The store removes the subject's data in one transaction and makes the removal physical
(store/sql/erasure.py). Around it, this service writes the recall audits still queued in
memory first (they may name the nodes being erased, and would otherwise be written after),
and afterwards drops what the process keeps of the erased text: the rules cache of the
tenant, the compiled filter terms (they hold user ids) and rule patterns.
"""

from __future__ import annotations

from memlane.domain.clock import Clock, new_id
from memlane.domain.erasure import ErasureReceipt, ErasureSubject
from memlane.domain.errors import Forbidden
from memlane.domain.filters import compiled
from memlane.domain.patterns import forget_compiled
from memlane.domain.visibility import Viewer
from memlane.services.recall import RecallService
from memlane.services.rules_service import RulesService
from memlane.store.base import Store


class ErasureService:
    def __init__(self, store: Store, *, recall: RecallService, rules: RulesService, clock: Clock, knowledge_scope: str):
        self.store = store
        self.recall = recall
        self.rules = rules
        self.clock = clock
        self.knowledge_scope = knowledge_scope

    @staticmethod
    def check_allowed(viewer: Viewer, subject: ErasureSubject, *, admin_channel: bool) -> None:
        """With auth on only an admin erases; a whole tenant also needs the admin channel when
        auth is off (``X-Admin-Token``, or loopback outside production without a token)."""
        if viewer.authenticated and not viewer.admin:
            raise Forbidden("erasure needs credentials with the admin role", code="erasure_forbidden")
        if subject.kind == "tenant" and not viewer.authenticated and not admin_channel:
            raise Forbidden(
                "erasing a whole tenant needs X-Admin-Token matching ADMIN_TOKEN (with auth off and no token set, "
                "a loopback request outside production)",
                code="erasure_forbidden",
            )

    async def erase(self, viewer: Viewer, subject: ErasureSubject) -> ErasureReceipt:
        await self.recall.drain_audit()
        receipt = await self.store.erase(
            subject,
            erasure_id=new_id(),
            actor=viewer.actor,
            now=self.clock.now(),
            knowledge_scope=self.knowledge_scope,
        )
        self.rules.forget(subject.tenant_id)
        compiled.cache_clear()
        forget_compiled()
        return receipt


__all__ = ["ErasureService"]
