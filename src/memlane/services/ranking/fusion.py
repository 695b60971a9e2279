"""Fusing the dense and keyword candidate lists into one base score per node.

Two methods, chosen by ``MEMLANE_RECALL_FUSION``:

* ``relative`` (default): each list's scores rescaled to [0, 1] between a floor and the list's
  best, then mixed by weight. It keeps *how much* better the best hit is, so a clear winner
  stays clearly first; measured on LoCoMo it beat rank fusion at every k
  (BENCHMARKS.md, "Retrieval quality on LoCoMo").
* ``rrf``: reciprocal rank fusion, ``sum w / (k + rank)``; scale-free but flattens the top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: scores this close count as a tie (identical texts or vectors can differ in the last bits)
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Candidates:
    """One retriever's hits, best first or not, with the list's weight in the fusion.

    ``floor`` is the score that means "no evidence" for relative fusion: 0 for BM25-like
    scores; ``None`` to take the list's lowest score, right for a list cut at a fixed depth,
    where the last hit stands for the many unremarkable candidates below it.
    """

    weight: float
    hits: Sequence[tuple[str, float]]
    floor: float | None = None


def tied_ranks(hits: Sequence[tuple[str, float]]) -> dict[str, int]:
    """Competition ranks ("1224") by descending score: equal scores share a rank, so two
    identical memories fuse to identical scores whatever order the index returned them in.
    A document listed twice keeps its best rank."""
    ordered = sorted(hits, key=lambda h: (-h[1], h[0]))
    ranks: dict[str, int] = {}
    prev: float | None = None
    rank = 0
    for position, (doc, score) in enumerate(ordered, start=1):
        if prev is None or abs(score - prev) > TIE_TOLERANCE * max(1.0, abs(prev)):
            rank = position
            prev = score
        ranks.setdefault(doc, rank)
    return ranks


def reciprocal_rank_fusion(lists: Sequence[Candidates], k: int) -> dict[str, float]:
    """``score(d) = sum_i w_i / (k + rank_i(d))`` over the lists that hold ``d``, normalised so
    that a document ranked first everywhere scores 1.0."""
    if k < 0:
        raise ValueError("rrf k must be >= 0")
    total = sum(c.weight for c in lists if c.weight > 0)
    if total <= 0:
        return {}
    best = total / (k + 1)
    out: dict[str, float] = {}
    for c in lists:
        if c.weight <= 0:
            continue
        for doc, rank in tied_ranks(c.hits).items():
            out[doc] = out.get(doc, 0.0) + c.weight / (k + rank)
    return {doc: s / best for doc, s in out.items()}


def relative_score_fusion(lists: Sequence[Candidates]) -> dict[str, float]:
    """``score(d) = sum_i w_i x clip((s_i(d) - floor_i) / (max_i - floor_i)) / sum_i w_i``.

    A list whose best score is at its floor (all hits tied) gives each of its documents 1.0;
    a document missing from a list gets 0 from it. Equal scores stay equal.
    """
    total = sum(c.weight for c in lists if c.weight > 0)
    if total <= 0:
        return {}
    out: dict[str, float] = {}
    for c in lists:
        if c.weight <= 0 or not c.hits:
            continue
        best: dict[str, float] = {}
        for doc, score in c.hits:
            if doc not in best or score > best[doc]:
                best[doc] = score
        hi = max(best.values())
        lo = min(best.values()) if c.floor is None else min(c.floor, hi)
        span = hi - lo
        flat = span <= TIE_TOLERANCE * max(1.0, abs(hi))
        for doc, score in best.items():
            norm = 1.0 if flat else min(max((score - lo) / span, 0.0), 1.0)
            out[doc] = out.get(doc, 0.0) + c.weight * norm
    return {doc: s / total for doc, s in out.items()}


def fuse(method: str, lists: Sequence[Candidates], *, rrf_k: int) -> dict[str, float]:
    """``relative`` score fusion or reciprocal rank fusion (``rrf``)."""
    if method == "rrf":
        return reciprocal_rank_fusion(lists, rrf_k)
    if method == "relative":
        return relative_score_fusion(lists)
    raise ValueError(f"unknown fusion method {method!r} (relative or rrf)")
