"""Whatever a client sends, the conversation surface answers 2xx or 4xx in its {"detail"}
envelope, never 5xx."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
message = st.fixed_dictionaries(
    {},
    optional={
        "role": values | st.sampled_from(["user", "assistant"]),
        "content": values | st.text(min_size=1, max_size=60),
        "timestamp": values | st.sampled_from(["2024-01-01T00:00:00Z", "2024-13-01", ""]),
        "id": values,
    },
)
bodies = st.fixed_dictionaries(
    {},
    optional={
        "app_id": values | st.just("fuzz-app"),
        "user_id": values | st.just("u"),
        "session_id": values,
        "messages": values | st.lists(message, max_size=4) | st.text(max_size=40),
        "callback_headers": values,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/v1/memories", "/api/v1/agent/memories", "/api/v1/agent/summaries"]), body=bodies)
def test_random_bodies_never_cause_a_server_error(api: httpx.Client, path: str, body: dict[str, Any]) -> None:
    r = api.post(path, json=body)
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert set(r.json()) == {"detail"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    params=st.dictionaries(
        st.sampled_from(["app_id", "query", "user_id", "session_id", "n_results", "similarity_threshold"]),
        st.text(max_size=12) | st.integers(-5, 500).map(str) | st.sampled_from(["nan", "inf", "0.5", "1e309"]),
        max_size=6,
    ),
    memory_id=st.text(min_size=1, max_size=40).filter(lambda s: s not in {".", ".."}),
)
def test_random_query_parameters_never_cause_a_server_error(
    api: httpx.Client, params: dict[str, str], memory_id: str
) -> None:
    memory_id = quote(memory_id, safe="")
    for r in (
        api.get("/api/v1/memories/query", params=params),
        api.get(f"/api/v1/memories/{memory_id}", params=params),
        api.get(f"/api/v1/memories/{memory_id}/evolution", params=params),
        api.get(f"/api/v1/tasks/{memory_id}"),
    ):
        assert r.status_code < 500, (r.request.url, r.text)


def test_malformed_json_is_a_400(api: httpx.Client) -> None:
    r = api.post("/api/v1/memories", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["detail"]
