"""The topic of a candidate's episode: the query's cosine to the mean vector of *every* memory
of that episode, candidates or not (``RankingConfig.episode_centroid_weight``; off by default).

The episode signal (ranking/question.py ``episode_boost``) lifts a memory by the other strong
hits *among the candidates* of its episode; the centroid also sees the episode's memories the
search did not find, so a turn in a session whose overall topic matches the question rises.
Measured on LoCoMo and not kept as a default (BENCHMARKS.md, "Episode centroids"): the code
stays so the measurement can be repeated with another model or dataset.

Forms (``RankingConfig.episode_centroid_form``):

* ``add``: ``base + w x cos(query, centroid)``;
* ``scaled``: ``base + w x`` the cosine rescaled to [0, 1] between the lowest and the highest
  cosine of the episodes the candidates touch (only the difference between episodes counts);
* ``mul``: ``base x (1 + w x scaled)``;
* ``rank``: ``base + w / (1 + rank)``, rank 0 for the episode of the highest cosine.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

import numpy as np
import numpy.typing as npt

CENTROID_FORMS = ("add", "scaled", "mul", "rank")

Matrix = npt.NDArray[np.float32]


def centroid(vectors: Iterable[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32] | None:
    """The normalised mean of unit vectors; None for no vector (or vectors that cancel out)."""
    units = [v / n for v in vectors if (n := float(np.linalg.norm(v))) > 0]
    if not units:
        return None
    mean = np.mean(units, axis=0).astype(np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def episode_cosines(query: npt.NDArray[np.float32], centroids: Mapping[Hashable, Matrix]) -> dict[Hashable, float]:
    """The query's cosine to each episode's centroid."""
    qn = float(np.linalg.norm(query))
    if qn <= 0:
        return {}
    q = query / qn
    return {ep: float(np.dot(q, c)) for ep, c in centroids.items()}


def _scaled(cosines: Mapping[Hashable, float]) -> dict[Hashable, float]:
    if not cosines:
        return {}
    lo, hi = min(cosines.values()), max(cosines.values())
    span = hi - lo
    return {ep: (c - lo) / span if span > 1e-9 else 1.0 for ep, c in cosines.items()}


def centroid_boost(
    base: Mapping[str, float],
    episode_of: Mapping[str, Hashable],
    cosines: Mapping[Hashable, float],
    *,
    weight: float,
    form: str = "add",
) -> dict[str, float]:
    """Each candidate's score with its episode's topic added in the given form; a candidate
    in no episode (or one without vectors) keeps its score."""
    if form not in CENTROID_FORMS:
        raise ValueError(f"unknown centroid form {form!r} ({', '.join(CENTROID_FORMS)})")
    touched = {ep: cosines[ep] for nid in base if (ep := episode_of.get(nid)) is not None and ep in cosines}
    scaled = _scaled(touched)
    ranks = {ep: r for r, ep in enumerate(sorted(touched, key=lambda e: -touched[e]))}
    out: dict[str, float] = {}
    for nid, s in base.items():
        ep = episode_of.get(nid)
        if ep is None or ep not in touched:
            out[nid] = s
        elif form == "add":
            out[nid] = s + weight * touched[ep]
        elif form == "scaled":
            out[nid] = s + weight * scaled[ep]
        elif form == "mul":
            out[nid] = s * (1.0 + weight * scaled[ep])
        else:
            out[nid] = s + weight / (1 + ranks[ep])
    return out
