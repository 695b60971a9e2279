"""Ranking tests set the exact cosine similarity each node has to the query: nodes are written
with vectors built from the query's own hashing embedding, so "dense misses it" is a fact of
the test data, not a hope about a model.

``Ranking`` recalls in-process through a ``RecallService`` built with the ``RankingConfig`` a
test names (``SWITCHES``: every signal on, and each off alone), all on one store, so a switch
is tested without a server per configuration. The HTTP helpers are for the tests of the wiring
and the response contract.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from memlane.domain.model import EdgeRef
from memlane.domain.visibility import Viewer
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import Services
from memlane.services.ranking.config import RankingConfig
from memlane.services.recall.model import RecallOutcome, RecallParams
from memlane.services.recall.query import query_vector as recall_query_vector
from memlane.services.recall.service import RecallService
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec
from tests.support import memory_api
from tests.support.settings import DIM

FULL = RankingConfig()
#: every signal on, and each one switched off (or, for entity links and query rewriting, on)
#: alone; the names of
#: the MEMLANE_RECALL_* settings each stands for are in test_recall_http.py's wiring test
SWITCHES: dict[str, RankingConfig] = {
    "full": FULL,
    "no-keyword": RankingConfig(keyword=False),
    "no-graph": RankingConfig(graph=False),
    "no-time": RankingConfig(time=False),
    "no-entity": RankingConfig(entity=False),
    "shallow": RankingConfig(candidates=5),
    "no-time-statement": RankingConfig(time_statement_boost=0),
    "no-episode": RankingConfig(episode_weight=0),
    "entity-links": RankingConfig(entity_link_weight=0.3),
    "query-rewrite": RankingConfig(query_rewrite_weight=0.5),
    "speaker-names-kept": RankingConfig(skip_speaker_names=False),
    "no-category": RankingConfig(category_keyword_weight=0),
}


def query_vector(text: str) -> npt.NDArray[np.float32]:
    """What the hashing embedder makes of a query text."""
    return np.asarray(HashingEmbedder(DIM).embed_sync([text])[0], dtype=np.float32)


def vector_with_cosine(query: npt.NDArray[np.float32], cosine: float, seed: int) -> list[float]:
    """A unit vector whose cosine with ``query`` is exactly ``cosine``."""
    q = query / np.linalg.norm(query)
    r = np.random.default_rng(seed).normal(size=len(q))
    r -= r.dot(q) * q
    r /= np.linalg.norm(r)
    v = cosine * q + np.sqrt(max(0.0, 1.0 - cosine**2)) * r
    return [float(x) for x in v]


def distractors(query: str, n: int, *, start: float = 0.6, step: float = 0.02) -> list[dict[str, Any]]:
    """Nodes dense search prefers (cosine ``start`` downwards) that share no word with ``query``."""
    q = query_vector(query)
    return [
        {
            "client_id": f"d{i}",
            "type": "event",
            "title": f"note {i}",
            "text_summary": "weather was mild and grey",
            "embedding": vector_with_cosine(q, start - step * i, seed=100 + i),
        }
        for i in range(n)
    ]


def _graph_pair() -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    query = "morning run along the river"
    q = query_vector(query)
    nodes = [
        {"client_id": "seed", "type": "event", "text_summary": "jogged", "embedding": vector_with_cosine(q, 0.9, 31)},
        {"client_id": "next", "type": "event", "text_summary": "ate", "embedding": vector_with_cosine(q, -0.5, 32)},
    ]
    edges = [{"type": "related_to", "src": {"client_id": "seed"}, "dst": {"client_id": "next"}}]
    return query, nodes, edges


#: ``(query, nodes, edges)``: a seed the query finds, and a neighbour only graph activation brings
#: in (its own cosine is negative), linked by one related_to edge
GRAPH_PAIR = _graph_pair()


def new_scope() -> str:
    return f"rank-{uuid.uuid4().hex[:10]}"


@dataclass
class Ranking:
    """One store, recalled with whichever ranking configuration a test asks for."""

    services: Services

    async def write(
        self, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None
    ) -> tuple[str, dict[str, str]]:
        """The nodes (request-shaped dicts, as a client writes them) in a fresh scope of the shared
        lane; returns the scope and ``client_id -> node id``."""
        scope = new_scope()
        outcome = await self.services.writes.write(
            WriteCommand(
                tenant_id="default",
                scope=scope,
                input_sha256="0" * 64,
                memory_lane="shared",
                nodes=[WriteNodeSpec(**n, fields_set=frozenset(n)) for n in nodes],
                edges=[
                    WriteEdgeSpec(type=e["type"], src=EdgeRef(**e["src"]), dst=EdgeRef(**e["dst"])) for e in edges or []
                ],
            )
        )
        return scope, {str(n.client_id): n.id for n in outcome.result.nodes}

    async def recall(
        self, scope: str, query: str, *, config: RankingConfig = FULL, limit: int = 30, explain: bool = False
    ) -> RecallOutcome:
        """What ``recall_text`` computes for ``query``, ranked with ``config``."""
        recall = RecallService(
            self.services.store, self.services.reader, clock=self.services.clock, dimension=DIM, ranking=config
        )
        vector = await recall_query_vector(self.services.embedding, query, config)
        params = RecallParams(
            viewer=Viewer(tenant_id="default"),
            scope=scope,
            limit=limit,
            endpoint="recall_text",
            query_text=query,
            explain=explain,
        )
        return await recall.recall(vector, params)

    async def ranked_ids(self, scope: str, query: str, **how: Any) -> list[str]:
        return [r.id for r in (await self.recall(scope, query, **how)).ranked]


def write(
    client: httpx.Client, scope: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None
) -> dict[str, str]:
    """Write over HTTP and return ``client_id -> node id``."""
    out = memory_api.write(client, scope, nodes, edges, input_text="ranking test")
    return {n["client_id"]: n["id"] for n in out["nodes"]}


def recall_text(client: httpx.Client, scope: str, query: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": query, **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())
