"""What a recall is asked and what it answers: typed values, read by name on every surface."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memlane.domain.model import Edge, Node
from memlane.domain.validity import CURRENT, ValidTime
from memlane.domain.visibility import Viewer


@dataclass(frozen=True, slots=True)
class RecallParams:
    """One recall's question; frozen, so the pipeline cannot change what its caller asked."""

    viewer: Viewer
    scope: str
    limit: int = 30
    neighborhood_hops: int = 2
    max_nodes: int = 50
    max_edges: int = 100
    ranked_limit: int = 100
    min_edge_weight: float = 0.0
    min_edge_confidence: float = 0.0
    include_embeddings: bool = False
    debug_embeddings_allowed: bool = False
    endpoint: str = "recall"
    query_text: str | None = None
    #: which facts by their interval: valid now by default (domain/validity.py)
    when: ValidTime = CURRENT
    #: fill ``RecallOutcome.signals`` (why each seed ranked); off on the hot path
    explain: bool = False

    @property
    def tenant_id(self) -> str:
        return self.viewer.tenant_id

    @property
    def text(self) -> str | None:
        """The query text, or None when there is none worth reading (absent or blank)."""
        return self.query_text if self.query_text and self.query_text.strip() else None


@dataclass(frozen=True, slots=True)
class Seed:
    """A node recall started from, with its true cosine similarity to the query."""

    node: Node
    similarity: float


@dataclass(frozen=True, slots=True)
class Ranked:
    """A node of the ranked list: the activation it ended with (its base score plus what the
    graph passed on), and its score, that activation times its own weight
    (``RankingConfig.node_weight``)."""

    id: str
    activation: float
    score: float


@dataclass(frozen=True, slots=True)
class RecallContext:
    """The best nodes rendered for an LLM prompt, with one item and one citation per line."""

    text: str
    items: list[dict[str, Any]]
    citations: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class RecallOutcome:
    seeds: list[Seed]
    ranked: list[Ranked]
    nodes: list[Node]
    edges: list[Edge]
    context: RecallContext
    neighborhood_counts: dict[str, int]
    #: each seed's cosine on the calibrated relevance scale, against the query's background
    #: (ranking/calibration.py), by id
    seed_relevance: dict[str, float]
    debug_embeddings: list[dict[str, Any]] | None = None
    #: why each seed ranked: similarity, keyword score, their fusion, the entity and time
    #: boosts, and what graph activation added (docs/api-graph.md, "Ranking signals")
    signals: dict[str, dict[str, float]] = field(default_factory=dict)
