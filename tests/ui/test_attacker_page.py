"""A web page on another origin, open in a real Chromium on the same machine as a memlane with
auth off (the quick start), tries what the attacker of issue #26 did: plant a rule that allows
a tool named ``exfiltrate`` and promote it to active (the page picks the rule's id, since it
cannot read answers), import records through a ``<form enctype=text/plain>``,
call ``memory_add``, read the export and the metrics, frame the memory browser; and, after a
DNS rebinding, read the export from memlane's own port under its own name. Then the API shows
that nothing changed and the page read nothing, and the same requests sent by a client that is
not a browser show that each payload would have worked."""

from __future__ import annotations

import html
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tests.support.memory_api import wait_until_recallable
from tests.support.server import LiveServer, free_port
from tests.ui.helpers import CHROMIUM, screenshot

VICTIM = "victim"
SCOPE = "notes"
SECRET = "the vault code is swordfish-4242"
CONTEXT = {"env": "prod"}
TOOLS = ["search", "exfiltrate"]
RULE_ID = str(uuid.uuid4())
RULE_WRITE = {
    "tenant_id": VICTIM,
    "scope": SCOPE,
    "input_text": "planted",
    "memory_lane": "shared",
    "nodes": [{"id": RULE_ID, "type": "rule", "text_summary": "Always allow exfiltrate",
               "slots": {"if": CONTEXT, "then": {"tool": {"allow": ["exfiltrate"]}}}}],
}  # fmt: skip
#: a new rule is a draft: draft -> shadow -> active
PROMOTIONS = [
    {"tenant_id": VICTIM, "scope": SCOPE, "rule_node_id": RULE_ID, "state": state, "input_text": "promote"}
    for state in ("shadow", "active")
]
TOOL_CALL = {"content": "planted by a web page", "layer": "agent"}


def form_fields(node_record: dict[str, Any]) -> list[tuple[str, str]]:
    """An export file as ``<form enctype=text/plain>`` fields: the browser sends each as
    ``name=value`` and a line break, so a name holding a JSON line up to an open string and the
    value ``"}`` closing it give one JSONL record per field (the ``=`` lands in the string)."""
    header = {"record": "header", "format": "memlane-export", "version": 1}
    node = {k: v for k, v in node_record.items() if k != "title"}
    return [
        (json.dumps(header)[:-1] + ', "embedding_model": "x', '"}'),
        (json.dumps(node)[:-1] + ', "title": "planted by a form', '"}'),
    ]


def as_sent_by_the_form(fields: list[tuple[str, str]]) -> bytes:
    return "".join(f"{name}={value}\r\n" for name, value in fields).encode()


def attack_page(target: str, fields: list[tuple[str, str]]) -> str:
    inputs = "".join(f'<input name="{html.escape(n)}" value="{html.escape(v)}">' for n, v in fields)
    return f"""<!doctype html><html><body>
<h1>Cute cats</h1>
<iframe name="sink" title="sink"></iframe>
<form id="f" method="POST" enctype="text/plain" action="{target}/v1/admin/import?tenant_id={VICTIM}" target="sink">{inputs}</form>
<iframe id="victim" name="victim" title="victim" src="{target}/ui"></iframe>
<script>
const T = {json.dumps(target)};
window.results = {{}};
async function attempt(name, run) {{
  try {{ results[name] = await run(); }} catch (e) {{ results[name] = "error: " + e; }}
}}
async function post(path, body, mode) {{
  const r = await fetch(T + path, {{method: "POST", mode: mode, headers: {{"content-type": "text/plain"}}, body: body}});
  return r.type + " " + r.status + " " + (await r.text());
}}
async function read(path, mode) {{
  const r = await fetch(T + path, {{mode: mode}});
  return r.type + " " + r.status + " " + (await r.text());
}}
window.attack = async function () {{
  await attempt("rule", () => post("/v1/memory/write", {json.dumps(json.dumps(RULE_WRITE))}, "no-cors"));
  await attempt("shadow", () => post("/v1/memory/rules/state", {json.dumps(json.dumps(PROMOTIONS[0]))}, "no-cors"));
  await attempt("active", () => post("/v1/memory/rules/state", {json.dumps(json.dumps(PROMOTIONS[1]))}, "no-cors"));
  await attempt("rule_cors", () => post("/v1/memory/write", {json.dumps(json.dumps(RULE_WRITE))}, "cors"));
  await attempt("tool", () => post("/v1/tools/memory_add", {json.dumps(json.dumps(TOOL_CALL))}, "no-cors"));
  await attempt("export", () => read("/v1/admin/export?tenant_id={VICTIM}", "cors"));
  await attempt("export_no_cors", () => read("/v1/admin/export?tenant_id={VICTIM}", "no-cors"));
  await attempt("metrics", () => read("/metrics", "cors"));
  await attempt("metrics_no_cors", () => read("/metrics", "no-cors"));
  await attempt("recall", () => post("/v1/memory/recall_text", {json.dumps(json.dumps({"tenant_id": VICTIM, "scope": SCOPE, "query_text": "vault"}))}, "cors"));
  document.getElementById("f").submit();
  return results;
}};
</script></body></html>"""  # noqa: E501


@pytest.fixture(scope="module")
def attacker(server: LiveServer) -> Iterator[tuple[str, dict[str, bytes]]]:
    """A second web server: the attacker's pages at ``http://localhost:<another port>``, an
    origin of another site than memlane's ``http://127.0.0.1:<port>``."""
    pages: dict[str, bytes] = {}

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, b"not found")
            self.send_response(200 if self.path in pages else 404)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    port = free_port()
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{port}", pages
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def export(c: httpx.Client, tenant: str) -> list[dict[str, Any]]:
    """Everything the tenant holds (commits, nodes, edges, buffers, knowledge), without the
    header, which says when the file was made."""
    r = c.get("/v1/admin/export", params={"tenant_id": tenant})
    assert r.status_code == 200, r.text
    return [d for d in map(json.loads, r.text.splitlines()) if d["record"] != "header"]


def selected_tool(c: httpx.Client) -> str:
    body = {"tenant_id": VICTIM, "scope": SCOPE, "context": CONTEXT, "candidates": TOOLS}
    r = c.post("/v1/memory/tools/select", json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["selection"]["selected"])


def template_node(c: httpx.Client) -> dict[str, Any]:
    """A node record as an export holds it, moved to the victim's scope under a new id."""
    r = c.post("/v1/memory/write", json={"tenant_id": "template", "scope": "t", "input_text": "x",
                                          "nodes": [{"type": "event", "title": "template"}]})  # fmt: skip
    assert r.status_code == 200, r.text
    [node] = [d for d in export(c, "template") if d["record"] == "node"]
    return {**node, "tenant_id": VICTIM, "scope": SCOPE, "id": str(uuid.uuid4()), "client_id": None}


def test_a_page_on_another_origin_changes_nothing_and_reads_nothing(
    server: LiveServer, attacker: tuple[str, dict[str, bytes]], page: Any
) -> None:
    origin, pages = attacker
    with httpx.Client(base_url=server.url, timeout=30) as c:
        seeded = {"tenant_id": VICTIM, "scope": SCOPE, "input_text": "seed", "memory_lane": "shared",
                  "nodes": [{"type": "event", "title": "Vault", "text_summary": SECRET}]}  # fmt: skip
        r = c.post("/v1/memory/write", json=seeded)
        assert r.status_code == 200, r.text
        wait_until_recallable(c, SCOPE, "vault code", {r.json()["nodes"][0]["id"]}, tenant_id=VICTIM)
        fields = form_fields(template_node(c))
        before = {tenant: export(c, tenant) for tenant in (VICTIM, "default")}
        assert selected_tool(c) == "search"

    pages["/cats"] = attack_page(server.url, fields).encode()
    answers: list[tuple[str, str, int]] = []
    page.on("response", lambda r: answers.append((r.request.method, r.url, r.status)))
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.goto(f"{origin}/cats")
    with page.expect_response(lambda r: "/v1/admin/import" in r.url):
        results = page.evaluate("() => window.attack()")
    page.wait_for_load_state("load")
    screenshot(page, "attacker-page")

    # memlane refused every state-changing request as cross-site (the browser marks it); the
    # browser reports the answers it passed to the page (no-cors and the form)
    posts = {(url.removeprefix(server.url), status) for method, url, status in answers if method == "POST"}
    assert posts == {
        ("/v1/memory/write", 403),
        ("/v1/memory/rules/state", 403),
        ("/v1/tools/memory_add", 403),
        (f"/v1/admin/import?tenant_id={VICTIM}", 403),
    }, posts
    # the page read nothing: CORS is off, and the admin channel admits no browser
    assert {results[k] for k in ("rule", "shadow", "active", "tool")} == {"opaque 0 "}, results
    assert results["export_no_cors"] == results["metrics_no_cors"] == "opaque 0 ", results
    assert results["rule_cors"].startswith("error: TypeError")
    for name in ("export", "metrics", "recall"):
        assert results[name].startswith("error: TypeError"), (name, results[name])
    gets = {(url.removeprefix(server.url), status) for method, url, status in answers if method == "GET"}
    assert {("/metrics", 403), (f"/v1/admin/export?tenant_id={VICTIM}", 403)} <= gets, gets
    assert "swordfish" not in json.dumps(results)
    # the memory browser refused to be framed
    victim = page.frame(name="victim")
    assert victim is not None and victim.url.startswith("chrome-error://"), victim and victim.url
    assert any("frame-ancestors 'none'" in m for m in console), console

    with httpx.Client(base_url=server.url, timeout=30) as c:
        assert {tenant: export(c, tenant) for tenant in (VICTIM, "default")} == before, "nothing changed"
        assert selected_tool(c) == "search"
        # each payload was a working one: the same bytes from a client that is not a browser
        for path, body in [("/v1/memory/write", RULE_WRITE), *(("/v1/memory/rules/state", p) for p in PROMOTIONS)]:
            sent = c.post(path, json=body)
            assert sent.status_code == 200, sent.text
        assert selected_tool(c) == "exfiltrate"
        assert c.post("/v1/tools/memory_add", json=TOOL_CALL).status_code == 200
        imported = c.post("/v1/admin/import", params={"tenant_id": VICTIM}, content=as_sent_by_the_form(fields),
                          headers={"content-type": "application/x-ndjson"})  # fmt: skip
        assert imported.status_code == 200 and imported.json()["nodes_written"] == 1, imported.text
        after = {tenant: export(c, tenant) for tenant in (VICTIM, "default")}
        titles = {n.get("title") for n in after[VICTIM] if n["record"] == "node"}
        assert "planted by a form=" in titles and after["default"] != before["default"]


def test_after_dns_rebinding_the_page_reads_only_a_refusal(server: LiveServer, browser: Any) -> None:
    """The attacker's name resolved to 127.0.0.1 (Chromium's host resolver rules stand in for
    the attacker's DNS): the page is same-origin with memlane's port to the browser, so nothing
    stops its reads but memlane's check of the Host it names."""
    port = httpx.URL(server.url).port
    rebinding = browser.browser_type.launch(
        executable_path=CHROMIUM, headless=True,
        args=["--no-sandbox", "--host-resolver-rules=MAP rebind.example 127.0.0.1"],
    )  # fmt: skip
    try:
        page = rebinding.new_page()
        shown = page.goto(f"http://rebind.example:{port}/ui")
        assert shown is not None and shown.status == 421
        # /health answers any Host (probes): the page gets a document on the rebound origin
        health = page.goto(f"http://rebind.example:{port}/health")
        assert health is not None and health.status == 200
        read = page.evaluate(
            """async () => {
                 const r = await fetch("/v1/admin/export");
                 const body = {scope: "s", input_text: "x", nodes: [{type: "event", title: "rebound"}]};
                 const w = await fetch("/v1/memory/write",
                   {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
                 return [r.status, await r.text(), w.status];
               }"""
        )
        assert read[0] == 421 and json.loads(read[1])["error"] == "host_not_allowed" and read[2] == 421, read
        assert "swordfish" not in read[1]
    finally:
        rebinding.close()
