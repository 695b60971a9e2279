"""Relevance on a 0..1 scale from a cosine similarity, so a threshold means the same thing
whatever the model's cosine range.

The specs' thresholds (memory_search's default 0.7, OmniMemory clients' 0.6) were written for
models whose cosines of related texts sit near 0.8-0.9. all-MiniLM-L6-v2, the offline default,
puts related texts near 0.3-0.6 and unrelated ones near 0: compared with raw cosine, 0.7 found
almost nothing. So scores that users threshold are a logistic of the cosine,

    relevance = 1 / (1 + exp(-(cosine - midpoint) / width))

with constants per embedding model. For all-MiniLM-L6-v2 they were placed on
``bench/data/relevance_pairs.json`` (24 queries, each with a related and an unrelated memory,
written for memlane, not the specs' examples): the 90th percentile of unrelated cosines
(0.095) maps to 0.2 and the 10th percentile of related ones (0.309) to 0.8, giving midpoint
0.20 and width 0.077. Thresholds 0.6 / 0.7 / 0.8 then mean cosine 0.23 / 0.27 / 0.31.
``bench/tool_relevance.py`` reproduces the figures. Models without constants keep the cosine
itself (clamped to 0..1). The raw cosine stays visible beside the score wherever one is shown.

This is a stop-gap placed by hand on a small set, not a fitted calibration; a scale fitted on
more data can replace ``SCALES`` without changing any caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LogisticScale:
    midpoint: float
    width: float

    def __call__(self, cosine: float) -> float:
        z = (cosine - self.midpoint) / self.width
        if z < -60:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))


#: embedding model id -> its scale (see the module docstring for how it was placed)
SCALES: dict[str, LogisticScale] = {
    "all-MiniLM-L6-v2": LogisticScale(midpoint=0.20, width=0.077),
}


@dataclass(frozen=True, slots=True)
class RelevanceScale:
    """The scale of one embedding model; ``relevance(cosine)`` is what thresholds compare."""

    model_id: str

    def relevance(self, cosine: float) -> float:
        scale = SCALES.get(self.model_id)
        value = scale(cosine) if scale is not None else cosine
        return min(1.0, max(0.0, value))

    @property
    def calibrated(self) -> bool:
        return self.model_id in SCALES
