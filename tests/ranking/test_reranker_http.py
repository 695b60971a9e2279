"""The optional rerank stage of ``recall_text`` against a real HTTP rerank endpoint."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from memlane.config import Settings
from memlane.rerank.factory import build_reranker
from tests.ranking.helpers import new_scope, query_vector, recall_text, vector_with_cosine, write
from tests.support.rerank_server import RerankScript, rerank_server
from tests.support.server import ServerFactory

QUERY = "what did the team decide about the database"


@pytest.fixture(scope="module")
def stack(live_server_factory: ServerFactory) -> Iterator[tuple[httpx.Client, RerankScript]]:
    with (
        rerank_server() as (base_url, script),
        live_server_factory(
            MEMLANE_RERANKER="http",
            MEMLANE_RERANK_BASE_URL=base_url,
            MEMLANE_RERANK_MODEL="test-reranker",
            MEMLANE_RERANK_TOP_K=5,
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        yield c, script


def scope_with_a_memory_only_the_reranker_prefers(client: httpx.Client) -> tuple[str, dict[str, str]]:
    q = query_vector(QUERY)
    nodes = [
        {
            "client_id": f"n{i}",
            "type": "event",
            "text_summary": f"note {i} about the weather",
            "embedding": vector_with_cosine(q, 0.9 - 0.1 * i, seed=i),
        }
        for i in range(4)
    ]
    nodes.append(
        {
            "client_id": "chosen",
            "type": "event",
            "text_summary": "the chosen one: the team picked PostgreSQL",
            "embedding": vector_with_cosine(q, 0.45, seed=9),
        }
    )
    scope = new_scope()
    return scope, write(client, scope, nodes)


def test_the_reranker_reorders_the_head_and_ranked_scores_stay_sorted(
    stack: tuple[httpx.Client, RerankScript],
) -> None:
    client, script = stack
    script.fail = False
    scope, ids = scope_with_a_memory_only_the_reranker_prefers(client)
    body = recall_text(client, scope, QUERY)
    ranked = body["ranked"]
    assert ranked[0]["id"] == ids["chosen"]
    scores = [x["score"] for x in ranked]
    assert scores == sorted(scores, reverse=True)
    sent = script.requests[-1]
    assert sent["query"] == QUERY and sent["model"] == "test-reranker" and len(sent["documents"]) <= 5


def test_a_failing_reranker_leaves_recalls_own_order(stack: tuple[httpx.Client, RerankScript]) -> None:
    client, script = stack
    scope, ids = scope_with_a_memory_only_the_reranker_prefers(client)
    script.fail = True
    try:
        body = recall_text(client, scope, QUERY)
    finally:
        script.fail = False
    assert body["ranked"][0]["id"] == ids["n0"]


def test_an_http_reranker_without_a_base_url_is_refused_at_startup() -> None:
    with pytest.raises(ValueError, match="MEMLANE_RERANK_BASE_URL"):
        build_reranker(Settings(MEMLANE_RERANKER="http"))
    assert build_reranker(Settings()) is None
