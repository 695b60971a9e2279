"""Paging through a scope with filters, in a real headless Chromium: the listing reads through
the same filter as every API read, so a memory no longer valid is hidden unless asked for, and
another agent's private memory never shows."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from tests.support import memory_api
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer
from tests.ui.helpers import ALICE, BOB, loaded, screenshot, use, write


def post(server: LiveServer, scope: str, nodes: list[dict[str, Any]]) -> None:
    """One write per call, a millisecond apart: ids are time-ordered across writes, random
    within one millisecond."""
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/v1/memory/write", json={"scope": scope, "input_text": "ui test", "nodes": nodes})
        assert r.status_code == 200, r.text
    time.sleep(0.002)


def listed(page: Any) -> list[str]:
    return [str(t) for t in page.locator("#browse-list tbody tr td:first-child").all_inner_texts()]


def test_a_scope_is_paged_through_with_filters_and_ended_memories_hidden(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    birds = [{"type": "event", "title": f"Bird {i:02d}", "text_summary": f"bird sighting {i}"} for i in range(52)]
    others = [
        {"type": "entity", "title": "Old mill", "text_summary": "the old mill by the weir"},
        {"type": "event", "title": "Flood", "text_summary": "the weir flooded", "tier": "archive"},
        {"type": "event", "title": "Ferry", "text_summary": "a ferry crossed", "invalid_at": "2020-01-01T00:00:00Z"},
    ]
    post(server, scope, birds)
    for node in others:
        post(server, scope, [node])
    page.goto(f"{server.url}/ui/browse?scope={scope}")
    loaded(page, "#browse")
    first = listed(page)
    assert len(first) == 50 and set(first) < {b["title"] for b in birds}, "oldest first, 50 a page"
    screenshot(page, "browse")
    page.click("#browse-next")
    loaded(page, "#browse")
    second = listed(page)
    assert len(second) == 4 and second[2:] == ["Old mill", "Flood"], "the ended fact is hidden"
    assert set(first) | set(second[:2]) == {b["title"] for b in birds}
    assert page.locator("#browse-end").count() == 1

    page.goto(f"{server.url}/ui/browse?scope={scope}")
    page.select_option("#browse-type", "event")
    page.select_option("#browse-tier", "archive")
    page.click("#browse-form button[type=submit]")
    loaded(page, "#browse")
    assert listed(page) == ["Flood"]

    page.select_option("#browse-tier", "")
    page.select_option("#browse-validity", "history")
    page.fill("#browse-since", "2000-01-01")
    page.click("#browse-form button[type=submit]")
    loaded(page, "#browse")
    page.click("#browse-next")
    loaded(page, "#browse")
    rows = [(r.locator("td").nth(0).inner_text(), r.locator(".state").inner_text())
            for r in page.locator("#browse-list tbody tr").all()]  # fmt: skip
    assert rows[2:] == [("Flood", "valid"), ("Ferry", "ended")], "events of every tier and interval"
    screenshot(page, "browse-history")

    page.goto(f"{server.url}/ui/browse?scope={scope}&since=2000-01-01&until=2001-01-01")
    loaded(page, "#browse")
    assert listed(page) == [], "nothing was written in 2000"
    page.goto(f"{server.url}/ui/browse?scope={scope}&since=yesterday")
    loaded(page, "#browse")
    assert "since: not a date" in page.locator("#browse").inner_text()


def test_browsing_shows_only_what_the_caller_may_read(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    alice = {"X-API-Key": ALICE}
    write(secured, scope, [{"type": "event", "title": "Alice secret", "text_summary": "Alice hides a key"}],
          headers=alice, lane="private")  # fmt: skip
    write(secured, scope, [{"type": "event", "title": "Shared note", "text_summary": "everyone may read this"}],
          headers=alice)  # fmt: skip
    page.goto(f"{secured.url}/ui/browse?scope={scope}")
    loaded(page, "#browse")
    assert "401" in page.locator("#browse").inner_text(), "no credential, no memory"
    use(page, ALICE)
    page.wait_for_function("() => document.querySelector('#browse-list') !== null", timeout=15000)
    assert listed(page) == ["Alice secret", "Shared note"]
    use(page, BOB)
    page.wait_for_function(
        "() => !document.querySelector('#browse').textContent.includes('Alice secret')", timeout=15000
    )
    assert listed(page) == ["Shared note"]
    screenshot(page, "browse-as-bob")


def next_link(html: str) -> str:
    """The query of the page's *Next page* link (the HTML escapes its ``&``)."""
    found = re.search(r'id="browse-next" href="/ui/browse\?([^"]+)"', html)
    assert found, html
    return found.group(1).replace("&amp;", "&")


def test_a_next_page_link_serves_only_the_caller_it_was_made_for(secured: LiveServer) -> None:
    """The link carries an opaque cursor sealed to the caller, scope and filters: the caller
    pages on with it; another caller, a changed filter or a changed cursor get a 400 in the
    panel, never another's position in the scope."""
    scope = new_scope()
    alice, bob = {"X-API-Key": ALICE}, {"X-API-Key": BOB}
    herons = [{"type": "event", "title": f"Heron {i:02d}", "text_summary": f"a heron seen {i}"} for i in range(52)]
    nest = {"type": "event", "title": "Alice's nest", "text_summary": "the nest is here"}
    with httpx.Client(base_url=secured.url, timeout=30, headers=alice) as c:
        memory_api.write(c, scope, herons)
        hidden = [n["id"] for n in memory_api.write(c, scope, [nest], memory_lane="private")["nodes"]]
    with httpx.Client(base_url=secured.url, timeout=30) as c:
        first = c.get("/ui/part/browse", params={"scope": scope}, headers=alice)
        assert first.status_code == 200 and first.text.count("Heron ") == 50
        query = next_link(first.text)
        assert "after=" not in query and hidden[0] not in query
        second = c.get(f"/ui/part/browse?{query}", headers=alice)
        assert second.status_code == 200 and second.text.count("Heron ") == 2 and "Alice&#39;s nest" in second.text
        assert 'id="browse-end"' in second.text

        made_up = f"scope={scope}&cursor={'A' * 600}.{'B' * 43}"
        for headers, changed in ((bob, query), (alice, query + "&type=event"), (alice, query[:-2] + "xx"),
                                 (alice, made_up)):  # fmt: skip
            refused = c.get(f"/ui/part/browse?{changed}", headers=headers)
            assert refused.status_code == 400, refused.text
            assert 'role="alert"' in refused.text and "400 invalid_cursor" in refused.text
            assert "cursor: not a cursor of this listing" in refused.text and "Heron" not in refused.text
