"""Composite ranking: ``composite = relevance x (1 + recency_boost + importance_boost)``.

* ``relevance`` is the calibrated relevance of the note to the query (a logistic of their
  cosine, services/ranking/calibration.py), in [0, 1].
* ``recency_boost = RECENCY_WEIGHT x 0.5 ** (age_days / half_life_days)``: 0.10 for a note
  said just now, 0.05 after one half-life (``MEMLANE_RECENCY_HALF_LIFE_DAYS``, default 30),
  tending to 0. Age counts from the note's latest source message, not from when it was stored,
  so importing an old conversation does not make it look fresh.
* ``importance_boost = IMPORTANCE_WEIGHT x importance`` with importance in [0, 1]: at most 0.10.

Relevance first: the boosts add at most 20 %, so a note whose relevance is more than 1.2 times
another's always ranks above it, whatever their age or importance; among near-equally
relevant notes, fresher and more important ones win.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

RECENCY_WEIGHT = 0.10
IMPORTANCE_WEIGHT = 0.10
MAX_BOOST = RECENCY_WEIGHT + IMPORTANCE_WEIGHT


@dataclass(frozen=True, slots=True)
class Scores:
    composite: float
    relevance: float
    recency_boost: float
    importance_boost: float


def recency_boost(occurred_at: datetime | None, now: datetime, half_life_days: float) -> float:
    if occurred_at is None:
        return 0.0
    age_days = max(0.0, (now - occurred_at).total_seconds() / 86400.0)
    return float(RECENCY_WEIGHT * 0.5 ** (age_days / half_life_days))


def importance_boost(importance: float) -> float:
    return IMPORTANCE_WEIGHT * min(1.0, max(0.0, importance))


def composite(
    similarity: float, *, occurred_at: datetime | None, importance: float, now: datetime, half_life_days: float
) -> Scores:
    relevance = min(1.0, max(0.0, similarity))
    rb = recency_boost(occurred_at, now, half_life_days)
    ib = importance_boost(importance)
    return Scores(relevance * (1.0 + rb + ib), relevance, rb, ib)
