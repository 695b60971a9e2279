"""Writing memory from the browser, in a real headless Chromium: each form is a call of the
public API with the session's credential, so it works for a caller the API allows and shows
the API's refusal to one it does not; what it wrote is read back through the API."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.memory_api import new_scope, wait_until_recallable
from tests.support.server import LiveServer
from tests.ui.helpers import ALICE, BOB, MANAGER, loaded, screenshot, use, write


def outcome(page: Any) -> str:
    """The write's outcome once the API answered ("done", with a link to what was written, or
    "refused (status): message")."""
    page.wait_for_function(
        "() => { const t = document.querySelector('#action-result').textContent;"
        " return t.startsWith('done') || t.startsWith('refused'); }",
        timeout=15000,
    )
    return str(page.locator("#action-result").inner_text())


def recalled(server: LiveServer, scope: str, text: str, node: str, headers: dict[str, str] | None = None) -> Any:
    with httpx.Client(base_url=server.url, timeout=30, headers=headers or {}) as c:
        seeds = wait_until_recallable(c, scope, text, {node})["seeds"]
    return next(s for s in seeds if s["id"] == node)


def test_a_graph_memory_written_in_the_browser_is_recalled_through_the_api(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    page.goto(f"{server.url}/ui/new?scope={scope}")
    page.select_option("#graph-type", "entity")
    page.fill("#graph-title", "Otter holt")
    page.fill("#graph-text", "An otter holt under the alder roots")
    page.click("#new-graph button[type=submit]")
    assert outcome(page).startswith("done: Open the memory")
    screenshot(page, "new-graph-memory")
    page.click("#written-link")
    loaded(page, "#memory")
    node = page.locator("#memory code").first.inner_text()
    seed = recalled(server, scope, "otter holt alder", node)
    assert seed["title"] == "Otter holt" and seed["type"] == "entity"


def test_a_graph_memory_is_edited_from_its_page(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    swift = {"type": "event", "title": "Swift nest", "text_summary": "Swifts nest in the eaves"}
    [node] = write(server, scope, [swift])
    page.goto(f"{server.url}/ui/memory/{node}?scope={scope}")
    loaded(page, "#memory")
    page.fill("#edit-text", "Swifts nest in the church tower")
    page.click("#edit-memory button[type=submit]")
    assert outcome(page) == "done"
    page.wait_for_function("() => document.querySelector('#memory-title + p').textContent.includes('tower')")
    screenshot(page, "memory-edited")
    seed = recalled(server, scope, "swifts church tower", node)
    assert seed["text_summary"] == "Swifts nest in the church tower" and seed["title"] == "Swift nest"


def test_editing_another_agents_private_memory_is_refused(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    alice = {"X-API-Key": ALICE}
    [node] = write(secured, scope, [{"type": "event", "title": "Alice plan", "text_summary": "Alice plans a trip"}],
                   headers=alice, lane="private")  # fmt: skip
    page.goto(f"{secured.url}/ui/memory/{node}?scope={scope}")
    use(page, ALICE)
    page.wait_for_function("() => document.querySelector('#edit-text') !== null", timeout=15000)
    # the credential changes under the open page: the form is still there, and the API decides
    page.evaluate(f"() => sessionStorage.setItem('memlane.credential', '{BOB}')")
    page.fill("#edit-text", "Bob was here")
    page.click("#edit-memory button[type=submit]")
    refused = outcome(page)
    assert refused.startswith("refused (4"), refused
    screenshot(page, "memory-edit-refused")
    seed = recalled(secured, scope, "Alice plans a trip", node, alice)
    assert seed["text_summary"] == "Alice plans a trip"


def layered_read(server: LiveServer, memory_id: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    with httpx.Client(base_url=server.url, timeout=30, headers=headers) as c:
        r = c.post("/v1/layers/read", json={"layer": "project", "id": memory_id})
        assert r.status_code == 200, r.text
        return list(r.json()["results"])


def test_a_layered_memory_is_written_and_edited_with_the_layers_rights(secured: LiveServer, page: Any) -> None:
    manager = {"X-API-Key": MANAGER}
    page.goto(f"{secured.url}/ui/new")
    use(page, BOB)
    page.select_option("#layered-layer", "project")
    page.fill("#layered-title", "Code freeze")
    page.fill("#layered-content", "Code freezes on the last Thursday")
    page.click("#new-layered button[type=submit]")
    refused = outcome(page)
    assert refused.startswith("refused (403)") and "manager" in refused, refused
    screenshot(page, "new-layered-refused")

    use(page, MANAGER)
    page.click("#new-layered button[type=submit]")
    assert outcome(page).startswith("done")
    memory_id = page.locator("#written-link").get_attribute("href").split("/")[3].split("?")[0]
    [found] = layered_read(secured, memory_id, manager)
    assert found["content"] == "Code freezes on the last Thursday"

    use(page, BOB)  # the user-facing agent may not change project memory on its own
    page.click("#written-link")
    loaded(page, "#memory")
    page.fill("#edit-text", "Code freezes on the last Friday")
    page.click("#edit-memory button[type=submit]")
    assert outcome(page).startswith("refused (403)")
    page.check("#edit-instruction")  # ... but on the user's explicit instruction it may
    page.click("#edit-memory button[type=submit]")
    assert outcome(page) == "done"
    [found] = layered_read(secured, memory_id, manager)
    assert found["content"] == "Code freezes on the last Friday"


def test_a_tool_memory_is_written_for_the_layer_the_session_names(secured: LiveServer, page: Any) -> None:
    page.goto(f"{secured.url}/ui/new")
    use(page, BOB)
    page.select_option("#tool-layer", "team")  # Bob's key names no team
    page.fill("#tool-content", "Gemini builds run on Mondays")
    page.fill("#tool-tags", "builds, ci")
    page.click("#new-tool button[type=submit]")
    refused = outcome(page)
    assert refused.startswith("refused (400)") and "team" in refused, refused

    page.select_option("#tool-layer", "agent")
    page.click("#new-tool button[type=submit]")
    assert outcome(page).startswith("done")
    screenshot(page, "new-tool-memory")

    def search(key: str) -> list[dict[str, Any]]:
        with httpx.Client(base_url=secured.url, timeout=30, headers={"X-API-Key": key}) as c:
            r = c.post("/v1/tools/memory_search", json={"query": "Gemini builds", "layers": ["agent"]})
            assert r.status_code == 200, r.text
            return list(r.json()["results"])

    [found] = search(BOB)
    assert found["content"] == "Gemini builds run on Mondays" and set(found["tags"]) >= {"builds", "ci"}
    assert search(ALICE) == [], "an agent's memory is its own"
