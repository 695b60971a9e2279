"""What a web page in a browser on the same machine can do to memlane with auth off: raw HTTP
requests against a real server, with the Host, Origin, Sec-Fetch-* and Content-Type a browser
(or a DNS-rebinding page) would send. The same attacks from a real Chromium are in
tests/ui/test_attacker_page.py."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from pydantic import ValidationError
from starlette.requests import Request

import memlane.api.ui
from memlane.api.tools.mcp_http import transport_security
from memlane.domain.browser_policy import BrowserPolicy
from tests.support.memory_api import new_scope, unit
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import make_settings

EVIL = "http://evil.example"
TEMPLATES = Path(memlane.api.ui.__file__).parent / "templates"
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """The quick start: auth off, no admin token, no allowed hosts or origins configured."""
    with live_server_factory() as s:
        yield s


@pytest.fixture(scope="module")
def configured(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        MEMLANE_ALLOWED_HOSTS="memlane.internal, proxy.example:8443",
        MEMLANE_CORS_ORIGINS="http://app.example:3000,https://dash.example",
    ) as s:
        yield s


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def port_of(server: LiveServer) -> int:
    port = httpx.URL(server.url).port
    assert port is not None
    return port


def write_body(scope: str, title: str = "a memory") -> dict[str, Any]:
    return {"scope": scope, "input_text": "x", "memory_lane": "shared", "nodes": [{"type": "event", "title": title}]}


def nodes_in(client: httpx.Client, scope: str) -> list[dict[str, Any]]:
    """Every node of the default tenant's scope, read from the export (the admin channel of a
    loopback client that is not a browser)."""
    r = client.get("/v1/admin/export", params={"scope": scope})
    assert r.status_code == 200, r.text
    return [d for d in map(json.loads, r.text.splitlines()) if d["record"] == "node"]


def refused(r: httpx.Response, envelope: str, code: str) -> str:
    """The refusal's message, after checking it is ``code`` in the surface's envelope."""
    body = r.json()
    if envelope == "graph":
        assert body["error"] == code, body
    elif envelope == "layers":
        assert body["success"] is False and body["error_type"] == code, body
    elif envelope == "tools":
        assert body["success"] is False and body["retryable"] is False, body
        assert body["errorCode"] == {403: "UNAUTHORIZED", 415: "INVALID_INPUT", 421: "INVALID_INPUT"}[r.status_code]
    else:
        assert set(body) == {"detail"}, body
        return str(body["detail"])
    return str(body["message"])


#: a state-changing request of each surface, and the surface's envelope
SURFACES: list[tuple[str, str, dict[str, Any], str]] = [
    ("POST", "/v1/memory/write", write_body("s"), "graph"),
    ("POST", "/v1/memory/rules/state", {"scope": "s", "rule_node_id": "x", "state": "active"}, "graph"),
    ("POST", "/api/v1/agent/memories", {"app_id": "s", "messages": [{"role": "user", "content": "hi"}]},
     "conversation"),
    ("POST", "/v1/layers/write", {"layer": "identity", "title": "t", "content": "c"}, "layers"),
    ("POST", "/v1/tools/memory_add", {"content": "exfiltrate everything", "layer": "agent"}, "tools"),
    ("POST", "/v1/knowledge/items", {"id": "x"}, "tools"),
    ("POST", "/mcp", MCP_LIST, "tools"),
    ("POST", "/v1/erasure", {"scope": "s"}, "graph"),
    ("POST", "/v1/admin/import", {"record": "header"}, "graph"),
]  # fmt: skip


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])  # fmt: skip
@pytest.mark.parametrize(("method", "path", "body", "envelope"), SURFACES, ids=[s[1] for s in SURFACES])
def test_a_body_of_a_type_a_page_may_send_without_preflight_is_refused_with_415(
    client: httpx.Client, method: str, path: str, body: dict[str, Any], envelope: str, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    r = client.request(method, path, content=json.dumps(body).encode(), headers={**headers, **MCP_ACCEPT})
    assert r.status_code == 415, r.text
    message = refused(r, envelope, "unsupported_media_type")
    assert "takes a body of type application/" in message


def test_nothing_is_written_by_a_text_plain_body_that_json_would_have_written(client: httpx.Client) -> None:
    scope = new_scope()
    body = json.dumps(write_body(scope, "planted by a web page")).encode()
    assert client.post("/v1/memory/write", content=body, headers={"content-type": "text/plain"}).status_code == 415
    assert nodes_in(client, scope) == []
    sent_as_json = client.post("/v1/memory/write", content=body, headers={"content-type": "application/json"})
    assert sent_as_json.status_code == 200, sent_as_json.text
    assert [n["title"] for n in nodes_in(client, scope)] == ["planted by a web page"]


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"])
def test_json_is_accepted_with_or_without_a_charset(client: httpx.Client, content_type: str) -> None:
    r = client.post(
        "/v1/memory/write", content=json.dumps(write_body(new_scope())), headers={"content-type": content_type}
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("content_type", ["application/x-ndjson", "application/jsonl"])
def test_an_import_takes_jsonl_media_types_and_nothing_else(client: httpx.Client, content_type: str) -> None:
    scope = new_scope()
    assert client.post("/v1/memory/write", json=write_body(scope, "moved")).status_code == 200
    dump = client.get("/v1/admin/export", params={"scope": scope}).content
    ok = client.post("/v1/admin/import", content=dump, headers={"content-type": content_type})
    assert ok.status_code == 200, ok.text
    for wrong in ("application/json", "text/plain"):
        r = client.post("/v1/admin/import", content=dump, headers={"content-type": wrong})
        assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type", r.text
        assert "application/x-ndjson or application/jsonl" in r.json()["message"]


def test_the_openapi_document_states_the_media_types_each_body_must_have(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    bodies = {
        (method.upper(), path): sorted(op["requestBody"]["content"])
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if "requestBody" in op
    }
    assert bodies[("POST", "/v1/admin/import")] == ["application/jsonl", "application/x-ndjson"]
    assert bodies[("POST", "/v1/tools/memory_add")] == ["application/json"]  # one operation per tool
    assert {tuple(v) for k, v in bodies.items() if k[1] != "/v1/admin/import"} == {("application/json",)}
    for (method, path), _ in bodies.items():
        assert "415" in doc["paths"][path][method.lower()]["responses"], (method, path)


# --- Host: DNS rebinding -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/admin/export", None),
        ("GET", "/metrics", None),
        ("GET", "/ui/part/scopes", None),
        ("GET", "/ui", None),
        ("GET", "/openapi.json", None),
        ("POST", "/mcp", MCP_LIST),
        ("POST", "/v1/memory/recall_text", {"scope": "s", "query_text": "anything"}),
    ],
)
@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost:1", "127.0.0.1", "10.0.0.7:{port}"])
def test_a_request_for_a_host_memlane_does_not_answer_to_is_refused(
    server: LiveServer, method: str, path: str, body: dict[str, Any] | None, host: str
) -> None:
    """What a DNS-rebinding page sends: its own name (and memlane's port) in Host."""
    with httpx.Client(base_url=server.url, timeout=30) as c:
        headers = {"host": host.format(port=port_of(server)), **MCP_ACCEPT}
        r = c.request(method, path, json=body, headers=headers)
    assert r.status_code == 421, r.text
    assert "MEMLANE_ALLOWED_HOSTS" in refused(r, "tools" if path == "/mcp" else "graph", "host_not_allowed")


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "[::1]", "LOCALHOST"])
def test_the_loopback_names_on_the_servers_port_are_answered(server: LiveServer, name: str) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/mcp", json=MCP_LIST, headers={"host": f"{name}:{port_of(server)}", **MCP_ACCEPT})
    assert r.status_code == 200, r.text
    assert "memory_add" in {t["name"] for t in r.json()["result"]["tools"]}


def test_health_answers_whatever_the_host_for_probes(client: httpx.Client) -> None:
    r = client.get("/health", headers={"host": "10.42.0.17:8000"})
    assert r.status_code == 200 and r.json()["status"] == "healthy"


def test_configured_hosts_are_answered_by_name_or_by_name_and_port(configured: LiveServer) -> None:
    with httpx.Client(base_url=configured.url, timeout=30) as c:
        assert c.get("/", headers={"host": "memlane.internal"}).status_code == 200
        assert c.get("/", headers={"host": "memlane.internal:9999"}).status_code == 200
        assert c.get("/", headers={"host": "proxy.example:8443"}).status_code == 200
        assert c.get("/", headers={"host": "proxy.example:8444"}).status_code == 421
        assert c.get("/", headers={"host": "other.internal"}).status_code == 421


def test_allowed_hosts_star_answers_every_host(tmp_path: Any, live_server_factory: ServerFactory) -> None:
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'm.db'}", MEMLANE_ALLOWED_HOSTS="*") as s,
        httpx.Client(base_url=s.url, timeout=30) as c,
    ):
        assert c.get("/", headers={"host": "anything.example"}).status_code == 200
        # the redirect stays on the host the browser asked, whatever Host said
        r = c.get("/ui/", headers={"host": "anything.example"})
        assert r.status_code == 307 and r.headers["location"] == "/ui"


@pytest.mark.parametrize("value", ["http://memlane.internal", "memlane.internal/ui", "[::zz]", "host:99999", "a b"])
def test_a_bad_allowed_host_entry_stops_start_up_naming_it(tmp_path: Any, value: str) -> None:
    with pytest.raises(ValidationError, match="MEMLANE_ALLOWED_HOSTS"):
        make_settings(f"sqlite:///{tmp_path / 'm.db'}", MEMLANE_ALLOWED_HOSTS=value)


@pytest.mark.parametrize("value", ["app.example", "https://app.example/path", "ftp://app.example", "null"])
def test_a_bad_cors_origin_stops_start_up_naming_it(tmp_path: Any, value: str) -> None:
    with pytest.raises(ValidationError, match="MEMLANE_CORS_ORIGINS"):
        make_settings(f"sqlite:///{tmp_path / 'm.db'}", MEMLANE_CORS_ORIGINS=value)


# --- redirects ------------------------------------------------------------------------------


def test_redirects_are_relative_and_never_name_the_requests_host(server: LiveServer, client: httpx.Client) -> None:
    r = client.get("/ui/")
    assert r.status_code == 307 and r.headers["location"] == "/ui"
    r = client.get("/ui/search/?q=otter")
    assert r.status_code == 307 and r.headers["location"] == "/ui/search?q=otter"
    refused = client.get("/ui/", headers={"host": "evil.example"})
    assert refused.status_code == 421 and "location" not in refused.headers
    # a path that would read as another host (//evil.example) is never redirected to
    for path in (b"//evil.example/", b"/\\evil.example/", b"//ui/"):
        r = client.get(httpx.URL(server.url).copy_with(raw_path=path))
        assert r.status_code == 404, (path, r.headers.get("location"))


# --- Origin: cross-site requests ------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body", "envelope"), SURFACES, ids=[s[1] for s in SURFACES])
@pytest.mark.parametrize(
    "browser",
    [
        {"origin": EVIL},
        {"origin": "null"},
        {"origin": "http://localhost:3000", "sec-fetch-site": "same-site"},
        {"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"},
        {"sec-fetch-site": "same-site", "sec-fetch-mode": "cors"},
    ],
    ids=["foreign-origin", "null-origin", "other-local-port", "cross-site-no-origin", "same-site-no-origin"],
)
def test_a_state_changing_request_from_another_origin_is_refused_on_every_surface(
    client: httpx.Client, method: str, path: str, body: dict[str, Any], envelope: str, browser: dict[str, str]
) -> None:
    r = client.request(method, path, json=body, headers={**browser, **MCP_ACCEPT})
    assert r.status_code == 403, r.text
    assert "only memlane's own pages" in refused(r, envelope, "cross_origin_forbidden")
    assert "access-control-allow-origin" not in r.headers


def test_a_cross_origin_delete_is_refused_and_the_memory_stays(client: httpx.Client) -> None:
    scope = new_scope()
    assert client.post("/v1/memory/write", json=write_body(scope, "keep me")).status_code == 200
    [node] = nodes_in(client, scope)
    path = f"/api/v1/memories/{node['id']}"
    r = client.delete(path, params={"app_id": scope}, headers={"origin": EVIL})
    assert r.status_code == 403 and "MEMLANE_CORS_ORIGINS" in r.json()["detail"]
    assert [n["title"] for n in nodes_in(client, scope)] == ["keep me"]


def test_same_origin_requests_and_clients_that_are_not_browsers_may_write(
    server: LiveServer, client: httpx.Client
) -> None:
    port = port_of(server)
    for headers in (
        {"origin": server.url, "sec-fetch-site": "same-origin"},
        {"origin": f"http://localhost:{port}", "host": f"localhost:{port}"},
        {"sec-fetch-site": "same-origin"},
        {"sec-fetch-site": "none"},
        {},
    ):
        r = client.post("/v1/memory/write", json=write_body(new_scope()), headers=headers)
        assert r.status_code == 200, (headers, r.text)


def test_reads_from_another_origin_carry_no_cors_permission(client: httpx.Client) -> None:
    r = client.post("/v1/memory/recall_text", json={"scope": "s", "query_text": "x"}, headers={"origin": EVIL})
    assert r.status_code == 403
    r = client.get("/v1/tools", headers={"origin": EVIL})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    preflight = client.options("/v1/memory/write", headers={"origin": EVIL, "access-control-request-method": "POST"})
    assert preflight.status_code >= 400 and "access-control-allow-origin" not in preflight.headers


# --- CORS for the configured origins --------------------------------------------------------


def test_a_configured_origin_gets_cors_and_may_write(configured: LiveServer) -> None:
    app = "http://app.example:3000"
    with httpx.Client(base_url=configured.url, timeout=30) as c:
        preflight = c.options(
            "/v1/memory/write",
            headers={
                "origin": app,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type, x-api-key, x-tenant-id",
            },
        )
        assert preflight.status_code == 200, preflight.text
        assert preflight.headers["access-control-allow-origin"] == app
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert "x-tenant-id" in preflight.headers["access-control-allow-headers"]
        r = c.post("/v1/memory/write", json=write_body(new_scope()), headers={"origin": app})
        assert r.status_code == 200, r.text
        assert r.headers["access-control-allow-origin"] == app
        assert "retry-after" in r.headers["access-control-expose-headers"]
        # an https origin on its default port, written by the browser without the port
        ok = c.post("/v1/memory/write", json=write_body(new_scope()), headers={"origin": "https://dash.example"})
        assert ok.status_code == 200, ok.text
        other = c.options("/v1/memory/write", headers={"origin": EVIL, "access-control-request-method": "POST"})
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
        assert c.post("/v1/memory/write", json=write_body("s"), headers={"origin": EVIL}).status_code == 403


def test_cors_origins_star_lets_every_page_read_and_write(tmp_path: Any, live_server_factory: ServerFactory) -> None:
    """The conversation spec's "allow all": unsafe with auth off, but what the operator asked."""
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'm.db'}", MEMLANE_CORS_ORIGINS="*") as s,
        httpx.Client(base_url=s.url, timeout=30) as c,
    ):
        r = c.post("/v1/memory/write", json=write_body(new_scope()), headers={"origin": EVIL})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
        # still JSON only, and still only the hosts memlane answers to
        plain = c.post("/v1/memory/write", content=b"{}", headers={"origin": EVIL, "content-type": "text/plain"})
        assert plain.status_code == 415
        assert c.get("/", headers={"host": "evil.example"}).status_code == 421


# --- the loopback admin channel -------------------------------------------------------------


BROWSER_MARKS = [
    {"origin": "http://127.0.0.1"},
    {"sec-fetch-site": "same-origin", "sec-fetch-mode": "cors"},
    {"sec-fetch-mode": "navigate"},
    {"sec-fetch-site": "none"},
    {"sec-fetch-dest": "document"},
]


@pytest.mark.parametrize("marks", BROWSER_MARKS)
def test_the_loopback_admin_channel_admits_no_browser(server: LiveServer, marks: dict[str, str]) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        assert c.get("/metrics").status_code == 200, "a loopback client that is not a browser is admitted"
        assert c.get("/v1/admin/export").status_code == 200
        if "origin" in marks:
            marks = {**marks, "origin": server.url}
        metrics = c.get("/metrics", headers=marks)
        assert metrics.status_code == 403 and metrics.json()["error"] == "metrics_forbidden"
        export = c.get("/v1/admin/export", headers=marks)
        assert export.status_code == 403 and export.json()["error"] == "admin_required"
        scope = new_scope()
        assert c.post("/v1/memory/write", json={**write_body(scope), "nodes": [{"type": "event", "title": "v",
                      "embedding": unit(3)}]}).status_code == 200  # fmt: skip
        debug = {"scope": scope, "query_embedding": unit(3), "return_debug": True, "include_embeddings": True,
                 "limit": 10}  # fmt: skip
        assert c.post("/v1/memory/recall", json=debug).status_code == 200
        refused = c.post("/v1/memory/recall", json=debug, headers=marks)
        assert refused.status_code == 403 and refused.json()["error"] == "debug_embeddings_forbidden"


def test_a_browser_with_the_admin_token_is_on_the_admin_channel(
    tmp_path: Any, live_server_factory: ServerFactory
) -> None:
    with (
        live_server_factory(f"sqlite:///{tmp_path / 'm.db'}", ADMIN_TOKEN="t0ken") as s,
        httpx.Client(base_url=s.url, timeout=30) as c,
    ):
        marks = {"origin": s.url, "sec-fetch-site": "same-origin"}
        assert c.get("/metrics", headers={**marks, "x-admin-token": "t0ken"}).status_code == 200
        assert c.get("/metrics", headers=marks).status_code == 403


# --- response headers -----------------------------------------------------------------------


def test_the_ui_forbids_framing_and_runs_only_its_own_scripts(client: httpx.Client) -> None:
    r = client.get("/ui")
    assert r.status_code == 200
    csp = {d.split()[0]: d.split()[1:] for d in r.headers["content-security-policy"].split("; ")}
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"] and csp["default-src"] == ["'none'"]
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"


def test_no_template_holds_inline_script_style_or_event_handlers() -> None:
    """What the CSP would block: the UI's behaviour and looks are in its static files only."""
    inline = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=|javascript:|hx-on", re.I)
    found = {p.name: inline.findall(p.read_text()) for p in TEMPLATES.glob("*.html")}
    assert len(found) > 10 and {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/tools"), ("GET", "/v1/admin/export"), ("GET", "/nope")])
def test_api_answers_are_not_sniffed_or_framed(client: httpx.Client, method: str, path: str) -> None:
    r = client.request(method, path)
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-frame-options"] == "DENY"
    assert "content-security-policy" not in r.headers


# --- the MCP SDK's own transport security ---------------------------------------------------


def _sdk_verdict(policy: BrowserPolicy, headers: dict[str, str]) -> int | None:
    """What the MCP SDK's TransportSecurityMiddleware, given memlane's lists, answers."""
    raw = [(k.encode(), v.encode()) for k, v in {"content-type": "application/json", **headers}.items()]
    request = Request({"type": "http", "method": "POST", "path": "/mcp", "headers": raw})
    refusal = asyncio.run(TransportSecurityMiddleware(transport_security(policy)).validate_request(request, True))
    return None if refusal is None else refusal.status_code


def test_the_mcp_sdks_dns_rebinding_protection_gets_the_same_hosts_and_origins() -> None:
    policy = BrowserPolicy.parse("memlane.internal, proxy.example:8443", "http://app.example:3000")
    assert transport_security(policy).enable_dns_rebinding_protection
    assert _sdk_verdict(policy, {"host": "localhost:8000"}) is None
    assert _sdk_verdict(policy, {"host": "memlane.internal:80"}) is None
    assert _sdk_verdict(policy, {"host": "proxy.example:8443", "origin": "https://proxy.example:8443"}) is None
    assert _sdk_verdict(policy, {"host": "localhost:8000", "origin": "http://app.example:3000"}) is None
    assert _sdk_verdict(policy, {"host": "evil.example:8000"}) == 421
    assert _sdk_verdict(policy, {"host": "proxy.example:9"}) == 421
    assert _sdk_verdict(policy, {"host": "localhost:8000", "origin": EVIL}) == 403
    # a wildcard the SDK cannot express: its check is off, memlane's boundary still applies
    assert not transport_security(BrowserPolicy.parse("*", "")).enable_dns_rebinding_protection
    assert not transport_security(BrowserPolicy.parse("", "*")).enable_dns_rebinding_protection
