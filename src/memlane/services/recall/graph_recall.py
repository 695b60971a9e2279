"""The graph surface's recall as one use case (``/v1/memory/recall`` and ``/recall_text``): the
query's vector (sent, or embedded here from the text), the recall (``RecallService``, which
audits it), and the ``rules`` block when the caller sent a rules context (``RulesService``).

The route translates HTTP to a ``RecallParams`` and a ``RulesQuestion`` and the outcome back to
the response; what runs, and in which order, is decided here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memlane.domain.visibility import Viewer
from memlane.services.embedding import EmbeddingService
from memlane.services.recall.model import RecallOutcome, RecallParams
from memlane.services.recall.query import query_vector
from memlane.services.recall.service import RecallService
from memlane.services.rules_service import RulesBlockView, RulesService


@dataclass(frozen=True, slots=True)
class RulesQuestion:
    """The ``rules`` block a recall asks for: the rules ``viewer`` may see in the recall's scope,
    evaluated against ``context`` (identity already filled in by the surface)."""

    viewer: Viewer
    context: object
    include_shadow: bool
    limit: int


@dataclass(frozen=True, slots=True)
class GraphRecallOutcome:
    """What a graph recall answers: the recall, its ``rules`` block when one was asked for, and
    the provider that embeds queries (a recall by text shows it)."""

    recall: RecallOutcome
    rules: RulesBlockView | None
    embedding_provider: str


class GraphRecallService:
    def __init__(self, recall: RecallService, rules: RulesService, embedding: EmbeddingService) -> None:
        self.recall = recall
        self.rules = rules
        self.embedding = embedding

    async def by_vector(
        self, query_embedding: list[float], p: RecallParams, rules: RulesQuestion | None
    ) -> GraphRecallOutcome:
        """Recall from a vector the caller sent; its length is checked before anything is read."""
        self.recall.check_dimension(query_embedding)
        out = await self.recall.recall(np.asarray(query_embedding, dtype=np.float32), p)
        return await self._answer(out, p, rules)

    async def by_text(self, query_text: str, p: RecallParams, rules: RulesQuestion | None) -> GraphRecallOutcome:
        """Recall from a text the server embeds (mixed with its statement's vector when the
        query rewrite is on: ``query_vector``)."""
        vector = await query_vector(self.embedding, query_text, self.recall.ranking)
        out = await self.recall.recall(vector, p)
        return await self._answer(out, p, rules)

    async def _answer(self, out: RecallOutcome, p: RecallParams, rules: RulesQuestion | None) -> GraphRecallOutcome:
        """The recall with its ``rules`` block, evaluated after the recall (in the recall's scope)."""
        block = None
        if rules is not None:
            block = await self.rules.recall_block(
                rules.viewer, p.scope, rules.context, include_shadow=rules.include_shadow, limit=rules.limit
            )
        return GraphRecallOutcome(recall=out, rules=block, embedding_provider=self.embedding.embedder.provider)
