"""Dense pseudo-relevance feedback (recall/seeds.py): with ``prf_seeds`` the query vector moves
toward the first pass's best candidates and the dense search runs again, so a memory close to
what the best matches share overtakes one that is only a little closer to the question."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from tests.ranking.helpers import Ranking, query_vector
from tests.support.settings import make_settings

DENSE_ONLY = RankingConfig(keyword=False, graph=False, time=False, entity=False, episode_weight=0)


def _basis(q: npt.NDArray[np.float32], n: int) -> list[npt.NDArray[np.float64]]:
    """``q`` as a unit vector and ``n`` unit vectors orthogonal to it and to each other."""
    out = [q / np.linalg.norm(q)]
    rng = np.random.default_rng(5)
    while len(out) < n + 1:
        v = rng.normal(size=len(q))
        for b in out:
            v -= v.dot(b) * b
        out.append(v / np.linalg.norm(v))
    return out


def _node(cid: str, v: npt.NDArray[np.float64]) -> dict[str, object]:
    return {"client_id": cid, "type": "event", "text_summary": cid, "embedding": [float(x) for x in v]}


async def test_a_memory_like_the_best_matches_overtakes_a_nearer_outlier_with_feedback(ranking: Ranking) -> None:
    question = "where did the team celebrate"
    q, theme, elsewhere = _basis(query_vector(question), 2)
    nodes = [_node(f"best{i}", 0.9 * q + np.sqrt(1 - 0.81) * theme) for i in range(3)]
    nodes.append(_node("alike", 0.5 * q + np.sqrt(1 - 0.25) * theme))
    nodes.append(_node("outlier", 0.6 * q + 0.8 * elsewhere))
    scope, ids = await ranking.write(nodes)

    def order(seeds: list[str]) -> list[str]:
        names = {v: k for k, v in ids.items()}
        return [names[s] for s in seeds if names[s] in {"alike", "outlier"}]

    plain = await ranking.recall(scope, question, config=DENSE_ONLY, limit=5)
    fed = await ranking.recall(scope, question, config=replace(DENSE_ONLY, prf_seeds=3, prf_weight=0.5), limit=5)
    assert order([s.node.id for s in plain.seeds]) == ["outlier", "alike"]
    assert order([s.node.id for s in fed.seeds]) == ["alike", "outlier"]


async def test_feedback_without_candidates_recalls_nothing_and_does_not_fail(ranking: Ranking) -> None:
    scope, _ = await ranking.write([])
    out = await ranking.recall(scope, "anything at all", config=replace(DENSE_ONLY, prf_seeds=3), limit=5)
    assert out.seeds == []


def test_the_feedback_settings_reach_the_ranking_config() -> None:
    # not in helpers.SWITCHES: the tie test there needs cosines equal to the last bit, which the
    # store's search gives for the embedder's query vector but not for every moved vector
    settings = make_settings("sqlite:///unused.db", MEMLANE_RECALL_PRF_SEEDS=5, MEMLANE_RECALL_PRF_WEIGHT=0.2)
    assert from_settings(RankingConfig, settings.recall) == RankingConfig(prf_seeds=5, prf_weight=0.2)
