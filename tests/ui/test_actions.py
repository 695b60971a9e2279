"""Actions in the memory browser, in a real headless Chromium: each works for a caller the
API allows, shows the API's refusal to a caller it does not, and what it did is read back
through the API, not through the page."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conversation.helpers import ingest, msg, new_app
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer
from tests.ui.helpers import ADMIN, ALICE, BOB, ERASED_USER, MANAGER, confirm, loaded, result_of, screenshot, use, write


def seeds(server: LiveServer, scope: str, text: str, headers: dict[str, str] | None = None) -> set[str]:
    with httpx.Client(base_url=server.url, timeout=30, headers=headers or {}) as c:
        r = c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": text, "limit": 50})
        assert r.status_code == 200, r.text
        return {s["id"] for s in r.json()["seeds"]}


def tier_shown(page: Any, tier: str) -> None:
    page.wait_for_function(
        "t => { const el = document.querySelector('#tier'); return el && el.textContent === t; }",
        arg=tier,
        timeout=15000,
    )


def test_a_graph_memory_is_archived_then_rehydrated_from_its_page(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    heron = {"type": "event", "title": "Heron nest", "text_summary": "A heron nests on the weir"}
    [node] = write(server, scope, [heron])
    page.goto(f"{server.url}/ui/memory/{node}?scope={scope}")
    loaded(page, "#memory")
    assert page.get_by_role("button", name="Rehydrate").count() == 0, "nothing to rehydrate in an active tier"
    page.get_by_role("button", name="Archive", exact=True).click()
    assert "Press the button again" in page.locator("#action-result").inner_text(), "it asks first"
    assert seeds(server, scope, "heron nest weir") == {node}, "one press changes nothing"
    page.get_by_role("button", name="Confirm: Archive").click()
    assert result_of(page) == "done"
    tier_shown(page, "archive")
    assert node not in seeds(server, scope, "heron nest weir"), "recall no longer finds an archived memory"
    screenshot(page, "archived")
    page.select_option("#rehydrate-tier", "warm")
    page.get_by_role("button", name="Rehydrate").click()
    assert result_of(page) == "done"
    tier_shown(page, "warm")
    assert seeds(server, scope, "heron nest weir") == {node}


def test_escape_cancels_an_armed_action(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    [node] = write(server, scope, [{"type": "event", "title": "Kingfisher", "text_summary": "A kingfisher dived"}])
    page.goto(f"{server.url}/ui/memory/{node}?scope={scope}")
    loaded(page, "#memory")
    archive = page.locator("button[data-api='/v1/memory/write']")
    archive.focus()
    page.keyboard.press("Enter")
    assert archive.inner_text() == "Confirm: Archive"
    page.keyboard.press("Escape")
    assert archive.inner_text() == "Archive"
    page.keyboard.press("Enter")  # armed again by the keyboard, and confirmed by it
    page.keyboard.press("Enter")
    assert result_of(page) == "done"
    tier_shown(page, "archive")


def test_archiving_is_refused_to_a_caller_the_api_refuses(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    alice = {"X-API-Key": ALICE}
    [node] = write(secured, scope, [{"type": "event", "title": "Alice diary", "text_summary": "private entry"}],
                   headers=alice, lane="private")  # fmt: skip
    page.goto(f"{secured.url}/ui/memory/{node}?scope={scope}")
    use(page, ALICE)
    page.wait_for_function("() => document.querySelector('#tier') !== null", timeout=15000)
    # the session's credential changes under an open page (another tab, a rotated key): the
    # button is still there, and the API decides
    page.evaluate(f"sessionStorage.setItem('memlane.credential', '{BOB}')")
    confirm(page, "Archive")
    refused = result_of(page)
    assert refused.startswith("refused (4"), refused
    assert seeds(secured, scope, "private entry", alice) == {node}, "still in its tier"
    screenshot(page, "archive-refused")
    use(page, BOB)
    page.wait_for_function("() => document.querySelector('#memory').textContent.includes('404')", timeout=15000)


def test_a_conversation_note_is_archived_from_its_page(server: LiveServer, page: Any) -> None:
    app = new_app()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        task = ingest(c, app, [msg("My sister Ines runs a bakery in Porto.")])
        note = task["result"]["memories"][0]["memory_id"]
    page.goto(f"{server.url}/ui/memory/{note}?scope={app}")
    loaded(page, "#memory")
    assert "DELETE /api/v1/memories" in page.locator("#actions-help").inner_text()
    confirm(page, "Archive")
    assert result_of(page) == "done"
    tier_shown(page, "archive")
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.get("/api/v1/memories/query", params={"app_id": app, "query": "Ines bakery", "user_id": "u1"})
        assert r.status_code == 200 and note not in {m["memory_id"] for m in r.json()["memories"]}


def test_a_layered_memory_is_deleted_only_with_the_layers_rights(secured: LiveServer, page: Any) -> None:
    manager = {"X-API-Key": MANAGER}
    with httpx.Client(base_url=secured.url, timeout=30, headers=manager) as c:
        body = {"layer": "project", "title": "Release train", "content": "We ship every second Tuesday"}
        r = c.post("/v1/layers/write", json=body)
        assert r.status_code == 200, r.text
        memory_id = r.json()["id"]
    node = memory_id.removeprefix("mem_")
    page.goto(f"{secured.url}/ui/layers")
    use(page, BOB)
    page.wait_for_function(
        "() => document.querySelector('#layers').textContent.includes('Release train')", timeout=15000
    )
    page.get_by_role("link", name="Release train").first.click()
    loaded(page, "#memory")
    confirm(page, "Delete this layered memory")
    refused = result_of(page)
    assert refused.startswith("refused (403)") and "manager" in refused, refused
    screenshot(page, "layered-delete-refused")

    def still_there() -> bool:
        with httpx.Client(base_url=secured.url, timeout=30, headers=manager) as c:
            r = c.post("/v1/layers/read", json={"layer": "project", "id": memory_id})
            return r.status_code == 200 and bool(r.json()["results"])

    assert still_there()
    use(page, MANAGER)
    page.wait_for_function("() => document.querySelector('#tier') !== null", timeout=15000)
    confirm(page, "Delete this layered memory")
    assert result_of(page) == "done"
    assert not still_there()
    assert node


def test_a_tool_memory_is_deleted_by_the_project_it_belongs_to(server: LiveServer, page: Any) -> None:
    tenant = f"t-{new_app()}"
    apollo = {"X-Agent-Id": "agent-a", "X-Project-Id": "apollo"}
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Tenant-Id": tenant}) as c:
        added = {"content": "Apollo builds run on Fridays", "layer": "project"}
        r = c.post("/v1/tools/memory_add", headers=apollo, json=added)
        assert r.status_code == 200, r.text
        memory_id = r.json()["memoryId"]

        def found() -> bool:
            query = {"query": "Apollo builds", "layers": ["project"]}
            r = c.post("/v1/tools/memory_search", headers=apollo, json=query)
            assert r.status_code == 200, r.text
            return memory_id in {m["memoryId"] for m in r.json()["results"]}

        assert found()
        page.goto(f"{server.url}/ui/layers")
        use(page, tenant=tenant)
        page.wait_for_function("() => document.querySelector('#layers').textContent.includes('Apollo')", timeout=15000)
        page.get_by_role("link", name="Apollo builds run on Fridays").click()
        loaded(page, "#memory")
        confirm(page, "Delete this tool memory")
        refused = result_of(page)
        assert refused.startswith("refused (404)"), "memory_delete deletes only the caller's own project's memories"
        assert found()
        screenshot(page, "tool-delete-refused")
        use(page, project="apollo")
        page.wait_for_function("() => document.querySelector('#tier') !== null", timeout=15000)
        confirm(page, "Delete this tool memory")
        assert result_of(page) == "done"
        screenshot(page, "tool-deleted")
        assert not found()


def test_rules_page_lists_state_feedback_and_promotion_suggestions(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    then = {"then": {"tool": {"deny": ["shell"]}}}
    cite_id, _ = write(server, scope, [
        {"type": "rule", "title": "Cite sources", "text_summary": "always cite", "slots": then},
        {"type": "rule", "title": "Be brief", "text_summary": "short answers", "slots": {**then, "state": "shadow"}},
    ])  # fmt: skip
    with httpx.Client(base_url=server.url, timeout=30) as c:
        for run in ("r1", "r2", "r3"):  # counts are earned through feedback, never written
            body = {"scope": scope, "rule_node_id": cite_id, "outcome": "positive", "run_id": run, "input_text": "ok"}
            assert c.post("/v1/memory/feedback", json=body).status_code == 200
    page.goto(f"{server.url}/ui/rules?scope={scope}")
    loaded(page, "#rules")
    rows = {r.locator("td").nth(0).inner_text(): r for r in page.locator("#rule-list tbody tr").all()}
    assert set(rows) == {"Cite sources", "Be brief"}
    cite, brief = rows["Cite sources"], rows["Be brief"]
    assert cite.locator(".state").inner_text() == "draft" and brief.locator(".state").inner_text() == "shadow"
    assert [cite.locator("td").nth(i).inner_text() for i in (3, 4, 5)] == ["3", "0", "3"]
    assert cite.locator(".promotion").inner_text().startswith("suggested: draft → shadow")
    assert brief.locator(".promotion").inner_text().startswith("not yet (shadow → active)")
    screenshot(page, "rules")


def test_erasure_needs_the_admin_role_and_shows_its_receipt(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    erased = {"X-API-Key": ERASED_USER}
    carol = {"type": "event", "title": "Carol's address", "text_summary": "Carol lives on Elm St"}
    [node] = write(secured, scope, [carol], headers=erased)
    page.goto(f"{secured.url}/ui/erasure")
    use(page, BOB)
    page.select_option("#erasure-kind", "user")
    page.fill("#erasure-value", "u-erase")
    page.keyboard.press("Enter")  # the form submits from the keyboard
    page.wait_for_function("() => !document.querySelector('#erasure-confirm').hidden", timeout=5000)
    assert page.evaluate("document.activeElement.id") == "erasure-cancel", "focus moves to the confirmation"
    assert "user “u-erase”" in page.locator("#erasure-summary").inner_text()
    page.click("#erasure-go")
    page.wait_for_function(
        "() => document.querySelector('#erasure-result').textContent.startsWith('refused')", timeout=15000
    )
    refused = page.locator("#erasure-result").inner_text()
    assert refused.startswith("refused (403): erasure needs credentials with the admin role"), refused
    assert seeds(secured, scope, "Carol Elm", erased) == {node}, "nothing was erased"

    use(page, ADMIN)
    page.fill("#erasure-value", "u-erase")
    page.click("text=Review erasure")
    page.wait_for_function("() => !document.querySelector('#erasure-confirm').hidden", timeout=5000)
    screenshot(page, "erasure-confirm")
    page.keyboard.press("Shift+Tab")  # from Cancel back to "Erase now"
    assert page.evaluate("document.activeElement.id") == "erasure-go"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#erasure-done') !== null", timeout=15000)
    assert "user" in page.locator("#erasure-done").inner_text()
    counts = dict(zip(page.locator("#erasure-counts th").all_inner_texts(),
                      page.locator("#erasure-counts td").all_inner_texts(), strict=True))  # fmt: skip
    assert int(counts["nodes"]) >= 1, counts
    assert seeds(secured, scope, "Carol Elm", erased) == set(), "the user's memory is gone"
    screenshot(page, "erasure-done")
