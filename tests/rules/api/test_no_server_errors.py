"""Whatever a client sends to the rules, tools and lifecycle endpoints: 2xx or 4xx, never 5xx."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules.api.helpers import import_rules, rule, write_rules
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
PATHS = [
    "/v1/memory/rules/evaluate",
    "/v1/memory/rules/state",
    "/v1/memory/tools/select",
    "/v1/memory/tools/feedback",
    "/v1/memory/feedback",
    "/v1/memory/nodes/activate",
    "/v1/memory/archive/rehydrate",
]
FIELDS = [
    "context",
    "candidates",
    "selected_tool",
    "outcome",
    "target",
    "include_shadow",
    "limit",
    "rules_limit",
    "strict",
    "rule_node_id",
    "state",
    "node_ids",
    "client_ids",
    "target_tier",
    "activate",
    "run_id",
    "note",
    "reason",
]
SCOPE = new_scope()
bodies = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6).map(
    lambda d: {"scope": SCOPE, "input_text": "fuzz", **d}
)
plausible = st.fixed_dictionaries(
    {"context": json_values, "candidates": st.lists(st.sampled_from(["a", "b", "shell"]), min_size=1, max_size=3)},
    optional={
        "selected_tool": st.sampled_from(["a", "b", "shell", "zzz"]),
        "outcome": st.sampled_from(["positive", "negative", "neutral"]),
        "include_shadow": st.booleans(),
        "strict": st.booleans(),
        "target": st.sampled_from(["tool", "all"]),
    },
).map(lambda d: {"scope": SCOPE, "input_text": "fuzz", **d})


def _ok(path: str, body: dict[str, Any], r: httpx.Response) -> None:
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert set(r.json()) >= {"error", "message"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), body=bodies)
def test_random_bodies_never_cause_a_server_error(client: httpx.Client, path: str, body: dict[str, Any]) -> None:
    _ok(path, body, client.post(path, json=body))


@pytest.fixture(scope="module")
def seeded(live_server: LiveServer) -> str:
    """Rules of every kind, valid and broken, in the fuzzed scope of this server."""
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        write_rules(
            c,
            SCOPE,
            [
                rule("regex", if_={"intent": {"$regex": "^(a|b)+$"}}, then={"tool": {"allow": ["a", "shell"]}}),
                rule("deny", if_={"$or": [{"x": {"$gt": 1}}, {"tags": ["t"]}]}, then={"tool": {"deny": ["shell"]}}),
                rule("shadow", then={"tool": {"allow": []}}, state="shadow"),
            ],
        )
        # broken rules cannot go live any more; a store may still hold live ones (an import)
        import_rules(
            c,
            SCOPE,
            [rule("bad", if_={"$bogus": 1}, then={"tool": {"prefer": ["b"]}}), rule("typo", then={"tool": "a"})],
        )
    return SCOPE


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS[2:4]), body=plausible)
def test_random_contexts_against_real_rules_never_cause_a_server_error(
    client: httpx.Client, seeded: str, path: str, body: dict[str, Any]
) -> None:
    _ok(path, body, client.post(path, json={**body, "scope": seeded}))


def test_non_finite_numbers_in_contexts_are_harmless(client: httpx.Client) -> None:
    for raw in (
        '{"context": {"x": NaN}}',
        '{"context": {"x": Infinity, "agent": {"id": NaN}}}',
        '{"context": [NaN]}',
    ):
        r = client.post("/v1/memory/rules/evaluate", content=raw.encode(), headers={"content-type": "application/json"})
        assert r.status_code in (200, 400), r.text
    r = client.post(
        "/v1/memory/nodes/activate",
        json={"node_ids": [str(uuid.uuid4())], "input_text": "x", "reason": "\x00\ud7ff"},
    )
    assert r.status_code < 500
