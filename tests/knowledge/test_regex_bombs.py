"""Knowledge constraint patterns run on RE2: bombs are answered correctly without holding the
server, long lines are read up to a cap, and patterns RE2 cannot run are refused when written."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.knowledge.helpers import tenant, tool
from tests.support.liveness import concurrently, health_watch

KNOWLEDGE_BOMB = {
    "id": "policy-no-a-runs",
    "type": "policy",
    "layer": "team",
    "status": "accepted",
    "severity": "block",
    "title": "No lines made of a runs only",
    "constraints": [{"operator": "must_not_match", "target": "content", "pattern": "^(a+)+$"}],
}


def test_knowledge_bombs_are_answered_correctly_while_health_answers(kclient: httpx.Client) -> None:
    t = tenant()
    assert kclient.post("/v1/knowledge/items", json=KNOWLEDGE_BOMB, headers={"X-Tenant-Id": t}).status_code == 201
    content = "\n".join(["a" * 9000 + "!", "A" * 9000, "b", "a" * 9000 + "!"] * 20)
    url = str(kclient.base_url)

    def check() -> dict[str, Any]:
        with httpx.Client(base_url=url, timeout=60) as c:
            files = [{"path": "big.txt", "content": content}]
            return dict(tool(c, t, "knowledge_check", {"files": files}).json())

    with health_watch(url) as statuses:
        results = concurrently([check for _ in range(4)])
    for result in results:
        # case-insensitive, whole line: only the "A" * 9000 lines match
        assert [v["location"]["line"] for v in result["violations"]] == [2 + 4 * k for k in range(20)]
        assert result["passed"] is False
    assert statuses and set(statuses) == {200}


def test_knowledge_checks_read_the_first_characters_of_an_overlong_line(kclient: httpx.Client) -> None:
    t = tenant()
    item = {**KNOWLEDGE_BOMB, "constraints": [{"operator": "must_not_match", "target": "content", "pattern": "eval"}]}
    assert kclient.post("/v1/knowledge/items", json=item, headers={"X-Tenant-Id": t}).status_code == 201
    early, late = "eval(" + "x" * 20_000, "x" * 20_000 + "eval("
    files = [{"path": "a.js", "content": f"{early}\n{late}"}]
    args = {"files": files, "knowledgeItemIds": [item["id"]]}
    result = tool(kclient, t, "knowledge_check", args).json()
    assert [v["location"]["line"] for v in result["violations"]] == [1]
    assert result["checked"]["truncatedSubjects"] == 2


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        ("(?x)(a+) +$", "verbose"),
        ("(\\w+)\\1", "backreferences"),
        ("(?<=import )os", "lookbehind"),
        ("(.*){1000}", "too complex"),
    ],
)
def test_knowledge_refuses_patterns_re2_cannot_run_on_create_update_and_import(
    kclient: httpx.Client, pattern: str, named: str
) -> None:
    h = {"X-Tenant-Id": tenant()}
    constraints = [{"operator": "must_not_match", "target": "content", "pattern": pattern}]
    created = kclient.post("/v1/knowledge/items", json={**KNOWLEDGE_BOMB, "constraints": constraints}, headers=h)
    assert created.status_code == 400, created.text
    assert "item.constraints[0].pattern" in created.json()["message"] and named in created.json()["message"]
    assert created.json()["details"]["field"] == "item.constraints[0].pattern"
    assert kclient.get(f"/v1/knowledge/items/{KNOWLEDGE_BOMB['id']}", headers=h).status_code == 404

    assert kclient.post("/v1/knowledge/items", json=KNOWLEDGE_BOMB, headers=h).status_code == 201
    updated = kclient.patch(f"/v1/knowledge/items/{KNOWLEDGE_BOMB['id']}", json={"constraints": constraints}, headers=h)
    assert updated.status_code == 400 and "constraints[0].pattern" in updated.json()["message"]
    stored = kclient.get(f"/v1/knowledge/items/{KNOWLEDGE_BOMB['id']}", headers=h).json()["item"]
    assert stored["constraints"][0]["pattern"] == "^(a+)+$", "the refused update changed nothing"

    doc = (
        "---\nid: imported-bomb\ntype: policy\nlayer: team\nconstraints:\n  - operator: must_not_match\n"
        f"    target: content\n    pattern: '{pattern}'\n---\n# Imported\n"
    )
    imported = kclient.post("/v1/knowledge/import", json={"documents": [{"path": "b.md", "content": doc}]}, headers=h)
    assert imported.status_code == 400 and "documents[0].constraints[0].pattern" in imported.json()["message"]
    assert kclient.get("/v1/knowledge/items/imported-bomb", headers=h).status_code == 404
