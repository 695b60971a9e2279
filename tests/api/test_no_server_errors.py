"""Whatever a client sends, the graph surface answers 2xx or 4xx, never 5xx."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)

FIELDS = [
    "tenant_id",
    "scope",
    "input_text",
    "input_sha256",
    "nodes",
    "edges",
    "limit",
    "max_edges",
    "neighborhood_hops",
    "query_text",
    "query_embedding",
    "include_embeddings",
    "return_debug",
    "memory_lane",
    "parent_commit_id",
    "consumer_agent_id",
    "slots_preview_keys",
    "force_reembed",
]
node_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["event", "topic", "rule", "x"])},
    optional={
        "client_id": json_values,
        "title": json_values,
        "slots": json_values,
        "embedding": json_values,
        "salience": json_values,
        "tier": json_values,
        "id": json_values,
    },
)
bodies = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6) | st.fixed_dictionaries(
    {"input_text": st.just("x"), "nodes": st.lists(node_like, max_size=3)},
    optional={
        "edges": st.lists(st.dictionaries(st.sampled_from(["type", "src", "dst", "weight"]), json_values), max_size=2)
    },
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/v1/memory/write", "/v1/memory/recall", "/v1/memory/recall_text"]), body=bodies)
def test_random_bodies_never_cause_a_server_error(client: httpx.Client, path: str, body: dict[str, Any]) -> None:
    r = client.post(path, json=body)
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert set(r.json()) >= {"error", "message"}


def test_non_finite_numbers_are_refused_not_stored(client: httpx.Client) -> None:
    vec = ",".join(["0.1"] * 383)
    for path, raw in (
        ("/v1/memory/recall", '{"query_embedding": [NaN,' + vec + "]}"),
        ("/v1/memory/recall", '{"query_embedding": [Infinity,' + vec + "]}"),
        ("/v1/memory/write", '{"input_text": "x", "nodes": [{"type": "event", "embedding": [NaN,' + vec + "]}]}"),
        ("/v1/memory/write", '{"input_text": "x", "nodes": [{"type": "event", "salience": NaN}]}'),
        ("/v1/memory/recall_text", '{"query_text": "x", "min_edge_weight": NaN}'),
    ):
        r = client.post(path, content=raw.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 400, (path, r.text)
