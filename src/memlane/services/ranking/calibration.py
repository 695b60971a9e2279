"""One relevance scale in 0..1, so a threshold means the same thing on every surface.

A raw cosine of all-MiniLM-L6-v2 says little on its own: a question and the memory that
answers it typically score 0.2-0.5 ("database preferences" against "PostgreSQL is preferred
..." is 0.39), so a threshold of 0.7 on cosine finds nothing. Relevance maps cosine through a
logistic curve,

    relevance = 1 / (1 + exp(-(cosine - midpoint) / scale))

fitted by class-balanced logistic regression on the tuning conversations only (LoCoMo 26 and
30): a question against each of its evidence turns (relevant) and against 20 other turns of
the same conversation (irrelevant), every text embedded alone. 0.5 means "as likely relevant
as not"; 0.7, the tools' default threshold, is reached at cosine 0.32, above 90% of
irrelevant pairs and below half of the relevant ones (docs/retrieval.md has the figures and
the command). Another embedding model needs its own fit: ``MEMLANE_RELEVANCE_MIDPOINT`` and
``MEMLANE_RELEVANCE_SCALE``.

The mapping is monotonic, so ranking by relevance is ranking by cosine; the raw cosine stays
in every response beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memlane.config import Settings

#: fitted for the local all-MiniLM-L6-v2 (bench/calibrate_relevance.py)
DEFAULT_MIDPOINT = 0.22
DEFAULT_SCALE = 0.123


@dataclass(frozen=True, slots=True)
class RelevanceScale:
    midpoint: float = DEFAULT_MIDPOINT
    scale: float = DEFAULT_SCALE

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError("relevance scale must be > 0")

    def __call__(self, cosine: float) -> float:
        z = (cosine - self.midpoint) / self.scale
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    @classmethod
    def from_settings(cls, settings: Settings) -> RelevanceScale:
        return cls(midpoint=settings.relevance_midpoint, scale=settings.relevance_scale)
