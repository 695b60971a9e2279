"""Text no backend can store is refused the same way on both backends, on every operation.

PostgreSQL stores no U+0000 in ``text`` or ``jsonb`` (SQLite does), and no backend encodes a
lone surrogate as UTF-8. Before, a NUL answered 500 on twelve endpoints on PostgreSQL and was
stored on SQLite. Now every string of every request is held to one rule (domain/inputs.py):
these tests walk ``/openapi.json`` and the tools' schemas, put a NUL in each string field,
parameter and free-form key they declare, and expect a 400 that names it, on both backends.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession
from tests.support.server import LiveServer

NUL = "a\x00b"
Path = tuple[str | int | None, ...]


def resolve(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = doc["components"]["schemas"][name]
    return schema


def string_paths(schema: dict[str, Any], doc: dict[str, Any], at: Path = (), depth: int = 0) -> Iterator[Path]:
    """Every place a string may go in a value of ``schema``: string properties, array items,
    and in free-form objects a member (``k``) and a key (``None`` marks "this key")."""
    if depth > 6:
        return
    schema = resolve(schema, doc)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        for option in options:
            yield from string_paths(option, doc, at, depth + 1)
        return
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "string" in kinds or (not kind and not schema.get("properties")):
        yield at
    if "object" in kinds or schema.get("properties"):
        for name, sub in (schema.get("properties") or {}).items():
            yield from string_paths(sub, doc, (*at, name), depth + 1)
        extra = schema.get("additionalProperties")
        if extra is True or isinstance(extra, dict) or "properties" not in schema:
            yield (*at, "k")
            yield (*at, None)
    if "array" in kinds and isinstance(schema.get("items"), dict):
        yield from string_paths(schema["items"], doc, (*at, 0), depth + 1)


def body_with(path: Path) -> Any:
    """A JSON value holding ``NUL`` at ``path`` (a ``None`` step: as a key there)."""
    if not path:
        return NUL
    head, rest = path[0], path[1:]
    if head is None:
        return {NUL: 1}
    if isinstance(head, int):
        return [body_with(rest)]
    return {head: body_with(rest)}


def field_of(path: Path) -> str:
    """How the answer names the field: ``nodes[0].title``; a key: its object, then ``a\\u0000b``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + ("a\\u0000b" if step is None else step)
    return out


def message_of(r: httpx.Response) -> str:
    body = r.json()
    return str(body.get("message") or body.get("detail") or body)


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for template, item in doc["paths"].items():
        for method, op in item.items():
            yield method.upper(), template, op


def url_for(template: str, op: dict[str, Any], nul_param: str | None) -> str:
    """The path with every path parameter filled (``x``, or NUL for ``nul_param``)."""
    url = template
    for p in op.get("parameters", []):
        if p["in"] == "path":
            url = url.replace("{" + p["name"] + "}", quote(NUL if p["name"] == nul_param else "x", safe=""))
    return url


def test_nul_in_any_parameter_of_any_operation_is_a_400_naming_it(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    tried = 0
    for method, template, op in operations(doc):
        for p in op.get("parameters", []):
            if p["in"] not in ("query", "path"):
                continue
            query = {p["name"]: NUL} if p["in"] == "query" else {}
            url = url_for(template, op, p["name"] if p["in"] == "path" else None)
            r = client.request(method, url, params=query, headers={"content-type": "application/json"})
            assert r.status_code == 400, (method, template, p["name"], r.text)
            assert p["name"] in message_of(r) and "U+0000" in message_of(r), (method, template, r.text)
            tried += 1
    assert tried >= 20, "the walk reached the operations' parameters"


def test_nul_in_any_string_of_any_json_body_is_a_400_naming_it(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    tried = 0
    operations_with_bodies = set()
    for method, template, op in operations(doc):
        content = op.get("requestBody", {}).get("content", {})
        if "application/json" not in content:
            continue
        operations_with_bodies.add((method, template))
        url = url_for(template, op, None)
        for path in dict.fromkeys(string_paths(content["application/json"]["schema"], doc)):
            if not path:
                continue  # a body that is one string is not an object any operation takes
            r = client.request(method, url, json=body_with(path))
            assert r.status_code == 400, (method, template, path, r.text)
            said = message_of(r)
            assert "U+0000" in said and field_of(path) in said, (method, template, path, said)
            tried += 1
    assert len(operations_with_bodies) >= 23 and tried >= 200, (len(operations_with_bodies), tried)


def test_nul_in_any_argument_of_any_tool_is_refused_naming_it(client: httpx.Client) -> None:
    tools = client.get("/v1/tools").json()["tools"]
    tried = 0
    for tool in tools:
        for path in dict.fromkeys(string_paths(tool["inputSchema"], {"components": {"schemas": {}}})):
            if not path:
                continue
            r = client.post(f"/v1/tools/{tool['name']}", json=body_with(path))
            assert r.status_code == 400, (tool["name"], path, r.text)
            assert r.json()["errorCode"] == "INVALID_INPUT", r.text
            assert "U+0000" in r.json()["message"] and field_of(path) in r.json()["message"], r.text
            tried += 1
    assert tried >= 15


def test_the_memory_browser_refuses_a_nul_in_its_parameters(client: httpx.Client) -> None:
    for url, params in (("/ui/part/search", {"scope": NUL, "q": "x"}), (f"/ui/part/memory/{quote(NUL)}", {})):
        r = client.get(url, params=params)
        assert r.status_code == 400 and "U+0000" in r.text, (url, r.text)


def test_a_lone_surrogate_is_not_json_and_a_nul_is_refused_before_it_is_stored(client: httpx.Client) -> None:
    raw = b'{"input_text": "x", "scope": "s", "nodes": [{"type": "event", "title": "\\ud800"}]}'
    r = client.post("/v1/memory/write", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_json", r.text
    # an escaped backslash before u0000 is six characters of text, not a NUL: stored and read back
    text = "path\\u0000name"
    r = client.post("/v1/memory/write", json={"input_text": "x", "scope": "nul-text", "nodes": [
        {"type": "event", "title": text, "slots": {"k": text}}]})  # fmt: skip
    assert r.status_code == 200, r.text
    node_id = r.json()["nodes"][0]["id"]
    r = client.post(
        "/v1/memory/write",
        json={"input_text": "x", "scope": "nul-text", "nodes": [{"id": node_id, "type": "event", "title": NUL}]},
    )
    assert r.status_code == 400 and r.json()["details"]["errors"][0]["field"] == "nodes[0].title", r.text
    r = client.post("/v1/memory/recall_text", json={"scope": "nul-text", "query_text": "path", "include_slots": True})
    seeds = r.json()["seeds"]
    assert [s["title"] for s in seeds if s["id"] == node_id] in ([text], []), "the refused write changed nothing"


def raw_request(server: LiveServer, head: bytes) -> bytes:
    """One HTTP/1.1 request as bytes (httpx refuses to send what these tests send)."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as s:
        s.sendall(head)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_identity_headers_are_names_on_both_backends(live_server: LiveServer, client: httpx.Client) -> None:
    # a NUL never reaches memlane: the HTTP server refuses the request line
    answer = raw_request(
        live_server, b"GET /v1/tools HTTP/1.1\r\nHost: x\r\nX-Tenant-Id: a\x00b\r\nConnection: close\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    # a tab passes HTTP, and is refused as a control character, naming the header
    r = client.post("/v1/tools/sync_status", json={}, headers={"X-Tenant-Id": "acme\tcorp"})
    assert r.status_code == 400 and "X-Tenant-Id" in r.json()["message"], r.text
    r = client.post("/v1/tools/sync_status", json={}, headers={"X-Agent-Id": "a" * 257})
    assert r.status_code == 400 and "X-Agent-Id" in r.json()["message"], r.text
    # 128 characters is the tenant column's size: 129 was a 500 on PostgreSQL
    long_tenant = {"X-Tenant-Id": "t" * 129}
    r = client.post("/v1/memory/write", headers=long_tenant, json={"input_text": "x", "nodes": [{"type": "event"}]})
    assert r.status_code == 400 and r.json()["details"]["field"] == "X-Tenant-Id", r.text
    r = client.post("/v1/memory/write", headers={"X-Tenant-Id": "t" * 128}, json={"input_text": "x", "nodes": [
        {"type": "event", "title": "the longest tenant"}]})  # fmt: skip
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tenant_id", "t" * 129),
        ("scope", "s" * 201),
        ("model_version", "v" * 129),
        ("actor", "a\nb"),
        ("producer_agent_id", "agent\x7f"),
    ],
)
def test_names_beyond_their_columns_or_with_control_characters_are_refused(
    client: httpx.Client, field: str, value: str
) -> None:
    r = client.post("/v1/memory/write", json={"input_text": "x", field: value, "nodes": [{"type": "event"}]})
    assert r.status_code == 400 and r.json()["details"]["errors"][0]["field"] == field, r.text


@pytest.mark.parametrize("client_id", ["a/b", "victim?app_id=other#", "a b", "é", "x" * 257])
def test_client_ids_have_one_alphabet(client: httpx.Client, client_id: str) -> None:
    r = client.post("/v1/memory/write", json={"input_text": "x", "nodes": [{"type": "event", "client_id": client_id}]})
    assert r.status_code == 400 and r.json()["details"]["errors"][0]["field"] == "nodes[0].client_id", r.text


def test_ids_in_paths_have_one_alphabet(client: httpx.Client) -> None:
    for bad in ("a b", "x#y", "é"):
        r = client.get(f"/api/v1/memories/{quote(bad)}", params={"app_id": "a"})
        assert r.status_code == 400 and "memory_id" in r.json()["detail"], r.text
    assert client.get("/api/v1/memories/memory-123", params={"app_id": "a"}).status_code == 404
    r = client.post("/v1/tools/memory_delete", json={"memoryId": "mem_x?app_id=y#"})
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT", r.text


def test_a_scope_with_spaces_and_unicode_is_a_name(client: httpx.Client) -> None:
    body = {"input_text": "x", "scope": "Équipe produit / 2024", "nodes": [{"type": "event", "title": "kickoff"}]}
    assert client.post("/v1/memory/write", json=body).status_code == 200
    r = client.post("/api/v1/memory-batcher/messages", json={"app_id": "café app", "user_id": "ana@example.com",
                                                             "messages": []})  # fmt: skip
    assert r.status_code == 200, r.text


async def test_a_nul_in_a_tool_call_over_mcp_is_a_tool_error_naming_the_argument(live_server: LiveServer) -> None:
    async with (
        httpx2.AsyncClient(timeout=60) as http,
        streamable_http_client(f"{live_server.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("memory_add", {"content": "keep", "metadata": {"note": NUL}})
    payload = result.structured_content
    assert result.is_error and payload is not None, result
    assert payload["errorCode"] == "INVALID_INPUT" and payload["details"]["field"] == "metadata.note", payload
