"""The memory browser at /ui in a real headless Chromium: what a person sees after the
page's scripts ran, read from the DOM, with screenshots kept as artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from memlane.api.ui.views import SCOPES_PAGE
from tests.conversation.helpers import ingest, msg, new_app
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer
from tests.ui.helpers import ADMIN, ALICE, BOB, confirm, loaded, result_of, screenshot, use, write


def test_search_shows_a_freshly_written_memory_and_why_it_ranked(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    ids = write(
        server,
        scope,
        [
            {"client_id": "otter", "type": "event", "title": "Otter sighting",
             "text_summary": "An otter was seen by the river bridge at dawn"},
            {"client_id": "bridge", "type": "entity", "title": "River bridge", "text_summary": "The old stone bridge"},
        ],
        [{"type": "related_to", "src": {"client_id": "otter"}, "dst": {"client_id": "bridge"}}],
    )  # fmt: skip
    # this server's hashing vectors are not on the calibrated scale: every result, cut-off 0
    page.goto(f"{server.url}/ui/search?scope={scope}&q=otter+by+the+river&min_relevance=0")
    loaded(page, "#results")
    hits = page.locator("#hits li")
    assert hits.count() >= 1
    first = hits.nth(0)
    assert first.get_attribute("data-node-id") == ids[0]
    assert "Otter sighting" in first.locator("h3").inner_text()
    signals = first.locator("table.signals")
    headers = signals.locator("th").all_inner_texts()
    assert headers[:3] == ["relevance", "similarity", "keyword"] and "graph +" in headers and headers[-1] == "score"
    assert float(signals.locator("td").nth(1).inner_text()) > 0, "a dense match"
    assert signals.locator("td.keyword").inner_text() == "100 % of best (otter, river)", "a keyword match, readable"
    screenshot(page, "search")


def test_a_memory_page_draws_its_edges_and_history(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    ids = write(
        server,
        scope,
        [
            {"client_id": "a", "type": "event", "title": "Kiln firing", "text_summary": "The kiln was fired on Monday"},
            {"client_id": "b", "type": "entity", "title": "Kiln", "text_summary": "A wood-fired kiln"},
            {"client_id": "c", "type": "entity", "title": "Potter", "text_summary": "Mara the potter"},
        ],
        [
            {"type": "related_to", "src": {"client_id": "a"}, "dst": {"client_id": "b"}},
            {"type": "related_to", "src": {"client_id": "c"}, "dst": {"client_id": "a"}},
        ],
    )
    page.goto(f"{server.url}/ui/memory/{ids[0]}?scope={scope}")
    loaded(page, "#memory")
    assert page.locator("#memory-title").inner_text() == "Kiln firing"
    assert page.locator("#tier").inner_text() == "hot"
    assert page.locator("#validity").inner_text() == "valid; no expiry"
    assert page.locator("svg.graph circle").count() == 3
    assert page.locator("svg.graph line").count() == 2
    assert sorted(page.locator("svg.graph text").all_text_contents()) == ["Kiln", "Kiln firing", "Potter"]
    history = page.locator("text=Commit history").locator("xpath=following-sibling::table[1]")
    assert "write" in history.inner_text()
    page.keyboard.press("Tab")  # keyboard reaches the page's controls
    assert page.evaluate("document.activeElement && document.activeElement.tagName") in {"A", "INPUT", "BUTTON"}
    screenshot(page, "memory")


def test_a_rule_changes_state_from_its_page(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    slots = {"if": {"env": "prod"}, "then": {"tool": {"deny": ["shell"]}}}
    rule_node = {"type": "rule", "title": "Ask before deleting", "text_summary": "confirm first", "slots": slots}
    [rule] = write(server, scope, [rule_node])
    page.goto(f"{server.url}/ui/memory/{rule}?scope={scope}")
    loaded(page, "#memory")
    assert page.locator("#rule-state").inner_text() == "draft"
    page.select_option("#rule-state-choice", "shadow")
    page.get_by_role("button", name="Change state").click()
    assert result_of(page) == "done"
    page.wait_for_function(
        "() => document.querySelector('#rule-state') && document.querySelector('#rule-state').textContent === 'shadow'",
        timeout=15000,
    )
    screenshot(page, "rule")


def test_home_lists_scopes_with_counts_and_keeps_the_queue_from_a_browser_without_admin_rights(
    server: LiveServer, page: Any
) -> None:
    """With auth off a loopback client is on the admin channel, but a browser is not: a web
    page on the same machine sends from loopback too (docs/security.md)."""
    scope = new_scope()
    write(server, scope, [{"type": "event", "title": "Count me", "text_summary": "one memory"}])
    page.goto(f"{server.url}/ui")
    loaded(page, "#scopes")
    loaded(page, "#queue")
    row = page.locator("#scopes tr", has_text=scope)
    assert row.locator("td").nth(1).inner_text() == "1"
    assert "shown here to a credential with the admin role" in page.locator("#queue").inner_text()
    assert page.locator("#backlog-pending").count() == 0
    screenshot(page, "home")


def test_an_admin_sees_the_job_queue_and_the_backlog_on_the_home_page(secured: LiveServer, page: Any) -> None:
    write(secured, new_scope(), [{"type": "event", "title": "Queue me", "text_summary": "one memory"}],
          headers={"X-API-Key": ALICE})  # fmt: skip
    page.goto(f"{secured.url}/ui")
    use(page, ADMIN)
    page.wait_for_function("() => document.querySelector('#queue').textContent.includes('embed_nodes')", timeout=15000)
    assert page.locator("#backlog-pending").inner_text().isdigit()
    screenshot(page, "home-admin")


def test_with_auth_on_the_browser_shows_only_what_the_key_may_read(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    write(secured, scope, [{"type": "event", "title": "Alice private plan", "text_summary": "private to alice"}],
          headers={"X-API-Key": ALICE}, lane="private")  # fmt: skip
    write(secured, scope, [{"type": "event", "title": "Shared plan", "text_summary": "shared with the team"}],
          headers={"X-API-Key": ALICE})  # fmt: skip
    url = f"{secured.url}/ui/search?scope={scope}&q=plan&min_relevance=0"
    page.goto(url)
    loaded(page, "#results")
    assert "401" in page.locator("#results").inner_text(), "no credential, no memory"
    page.fill("#credential", BOB)
    page.click("#session-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#results').textContent.includes('Shared plan')", timeout=15000
    )
    assert "Alice private plan" not in page.locator("#results").inner_text()
    page.reload()  # kept for the session
    loaded(page, "#results")
    assert "Shared plan" in page.locator("#results").inner_text()
    screenshot(page, "search-as-bob")
    page.fill("#credential", ALICE)
    page.click("#session-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#results').textContent.includes('Alice private plan')", timeout=15000
    )


def test_the_browser_needs_no_network_beyond_the_server(server: LiveServer, page: Any) -> None:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{server.url}/ui/search?scope=x&q=y")
    loaded(page, "#results")
    assert requested and all(u.startswith(server.url) for u in requested), requested
    assert Path(__file__).parents[2].joinpath("src/memlane/api/ui/static/htmx.min.js").exists()


def test_a_conversation_note_shows_its_evolution_and_can_be_deleted(server: LiveServer, page: Any) -> None:
    app = new_app()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        first = ingest(c, app, [msg("I live in a small flat in Denver near the river.", ts="2024-01-01T10:00:00Z")])
        old_id = first["result"]["memories"][0]["memory_id"]
        second = ingest(
            c,
            app,
            [msg("I moved and now I live in a small flat in Seattle near the river.", ts="2024-05-01T10:00:00Z")],
        )
        new_id = second["result"]["memories"][0]["memory_id"]
    page.goto(f"{server.url}/ui/memory/{old_id}?scope={app}")
    loaded(page, "#memory")
    steps = page.locator("#evolution li").all_inner_texts()
    assert len(steps) == 2 and "Denver" in steps[0] and "superseded" in steps[0] and "Seattle" in steps[1]
    assert page.locator("#validity").inner_text().startswith("superseded")
    screenshot(page, "note-evolution")
    page.goto(f"{server.url}/ui/notes?scope={app}")
    loaded(page, "#notes")
    chain = page.locator("#chains > li").nth(0).locator("ol.chain > li")
    assert [chain.nth(i).get_attribute("data-node-id") for i in range(chain.count())] == [old_id, new_id]
    assert "superseded" in chain.nth(0).inner_text() and "valid" in chain.nth(1).inner_text()
    screenshot(page, "notes")
    page.goto(f"{server.url}/ui/memory/{new_id}?scope={app}")
    loaded(page, "#memory")
    confirm(page, "Delete this note")
    page.wait_for_function("() => document.querySelector('#action-result').textContent === 'done'", timeout=15000)
    page.wait_for_function("() => document.querySelector('#memory').textContent.includes('404')", timeout=15000)
    with httpx.Client(base_url=server.url, timeout=30) as c:
        assert c.get(f"/api/v1/memories/{new_id}", params={"app_id": app}).status_code == 404


def test_layers_and_knowledge_pages_list_what_the_caller_may_read(server: LiveServer, page: Any) -> None:
    tenant = f"t-{new_app()}"
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Tenant-Id": tenant}) as c:
        manager = {"X-Agent-Role": "manager"}
        r = c.post("/v1/layers/write", headers=manager, json={"layer": "project", "title": "Stack", "content": "Go"})
        assert r.status_code == 200, r.text
        r = c.post(
            "/v1/layers/write", headers=manager, json={"layer": "workspace", "title": "Scratch", "content": "tmp"}
        )
        assert r.status_code == 200, r.text
        tools = {"X-Agent-Id": "agent-a", "X-User-Id": "user-1", "X-Team-Id": "team-x"}
        r = c.post("/v1/tools/memory_add", headers=tools, json={"content": "User prefers tea", "layer": "team"})
        assert r.status_code == 200, r.text
        item = {"id": "adr-7", "type": "adr", "layer": "team", "title": "Use Go", "summary": "for the CLI"}
        assert c.post("/v1/knowledge/items", headers={"X-Agent-Id": "arch"}, json=item).status_code == 201
    page.goto(f"{server.url}/ui/layers")
    page.fill("#tenant", tenant)
    page.click("#session-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('#layers').textContent.includes('Stack')", timeout=15000)
    text = page.locator("#layers").inner_text()
    assert "User prefers tea" in text and "Scratch" not in text, "workspace memory is for system agents only"
    assert page.locator("#layers h3").all_inner_texts()[0].startswith("project")
    screenshot(page, "layers")
    page.goto(f"{server.url}/ui/knowledge")
    loaded(page, "#knowledge")
    assert "Use Go" in page.locator("#knowledge").inner_text() and "adr-7" in page.locator("#knowledge").inner_text()
    screenshot(page, "knowledge")


def test_every_page_works_under_its_content_security_policy(server: LiveServer, page: Any) -> None:
    """The pages run only the UI's own script and style files: htmx fills every panel and the
    browser reports no blocked script, style or handler."""
    scope = new_scope()
    [node] = write(server, scope, [{"type": "event", "title": "Kettle", "text_summary": "The kettle whistles"}])
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    for path, region in [
        ("/ui", "#scopes"),
        (f"/ui/search?scope={scope}&q=kettle", "#results"),
        (f"/ui/memory/{node}?scope={scope}", "#memory"),
        (f"/ui/rules?scope={scope}", "#rules"),
        (f"/ui/notes?scope={scope}", "#notes"),
        (f"/ui/layers?scope={scope}", "#layers"),
        ("/ui/knowledge", "#knowledge"),
        ("/ui/erasure", "#erasure-form"),
    ]:
        response = page.goto(f"{server.url}{path}")
        assert response is not None and "frame-ancestors 'none'" in response.headers["content-security-policy"]
        loaded(page, region)
        # the stylesheet applied: the header's layout comes from ui.css
        assert page.evaluate("() => getComputedStyle(document.querySelector('header')).display") == "flex", path
    use(page, tenant="acme")  # ui.js handles the session form
    assert page.locator("#session-status").inner_text() == "no credential (auth off), tenant acme"
    assert blocked == []


def test_the_scope_list_shows_a_page_of_scopes_and_more_on_request(server: LiveServer, page: Any) -> None:
    """A tenant with more scopes than a page: the first page, then the next rows in the same
    table after "More scopes", which goes once the last page is shown."""
    tenant = f"paging-{new_scope()}"
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Tenant-Id": tenant}) as c:
        for i in range(SCOPES_PAGE + 5):
            node = {"type": "event", "title": f"m{i}"}
            body = {"scope": f"p{i:02d}", "input_text": "x", "memory_lane": "shared", "nodes": [node]}
            assert c.post("/v1/memory/write", json=body).status_code == 200
    page.goto(f"{server.url}/ui")
    use(page, tenant=tenant)
    page.wait_for_function("() => document.querySelector('#scopes').textContent.includes('p00')", timeout=15000)
    rows = page.locator("#scope-rows tr:not(.more-row)")
    assert rows.count() == SCOPES_PAGE
    more = page.get_by_role("button", name="More scopes")
    more.click()
    shown = "() => document.querySelectorAll('#scope-rows tr:not(.more-row)').length"
    page.wait_for_function(f"{shown} === {SCOPES_PAGE + 5}")
    assert rows.all_inner_texts()[-1].startswith(f"p{SCOPES_PAGE + 4:02d}")
    assert page.get_by_role("button", name="More scopes").count() == 0, "the last page offers no more"
    focused = page.evaluate("() => document.activeElement.textContent")
    assert focused == f"p{SCOPES_PAGE:02d}", "focus on the first new row"
    screenshot(page, "scopes-more")
