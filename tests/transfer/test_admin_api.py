"""GET /v1/admin/export and POST /v1/admin/import: the same files over HTTP, for admins only."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.support.server import ServerFactory
from tests.support.settings import api_keys
from tests.transfer.helpers import TENANT, H, populate

ADMIN_KEY = "key-admin-acme"
READER_KEY = "key-reader-acme"
OTHER_ADMIN = "key-admin-globex"
#: the media type of an export file (an import of any other type is a 415)
JSONL = {"content-type": "application/x-ndjson"}
KEYS = {
    ADMIN_KEY: {"tenant_id": TENANT, "agent_id": "ops", "role": "admin"},
    READER_KEY: {"tenant_id": TENANT, "agent_id": "reader"},
    OTHER_ADMIN: {"tenant_id": "globex", "agent_id": "ops", "role": "admin"},
}


def nodes_of(text: str) -> list[dict[str, object]]:
    return sorted((d for d in map(json.loads, text.splitlines()) if d["record"] == "node"), key=lambda d: str(d["id"]))


def test_a_tenant_moves_between_servers_over_http(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    with live_server_factory(f"sqlite:///{tmp_path / 'a.db'}") as a:
        populate(a)
        with httpx.Client(base_url=a.url, timeout=30) as c:
            r = c.get("/v1/admin/export", params={"tenant_id": TENANT, "embeddings": True})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    dump = r.text
    assert all(json.loads(line).get("tenant_id") in (TENANT, None) for line in dump.splitlines())
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'b.db'}") as b,
        httpx.Client(base_url=b.url, timeout=30) as c,
    ):
        first = c.post("/v1/admin/import", params={"tenant_id": TENANT}, content=dump.encode(), headers=JSONL)
        assert first.status_code == 200, first.text
        assert first.json()["nodes_written"] == len(nodes_of(dump)) and first.json()["knowledge_written"] == 1
        again = c.post("/v1/admin/import", params={"tenant_id": TENANT}, content=dump.encode(), headers=JSONL).json()
        assert again["nodes_written"] == again["edges_written"] == again["commits_restored"] == 0
        copy = c.get("/v1/admin/export", params={"tenant_id": TENANT}).text
        found = c.post("/v1/memory/recall_text", headers=H, json={"scope": "proj", "query_text": "Ada parser"})
    strip = lambda ns: [{k: v for k, v in n.items() if k != "embedding"} for n in ns]  # noqa: E731
    assert strip(nodes_of(copy)) == strip(nodes_of(dump))
    assert "Ada" in {s["title"] for s in found.json()["seeds"]}


def test_a_bad_file_is_a_400_naming_the_line(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'a.db'}") as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        header = json.dumps({"record": "header", "format": "memlane-export", "version": 1})
        for body, code in (
            ("not json\n", "invalid_export_record"),
            ('{"record": "node"}\n', "invalid_export_file"),
            (header + '\n{"record": "node", "tenant_id": "default", "scope": "s"}\n', "invalid_export_record"),
            (header + '\n{"record": "bogus", "tenant_id": "default"}\n', "invalid_export_record"),
            ("", "invalid_export_file"),
        ):
            r = c.post("/v1/admin/import", content=body.encode(), headers=JSONL)
            assert r.status_code == 400, (body, r.text)
            assert r.json()["error"] == code, (body, r.text)


def test_with_auth_on_only_an_admin_of_the_tenant_may_export_or_import(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'a.db'}", **api_keys(KEYS)) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        r = c.post(
            "/v1/memory/write",
            headers={"X-API-Key": ADMIN_KEY},
            json={"scope": "s", "input_text": "x", "memory_lane": "shared",
                  "nodes": [{"type": "event", "title": "acme secret"}]},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        for headers in ({}, {"X-API-Key": READER_KEY}):
            r = c.get("/v1/admin/export", headers=headers)
            assert r.status_code in (401, 403) and r.json()["error"] in ("unauthorized", "admin_required"), r.text
        own = c.get("/v1/admin/export", headers={"X-API-Key": ADMIN_KEY})
        assert own.status_code == 200 and "acme secret" in own.text
        other = c.get("/v1/admin/export", headers={"X-API-Key": OTHER_ADMIN})
        assert other.status_code == 200 and "acme secret" not in other.text
        assert (
            c.get("/v1/admin/export", headers={"X-API-Key": OTHER_ADMIN}, params={"tenant_id": TENANT}).status_code
            == 403
        )
        r = c.post("/v1/admin/import", headers={"X-API-Key": OTHER_ADMIN, **JSONL}, content=own.text.encode())
        assert r.status_code == 400 and r.json()["error"] == "tenant_mismatch"
        r = c.post("/v1/admin/import", headers={"X-API-Key": READER_KEY, **JSONL}, content=own.text.encode())
        assert r.status_code == 403
