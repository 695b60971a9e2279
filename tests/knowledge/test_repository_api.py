"""Knowledge items managed through /v1/knowledge: create, lifecycle, versions, supersession,
import of Markdown documents, validation of constraints, delete."""

from __future__ import annotations

import httpx

from tests.knowledge.helpers import tenant, tool

ITEM = {
    "id": "policy-http-timeouts",
    "type": "policy",
    "layer": "team",
    "title": "Outbound HTTP calls have timeouts",
    "summary": "Every outbound HTTP call sets a timeout.",
    "content": "# Timeouts\nAlways pass timeout=.",
    "tags": ["http", "reliability"],
    "constraints": [{"operator": "must_not_match", "target": "code", "pattern": "requests\\.get\\([^)]*\\)$"}],
}


def test_create_update_lifecycle_and_history(kclient: httpx.Client) -> None:
    t = tenant()
    h = {"X-Tenant-Id": t, "X-Agent-Id": "architect-1"}
    r = kclient.post("/v1/knowledge/items", json=ITEM, headers=h)
    assert r.status_code == 201, r.text
    item = r.json()["item"]
    assert item["status"] == "draft" and item["version"] == "1"
    assert item["constraints"][0]["target"] == "content"  # "code" is an alias
    again = kclient.post("/v1/knowledge/items", json={**ITEM, "title": "another title"}, headers=h)
    assert again.status_code == 409
    # retrying cannot help: the id exists until it is deleted
    assert again.json()["errorCode"] == "CONFLICT" and again.json()["retryable"] is False
    assert again.json()["details"]["field"] == "id"
    assert kclient.get(f"/v1/knowledge/items/{ITEM['id']}", headers=h).json()["item"]["title"] == ITEM["title"]
    r = kclient.patch(
        f"/v1/knowledge/items/{ITEM['id']}", json={"status": "accepted", "message": "approved"}, headers=h
    )
    assert r.status_code == 200 and r.json()["item"]["version"] == "2"
    r = kclient.patch(f"/v1/knowledge/items/{ITEM['id']}", json={"status": "draft"}, headers=h)
    assert r.status_code == 400 and "accepted" in r.json()["message"]
    # an unchanged update makes no new version
    r = kclient.patch(f"/v1/knowledge/items/{ITEM['id']}", json={"title": ITEM["title"]}, headers=h)
    assert r.json()["item"]["version"] == "2"
    history = kclient.get(f"/v1/knowledge/items/{ITEM['id']}/history", headers=h).json()["history"]
    assert [(v["version"], v["message"], v["author"]) for v in history] == [
        ("2", "approved", "architect-1"),
        ("1", "created", "architect-1"),
    ]
    # now accepted: enforced by knowledge_check
    files = [{"path": "client.py", "content": "import requests\nrequests.get(url)\n"}]
    check = tool(kclient, t, "knowledge_check", {"files": files}).json()
    assert [(v["knowledgeItemId"], v["location"]["line"]) for v in check["violations"]] == [(ITEM["id"], 2)]


def test_an_accepted_item_that_supersedes_marks_the_old_one(kclient: httpx.Client) -> None:
    t = tenant()
    h = {"X-Tenant-Id": t}
    old = {**ITEM, "id": "policy-old", "status": "accepted"}
    assert kclient.post("/v1/knowledge/items", json=old, headers=h).status_code == 201
    new = {**ITEM, "id": "policy-new", "status": "accepted", "supersedes": "policy-old"}
    assert kclient.post("/v1/knowledge/items", json=new, headers=h).status_code == 201
    got = kclient.get("/v1/knowledge/items/policy-old", headers=h).json()["item"]
    assert got["status"] == "superseded" and got["supersededBy"] == ["policy-new"]
    assert got["version"] == "2"


def test_markdown_documents_can_be_imported(kclient: httpx.Client) -> None:
    t = tenant()
    doc = (
        "---\nid: spec-api-versioning\ntype: spec\nlayer: project\nstatus: accepted\nseverity: warn\n"
        "tags: [api]\nconstraints:\n  - operator: must_match\n    target: file\n    pattern: '^api/v[0-9]+/'\n"
        "    appliesTo: ['api/*']\n---\n# API versioning\n\nEvery route lives under a version prefix.\n"
    )
    r = kclient.post(
        "/v1/knowledge/import", json={"documents": [{"path": "spec.md", "content": doc}]}, headers={"X-Tenant-Id": t}
    )
    assert r.status_code == 200, r.text
    item = kclient.get("/v1/knowledge/items/spec-api-versioning", headers={"X-Tenant-Id": t}).json()["item"]
    assert item["title"] == "API versioning"
    assert item["summary"] == "Every route lives under a version prefix."
    check = tool(kclient, t, "knowledge_check", {"files": [{"path": "api/users.py", "content": "x"}]}).json()
    assert check["summary"]["warn"] == 1
    r = kclient.post(
        "/v1/knowledge/import",
        json={"documents": [{"path": "bad.md", "content": "no front matter"}]},
        headers={"X-Tenant-Id": t},
    )
    assert r.status_code == 400 and "bad.md" in r.json()["message"]


def test_invalid_items_are_refused_naming_the_field(kclient: httpx.Client) -> None:
    h = {"X-Tenant-Id": tenant()}
    cases = [
        ({**ITEM, "type": "memo"}, "item.type"),
        ({**ITEM, "constraints": [{"operator": "should_use", "target": "dependency", "pattern": "x"}]}, "operator"),
        (
            {**ITEM, "constraints": [{"operator": "must_use", "target": "dependency", "pattern": "(unclosed"}]},
            "pattern",
        ),
        ({**ITEM, "id": "bad id with spaces"}, "item.id"),
    ]
    for body, field in cases:
        r = kclient.post("/v1/knowledge/items", json=body, headers=h)
        assert r.status_code == 400, r.text
        assert r.json()["errorCode"] == "INVALID_INPUT"
        assert field in r.json()["message"]


def test_delete_removes_the_item(kclient: httpx.Client) -> None:
    h = {"X-Tenant-Id": tenant()}
    kclient.post("/v1/knowledge/items", json=ITEM, headers=h)
    assert kclient.delete(f"/v1/knowledge/items/{ITEM['id']}", headers=h).status_code == 200
    assert kclient.get(f"/v1/knowledge/items/{ITEM['id']}", headers=h).status_code == 404
    assert kclient.delete(f"/v1/knowledge/items/{ITEM['id']}", headers=h).status_code == 404
