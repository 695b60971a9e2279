"""The vector recall searches with for a query text: the question's, or (with
``RankingConfig.query_rewrite_weight``) mixed with the vector of the statement that would answer
it (ranking/rewrite.py). Both texts go through the embedder's query cache."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.rewrite import statement
from memlane.store.base import Vector


class QueryEmbedder(Protocol):
    async def query_vector(self, text: str) -> Vector: ...


def mix(question: Vector, other: Vector, weight: float) -> Vector:
    """``(1 - weight) x question + weight x other``, both unit length first, back to unit length
    (cosine ranks the same; stored vectors are compared by cosine)."""
    q = _unit(question)
    out = (1.0 - weight) * q + weight * _unit(other)
    norm = float(np.linalg.norm(out))
    return (out / norm).astype(np.float32) if norm > 0 else q


def _unit(v: Vector) -> Vector:
    norm = float(np.linalg.norm(v))
    return (v / norm).astype(np.float32) if norm > 0 else v.astype(np.float32)


async def query_vector(embedding: QueryEmbedder, text: str, ranking: RankingConfig) -> Vector:
    """The question's vector, mixed with its statement's when the rewrite is on and the question
    is one the rewrite recognises."""
    vector = await embedding.query_vector(text)
    weight = ranking.query_rewrite_weight
    said = statement(text) if weight > 0 else None
    if said is None:
        return vector
    return mix(vector, await embedding.query_vector(said), weight)
