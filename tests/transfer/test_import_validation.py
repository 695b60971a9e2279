"""An import holds every line to the rules of the request that would have written it, on both
backends: a bad line is a 400 naming the line and the field (never a 500); the lines before it
are written, nothing of it or after it. Imported commits are history recorded by the importing
admin, so an export file cannot forge the audit trail."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from memlane.domain.hashing import ChainLink, verify_chain

HEADER = {"record": "header", "format": "memlane-export", "version": 1, "embedding_dimension": 384}

#: an import is JSON Lines (the browser boundary refuses any other body type)
NDJSON = {"content-type": "application/x-ndjson"}


def uid() -> str:
    return str(uuid.uuid4())


def node(scope: str, **fields: Any) -> dict[str, Any]:
    times = {"created_at": "2024-01-01T00:00:00+00:00", "updated_at": "2024-01-01T00:00:00+00:00"}
    return {"record": "node", "tenant_id": "default", "id": uid(), "scope": scope, "type": "event", "title": "good",
            **times, **fields}  # fmt: skip


def commit(scope: str, seq: Any, **fields: Any) -> dict[str, Any]:
    return {
        "record": "commit",
        "tenant_id": "default",
        "id": uid(),
        "scope": scope,
        "seq": seq,
        "parent_id": None,
        "parent_hash": None,
        "commit_hash": "a" * 64,
        "actor": "writer",
        "input_sha256": "b" * 64,
        "kind": "write",
        "model_version": None,
        "prompt_version": None,
        "diff": {"nodes": []},
        "created_at": "2024-01-01T00:00:00+00:00",
        "erased_at": None,
        **fields,
    }


def import_lines(client: httpx.Client, lines: list[Any], **params: str) -> httpx.Response:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    return client.post("/v1/admin/import", params=params, content=text.encode(), headers=NDJSON)


def exported(client: httpx.Client, scope: str) -> dict[str, list[dict[str, Any]]]:
    r = client.get("/v1/admin/export", params={"scope": scope})
    assert r.status_code == 200, r.text
    out: dict[str, list[dict[str, Any]]] = {}
    for line in r.text.splitlines():
        d = json.loads(line)
        out.setdefault(d["record"], []).append(d)
    return out


def deep(n: int) -> str:
    return "[" * n + "]" * n


BAD_NODES: list[tuple[str, str, str]] = [
    # (what is wrong, field named, words of the message)
    ('"importance": NaN', "importance", "finite"),
    ('"importance": 1e300', "importance", "less than or equal to 1"),
    ('"title": {"text": "an object"}', "title", "valid string"),
    ('"title": "a\\u0000b"', "title", "U+0000"),
    ('"title": "\\ud800"', "line", "not JSON"),
    ('"slots": [1, 2]', "slots", "JSON object"),
    ('"slots": ' + json.dumps({"a": json.loads(deep(40))}), "slots", "nested deeper"),
    ('"slots": {"a": ' + deep(100_000) + "}", "line", "not JSON"),
    ('"tags": {"not": "a list"}', "tags", "valid list"),
    ('"tags": ["x\\ny"]', "tags[0]", "control characters"),
    ('"embedding": [NaN' + ", 0.1" * 383 + "]", "embedding[0]", "finite"),
    ('"embedding": [1e300' + ", 0.1" * 383 + "]", "embedding[0]", "less than or equal to 1000000"),
    ('"embedding": [0.1, 0.2]', "embedding", "header says 384"),
    ('"memory_lane": "public"', "memory_lane", "'private' or 'shared'"),
    ('"created_at": "yesterday"', "created_at", "datetime"),
    ('"unknown_field": 1', "unknown_field", "Extra inputs"),
]


@pytest.mark.parametrize(("change", "field", "words"), BAD_NODES, ids=[b[1] + ":" + b[2] for b in BAD_NODES])
def test_a_bad_node_line_is_a_400_naming_line_and_field(
    client: httpx.Client, change: str, field: str, words: str
) -> None:
    scope = f"bad-{uuid.uuid4().hex[:8]}"
    good, bad = node(scope), node(scope)
    bad_line = json.dumps(bad)[:-1] + ", " + change + "}"
    if change.startswith('"title"'):
        bad_line = json.dumps({k: v for k, v in bad.items() if k != "title"})[:-1] + ", " + change + "}"
    after = node(scope)
    r = import_lines(client, [HEADER, good, bad_line, after])
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"] == "invalid_export_record" and body["details"]["line"] == 3, body
    assert body["details"]["field"] == field and words in body["message"], body
    ids = {n["id"] for n in exported(client, scope).get("node", [])}
    assert ids == {good["id"]}, "the good line before is written; nothing of the bad line or after it"


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"id": "x" * 100_000}, "id"),
        ({"scope": "s" * 100_000}, "scope"),
        ({"tenant_id": "default", "client_id": "c" * 100_000}, "client_id"),
        ({"owner_agent_id": "o" * 100_000}, "owner_agent_id"),
        ({"id": "11111111-1111-4111-8111-111111111111?app_id=other-app#"}, "id"),
        ({"commit_id": "not-a-uuid"}, "commit_id"),
        ({"status": "s" * 33}, "status"),
    ],
)
def test_ids_and_names_of_an_import_are_those_a_request_may_send(
    client: httpx.Client, bad: dict[str, Any], field: str
) -> None:
    scope = f"ids-{uuid.uuid4().hex[:8]}"
    r = import_lines(client, [HEADER, {**node(scope), **bad}])
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": field}, r.text


def test_commits_with_a_bad_seq_or_a_repeated_id_are_refused_naming_the_line(client: httpx.Client) -> None:
    scope = f"seq-{uuid.uuid4().hex[:8]}"
    for lines, field in (
        ([commit(scope, "abc")], "seq"),
        ([commit(scope, True)], "seq"),
        ([commit(scope, 1.5)], "seq"),
        ([commit(scope, 2), commit(scope, 1)], "seq"),
        ([commit(scope, 1, commit_hash="zz")], "commit_hash"),
        ([commit(scope, 1, diff=[])], "diff"),
    ):
        r = import_lines(client, [HEADER, *lines])
        assert r.status_code == 400 and r.json()["details"]["field"] == field, (lines, r.text)
        assert r.json()["details"]["line"] == len(lines) + 1
    first = commit(scope, 1)
    again = {**commit(scope, 2), "id": first["id"]}
    r = import_lines(client, [HEADER, first, again])
    assert r.status_code == 400 and r.json()["details"] == {"line": 3, "field": "id"}, r.text
    assert "repeats line 2" in r.json()["message"]


def test_an_imported_commit_is_history_recorded_by_the_importer(client: httpx.Client) -> None:
    scope = f"forged-{uuid.uuid4().hex[:8]}"
    local = client.post("/v1/memory/write", json={"scope": scope, "input_text": "x", "nodes": [{"type": "event"}]})
    assert local.status_code == 200
    forged = commit(scope, 7, actor="kb-admin of globex", commit_hash="f" * 64, parent_hash="e" * 64,
                    created_at="2001-01-01T00:00:00+00:00")  # fmt: skip
    made = node(scope, commit_id=forged["id"], title="imported", producer_agent_id="kb-admin of globex")
    r = import_lines(client, [HEADER, forged, made])
    assert r.status_code == 200 and r.json()["commits_restored"] == 1, r.text
    commits = sorted(exported(client, scope)["commit"], key=lambda c: c["seq"])
    kept = next(c for c in commits if c["id"] == forged["id"])
    assert kept["actor"] == "admin channel" and kept["kind"] == "imported", "the importer, not the file, is the actor"
    assert not kept["created_at"].startswith("2001"), "the time is the import's"
    assert kept["commit_hash"] != forged["commit_hash"] and kept["parent_hash"] == commits[0]["commit_hash"]
    original = kept["diff"]["imported"]
    assert original["actor"] == "kb-admin of globex" and original["commit_hash"] == "f" * 64
    assert original["created_at"].startswith("2001") and original["seq"] == 7
    links = [
        ChainLink(c["id"], c["parent_hash"], c["commit_hash"], c["diff"], c["erased_at"] is not None) for c in commits
    ]
    assert verify_chain(links) == [], "the chain still verifies, with the local head"
    assert [c["kind"] for c in commits] == ["write", "imported", "import"], "after it, the import of the node"
    # running it again changes nothing; the same id with other content is refused
    again = import_lines(client, [HEADER, forged, made])
    assert again.status_code == 200 and again.json()["commits_restored"] == again.json()["nodes_written"] == 0
    assert len(exported(client, scope)["commit"]) == 3
    changed = {**forged, "actor": "someone else"}
    r = import_lines(client, [HEADER, changed])
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": "id"}, r.text
    taken = {**commit(scope, 8), "id": local.json()["commit_id"]}
    r = import_lines(client, [HEADER, taken])
    assert r.status_code == 400 and "taken" in r.json()["message"], r.text
    # the original actor is named inside the diff: erasing that agent (and its node) erases it there too
    assert client.post("/v1/erasure", json={"agent_id": "kb-admin of globex"}).status_code == 200
    kept = next(c for c in exported(client, scope)["commit"] if c["id"] == forged["id"])
    assert kept["diff"] == {} and kept["erased_at"] is not None and "globex" not in json.dumps(kept)


def test_a_client_id_names_one_node(client: httpx.Client) -> None:
    scope = f"cid-{uuid.uuid4().hex[:8]}"
    r = client.post("/v1/memory/write", json={"scope": scope, "input_text": "x", "nodes": [
        {"type": "event", "client_id": "ada"}]})  # fmt: skip
    assert r.status_code == 200
    r = import_lines(client, [HEADER, node(scope, client_id="ada")])
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": "client_id"}, r.text
    r = import_lines(client, [HEADER, node(scope, client_id="bob"), node(scope, client_id="bob")])
    assert r.status_code == 400 and r.json()["details"] == {"line": 3, "field": "client_id"}, r.text
    twice = node(scope, client_id="carol")
    r = import_lines(client, [HEADER, twice, {**twice, "title": "later"}])
    assert r.status_code == 200, "the same node twice: the later record wins"
    titles = {n["title"] for n in exported(client, scope)["node"] if n["id"] == twice["id"]}
    assert titles == {"later"}


def test_other_records_are_checked_as_their_requests_are(client: httpx.Client) -> None:
    item = {"record": "knowledge_item", "tenant_id": "default", "id": "adr-imp", "type": "adr", "layer": "team",
            "title": "T", "constraints": [{"operator": "must_not_use", "target": "dependency", "pattern": "(a)\\1"}],
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"}  # fmt: skip
    r = import_lines(client, [HEADER, item])
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": "constraints[0].pattern"}, r.text
    buffer = {"record": "batcher_buffer", "tenant_id": "default", "app_id": "a", "user_id": "u", "next_seq": 1,
              "messages": [{"seq": 0, "role": "user", "content": "hi"}],
              "viewer": {"tenant_id": "globex", "role": "admin"}}  # fmt: skip
    r = import_lines(client, [HEADER, buffer])
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": "viewer.tenant_id"}, r.text
    r = import_lines(client, [HEADER, {**buffer, "viewer": None, "next_seq": 0}])
    assert r.status_code == 400 and r.json()["details"]["field"] == "messages[0].seq", r.text
    r = import_lines(client, [HEADER, node("s", tenant_id="globex")])
    assert r.status_code == 400 and r.json()["error"] == "tenant_mismatch", r.text
    r = client.post("/v1/admin/import", content=json.dumps(HEADER).encode() + b"\n\xff\xfe\n", headers=NDJSON)
    assert r.status_code == 400 and r.json()["details"] == {"line": 2, "field": "line"}, r.text
