"""The ``rules`` block of /v1/memory/recall and /recall_text (planner injection)."""

from __future__ import annotations

import httpx

from tests.rules.api.helpers import import_rules, rule, write_rules
from tests.support.memory_api import new_scope, unit

RULES_BLOCK = {"scope", "considered", "matched", "skipped_invalid_then", "invalid_then_sample", "applied"}


def test_recall_adds_the_rules_block_only_when_a_rules_context_is_given(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(
        client,
        scope,
        [
            rule("json", if_={"intent": "answer"}, then={"output": {"format": "json"}}),
            rule("shadow", then={"output": {"strict": True}}, state="shadow"),
            {"client_id": "fact", "type": "event", "title": "a fact", "embedding": unit(1)},
        ],
    )
    import_rules(client, scope, [rule("bad", then={"tool": {"allow": 3}})])  # live before rules/state checked
    plain = client.post("/v1/memory/recall", json={"scope": scope, "query_embedding": unit(1)}).json()
    assert "rules" not in plain
    nulled = client.post(
        "/v1/memory/recall", json={"scope": scope, "query_embedding": unit(1), "rules_context": None}
    ).json()
    assert "rules" not in nulled
    body = client.post(
        "/v1/memory/recall",
        json={"scope": scope, "query_embedding": unit(1), "rules_context": {"intent": "answer"}},
    ).json()
    block = body["rules"]
    assert set(block) == RULES_BLOCK and block["scope"] == scope
    assert block["matched"] == 1 and block["skipped_invalid_then"] == 1 and block["considered"] == 2
    assert block["applied"]["policy"] == {"output": {"format": "json"}}
    assert "shadow_policy" not in block["applied"]
    assert [s["id"] for s in body["seeds"]][:1]  # the recall itself is unchanged
    with_shadow = client.post(
        "/v1/memory/recall",
        json={
            "scope": scope,
            "query_embedding": unit(1),
            "rules_context": {"intent": "answer"},
            "rules_include_shadow": True,
            "rules_limit": 1,
        },
    ).json()["rules"]
    assert with_shadow["matched"] == 2
    assert with_shadow["applied"]["shadow_policy"] == {"output": {"format": "json", "strict": True}}


def test_recall_text_carries_the_rules_block_too(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(client, scope, [rule("md", then={"output": {"format": "markdown"}})])
    r = client.post(
        "/v1/memory/recall_text", json={"scope": scope, "query_text": "anything", "rules_context": {"x": 1}}
    )
    assert r.status_code == 200, r.text
    assert r.json()["rules"]["applied"]["policy"] == {"output": {"format": "markdown"}}
    assert set(r.json()["rules"]) == RULES_BLOCK


def test_consumer_ids_stand_in_for_the_agent_of_the_rules_context(client: httpx.Client) -> None:
    scope = new_scope()
    write_rules(
        client,
        scope,
        [
            rule("team", then={"output": {"strict": True}}, rule_scope="team", target_team_id="red"),
            rule("mine", then={"output": {"format": "text"}}, memory_lane="private", owner_agent_id="alice"),
        ],
    )
    base = {"scope": scope, "query_embedding": unit(2), "rules_context": {}}
    anonymous = client.post("/v1/memory/recall", json=base).json()["rules"]
    assert anonymous["matched"] == 1  # the agent rule is visible without lane enforcement; the team rule is not
    red = client.post("/v1/memory/recall", json={**base, "consumer_team_id": "red"}).json()["rules"]
    assert red["matched"] == 1 and red["applied"]["policy"] == {"output": {"strict": True}}
    alice = client.post("/v1/memory/recall", json={**base, "consumer_agent_id": "alice"}).json()["rules"]
    assert alice["applied"]["policy"] == {"output": {"format": "text"}}
    explicit = client.post(
        "/v1/memory/recall",
        json={**base, "consumer_team_id": "red", "rules_context": {"agent": {"team_id": "blue"}}},
    ).json()["rules"]
    assert explicit["matched"] == 0  # the caller's own context wins over the consumer default


def test_rules_bounds_on_recall_are_validated(client: httpx.Client) -> None:
    for extra in ({"rules_limit": 0}, {"rules_limit": 201}, {"rules_include_shadow": "perhaps"}):
        r = client.post("/v1/memory/recall", json={"query_embedding": unit(1), "rules_context": {}, **extra})
        assert r.status_code == 400 and r.json()["error"] == "invalid_request"
