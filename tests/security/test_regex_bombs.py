"""User patterns run on RE2: regex bombs are answered correctly without holding the server, and
patterns RE2 cannot run are refused when they are written, naming the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.rules.api.helpers import as_drafts, evaluate, rule, write_rules
from tests.support.liveness import concurrently, health_watch
from tests.support.memory_api import new_scope

THEN = {"tool": {"deny": ["shell"]}}
#: (pattern, subject, matches?): shapes that take a backtracking engine exponential time
BOMBS = [
    ("(a+)+$", "a" * 4000 + "!", False),
    ("(a|aa)+$", "a" * 3999 + "!", False),
    ("^(\\w+\\s?)*$", "word " * 790 + "!", False),
    ("(x+x+)+y", "x" * 3000 + "y", True),
    ("(.*a){12}", "a" * 11 + "b" * 3000, False),
]


def test_rule_regex_bombs_are_answered_correctly_while_health_answers(client: httpx.Client) -> None:
    scope = new_scope()
    rules = [rule(f"bomb-{i}", then=THEN, if_={"s": {"$regex": p}}) for i, (p, _, _) in enumerate(BOMBS)]
    ids = write_rules(client, scope, rules, memory_lane="shared")
    url = str(client.base_url)

    def one(subject: str) -> Callable[[], set[str]]:
        def call() -> set[str]:
            with httpx.Client(base_url=url, timeout=60) as c:
                return {m["rule_node_id"] for m in evaluate(c, scope, {"s": subject})["active"]}

        return call

    with health_watch(url) as statuses:
        answers = concurrently([one(subject) for _, subject, _ in BOMBS for _ in range(2)])
    for i, (_, _, hit) in enumerate(BOMBS):
        own = ids[f"bomb-{i}"]
        for got in answers[2 * i : 2 * i + 2]:
            assert (own in got) is hit, BOMBS[i]
    assert statuses and set(statuses) == {200}


@pytest.mark.parametrize(
    ("slots", "field"),
    [
        ({"if": {"model": {"$regex": "(?x)(a+) +$"}}}, "nodes[1].slots.if.model.$regex"),
        ({"if": {"$regex": "(\\w)\\1"}}, "nodes[1].slots.if.$regex"),
        ({"if": {"$or": [{"a": 1}, {"b": {"$regex": "x(?=y)"}}]}}, "nodes[1].slots.if.b.$regex"),
        ({"exceptions": [{"a": 1}, {"s": {"$regex": "(.*){1000}"}}]}, "nodes[1].slots.exceptions[1].s.$regex"),
    ],
)
def test_rule_writes_refuse_patterns_re2_cannot_run(client: httpx.Client, slots: dict[str, Any], field: str) -> None:
    scope = new_scope()
    good = rule("good", then=THEN, if_={"s": {"$regex": "^ok"}})
    bad = {**rule("bad", then=THEN), "slots": {"then": THEN, **slots}}
    nodes, _ = as_drafts([good, bad])
    r = client.post(
        "/v1/memory/write", json={"scope": scope, "input_text": "rules", "memory_lane": "shared", "nodes": nodes}
    )
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"] == "invalid_rule_pattern" and body["details"]["field"] == field
    assert field in body["message"]
    assert evaluate(client, scope, {"s": "ok"})["considered"] == 0, "refused, so neither rule was stored"
    # positive control: the good rule alone is stored and applies
    write_rules(client, scope, [good], memory_lane="shared")
    assert len(evaluate(client, scope, {"s": "ok"})["active"]) == 1
