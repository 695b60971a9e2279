"""One relevance scale in 0..1, so a threshold means the same thing on every surface.

A raw cosine of all-MiniLM-L6-v2 says little on its own, for two reasons.

* Its level: a question and the memory that answers it typically score 0.2-0.5 ("database
  preferences" against "PostgreSQL is preferred ..." is 0.39), so a threshold of 0.7 on cosine
  finds nothing. The **absolute** scale maps cosine through a logistic curve,
  ``(cosine - midpoint) / scale`` as its logit, fitted by class-balanced logistic regression on
  the tuning conversations of LoCoMo (26 and 30): a question against each of its evidence turns
  and against 20 other turns of the same conversation (bench/calibrate_relevance.py).
* Its context: memories that share a subject look alike. Twenty short facts about Alice all
  score 0.55-0.76 against "Where does Alice live?", because "Alice" is most of each sentence;
  on the absolute scale all twenty pass 0.7 (issue #27 item 6). What tells the answer apart is
  how far it stands above the *background*: the median cosine of the other memories the query
  looked among. The **background** scale's logit is ``(cosine - background - excess_midpoint)
  / excess_scale``, chosen on the tune haystacks of bench/memory_truth.py's ``thresholds`` phase
  (one person's facts, pooled conversation notes and fact sheets; bench/calibrate_background.py,
  docs/retrieval.md).

Relevance blends the two logits by how much the background can be trusted:
``logit = (1 - w) * absolute + w * background`` with ``w = k / (k + BACKGROUND_PRIOR)``, ``k``
the number of other memories the background was measured on. It is measured only when the
query's candidates hold *every* memory it could return (a scope, user or app small enough to be
read whole by the nearest-neighbour search); a search that was cut at its depth saw only the
top of a larger distribution, whose median is no background, and uses the absolute scale alone
(``w = 0``). So a lone memory, or one among thousands, scores as before; a memory among a few
dozen is judged against them.

For the candidates of one query, relevance grows with cosine (the background of a higher
memory is a median without it, never above that of a lower one), so ranking by relevance is
ranking by cosine; the raw cosine stays in the responses beside it. Another embedding model
needs its own fit: ``MEMLANE_RELEVANCE_MIDPOINT``, ``MEMLANE_RELEVANCE_SCALE``,
``MEMLANE_RELEVANCE_EXCESS_MIDPOINT``, ``MEMLANE_RELEVANCE_EXCESS_SCALE``;
``MEMLANE_RELEVANCE_BACKGROUND=false`` keeps the absolute scale alone.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass

#: fitted for the local all-MiniLM-L6-v2 (bench/calibrate_relevance.py; the excess pair:
#: bench/calibrate_background.py)
DEFAULT_MIDPOINT = 0.22
DEFAULT_SCALE = 0.123
DEFAULT_EXCESS_MIDPOINT = 0.18
DEFAULT_EXCESS_SCALE = 0.05
#: how many other memories make the background as trustworthy as the absolute scale
BACKGROUND_PRIOR = 10.0
#: the default cut of memory_search's ``threshold`` (the spec's 0.7) and of the browser's
#: search (docs/retrieval.md, "Scores, thresholds")
DEFAULT_CUT = 0.7
#: the conversation query's default ``similarity_threshold`` (the spec names none): the highest
#: cut that keeps the memory truth suite's additive facts (list questions answered by notes that
#: say it indirectly) at 97 % on its tune split, a margin over the 95 % target, once changed facts
#: close their notes (0.4 and 0.5 kept 95.3 %); MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD
CONVERSATION_CUT = 0.3


@dataclass(frozen=True, slots=True)
class Background:
    """The cosines of the candidates one query looked among.

    ``whole``: they are every memory the query could have returned (the search was not cut
    at its depth); only then is their median a background.
    """

    cosines: tuple[float, ...]
    whole: bool

    @classmethod
    def of(cls, cosines: Iterable[float], *, whole: bool) -> Background:
        return cls(tuple(sorted(float(c) for c in cosines)), whole)

    def median_without(self, cosine: float, *, member: bool) -> tuple[float | None, int]:
        """The median of the other candidates and how many they are. ``member``: ``cosine``
        is one of the candidates (one occurrence of it is left out)."""
        values = self.cosines
        skip = len(values)  # the index left out; none by default
        if member:
            i = bisect.bisect_left(values, cosine)
            if i < len(values) and values[i] == cosine:
                skip = i
        k = len(values) - (skip < len(values))
        if k == 0:
            return None, 0

        def at(rank: int) -> float:  # the rank-th smallest of the others
            return values[rank if rank < skip else rank + 1]

        mid = k // 2
        median = at(mid) if k % 2 else (at(mid - 1) + at(mid)) / 2.0
        return median, k


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True, slots=True)
class RelevanceScale:
    midpoint: float = DEFAULT_MIDPOINT
    scale: float = DEFAULT_SCALE
    excess_midpoint: float = DEFAULT_EXCESS_MIDPOINT
    excess_scale: float = DEFAULT_EXCESS_SCALE
    background: bool = True
    background_prior: float = BACKGROUND_PRIOR

    def __post_init__(self) -> None:
        if not self.scale > 0 or not self.excess_scale > 0 or not self.background_prior > 0:
            raise ValueError("relevance scales and the background prior must be > 0")

    def absolute(self, cosine: float) -> float:
        """The cosine alone, on the LoCoMo-fitted curve."""
        return _sigmoid((cosine - self.midpoint) / self.scale)

    def __call__(self, cosine: float, background: Background | None = None, *, member: bool = True) -> float:
        """Relevance of a memory at ``cosine`` among the query's candidates ``background``
        (``member``: the memory is one of them). Without a usable background, the absolute scale."""
        logit = (cosine - self.midpoint) / self.scale
        if background is None or not background.whole or not self.background:
            return _sigmoid(logit)
        median, k = background.median_without(cosine, member=member)
        if median is None:
            return _sigmoid(logit)
        weight = k / (k + self.background_prior)
        excess = (cosine - median - self.excess_midpoint) / self.excess_scale
        return _sigmoid((1.0 - weight) * logit + weight * excess)
