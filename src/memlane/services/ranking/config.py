"""Which ranking signals recall uses, and how strongly: one value object (services/container.py
fills it from the ``MEMLANE_RECALL_*`` settings of the same names)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """Defaults were tuned on two LoCoMo conversations and confirmed on three held-out ones
    (BENCHMARKS.md, "Retrieval quality on LoCoMo"); every signal can be switched off to
    measure it alone. Every weight recall uses is a field here; those without a ``MEMLANE_RECALL_*`` setting (edge
    factors, hop decay, node weight) keep their defaults outside tests and sweeps."""

    keyword: bool = True
    graph: bool = True
    time: bool = True
    entity: bool = True
    fusion: str = "relative"
    rrf_k: int = 10
    dense_weight: float = 0.4
    keyword_weight: float = 0.6
    candidates: int = 100
    graph_weight: float = 1.0
    #: how much activation an edge of each type carries to its neighbour per hop (ranking/activation.py)
    edge_type_factors: tuple[tuple[str, float], ...] = (
        ("part_of", 0.9),
        ("derived_from", 0.8),
        ("next", 0.7),
        ("related_to", 0.6),
    )
    other_edge_factor: float = 0.5
    #: what is left of activation after each hop
    hop_decay: float = 0.5
    entity_boost: float = 1.0
    time_boost: float = 0.5
    time_scale_days: float = 3.0
    #: question-aware ranking (ranking/question.py); a weight of 0 switches a signal off
    time_statement_boost: float = 0.5
    episode_weight: float = 0.3
    entity_link_weight: float = 0.0
    #: a question that asks for a category's members ("What activities ...", ranking/categories.py):
    #: a keyword search for the members' words ("swimming", "pottery" ...) is fused as a third
    #: list with this weight (beside ``dense_weight`` and ``keyword_weight``); 0 = off
    category_keyword_weight: float = 0.5
    #: a node's own weight in its score (``score = activation x node_weight``): the share of
    #: its salience and of its confidence (each 0..1); the rest of the weight is fixed, so a
    #: node of salience and confidence 0 keeps 0.75 of its activation
    #: the dense query (ranking/rewrite.py, recall/query.py): the share of the question's
    #: statement form in the query vector (0 = the question as asked, 1 = the statement alone)
    query_rewrite_weight: float = 0.0
    #: dense pseudo-relevance feedback (recall/seeds.py): the query vector moves toward the mean
    #: of the first pass's ``prf_seeds`` best candidates by ``prf_weight``, and the dense search
    #: runs again with it; 0 seeds = off
    prf_seeds: int = 0
    prf_weight: float = 0.3
    #: the keyword search leaves out the question's names that are speakers (recall/seeds.py):
    #: the speaker signal (``entity_boost``) carries them, and in a speaker's own words the
    #: name is rare while the other person's "Hey Caroline!" has it
    skip_speaker_names: bool = True
    salience_weight: float = 0.15
    confidence_weight: float = 0.10

    def node_weight(self, salience: float, confidence: float) -> float:
        """``0.75 + 0.15 x salience + 0.10 x confidence`` with the defaults: relevance decides,
        and of two equally relevant nodes the more salient and certain ranks first."""
        fixed = 1.0 - self.salience_weight - self.confidence_weight
        return fixed + self.salience_weight * salience + self.confidence_weight * confidence

    @property
    def question_aware(self) -> bool:
        return self.time_statement_boost > 0 or self.entity_link_weight > 0 or self.episode_weight > 0
