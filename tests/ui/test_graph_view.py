"""A memory's neighbourhood to two hops, drawn on its page (server-rendered SVG and a list), in
a real headless Chromium: bounded for a hub, and read as the caller, so a memory the caller
may not read is not drawn even two hops away."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.memory_api import new_scope
from tests.support.server import LiveServer
from tests.ui.helpers import ALICE, BOB, loaded, screenshot, use, write


def node(cid: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"client_id": cid, "type": "entity", "title": title, "text_summary": f"{title} of the harbour", **extra}


def edge(a: str, b: str) -> dict[str, Any]:
    return {"type": "related_to", "src": {"client_id": a}, "dst": {"client_id": b}}


def drawn(page: Any, hop: int) -> list[str]:
    return sorted(str(t) for t in page.locator(f"svg.graph text.hop{hop}").all_text_contents())


def test_a_memorys_page_draws_its_neighbourhood_to_two_hops(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    titles = ["Harbour", "Lighthouse", "Pier", "Keeper", "Ferry", "Island"]
    ids = write(server, scope, [node(t.lower(), t) for t in titles], [
        edge("harbour", "lighthouse"), edge("pier", "harbour"), edge("lighthouse", "keeper"),
        edge("ferry", "pier"), edge("keeper", "island"),
    ])  # fmt: skip
    page.goto(f"{server.url}/ui/memory/{ids[0]}?scope={scope}")
    loaded(page, "#memory")
    assert drawn(page, 0) == ["Harbour"]
    assert drawn(page, 1) == ["Lighthouse", "Pier"]
    assert drawn(page, 2) == ["Ferry", "Keeper"], "three hops away (Island) is not drawn"
    assert page.locator("svg.graph line").count() == 4
    assert sorted(page.locator("#second-hop li").all_inner_texts()) == [
        "Ferry through Pier", "Keeper through Lighthouse"]  # fmt: skip
    assert page.locator("#graph-bounded").count() == 0
    screenshot(page, "memory-two-hops")
    page.locator("svg.graph a").filter(has_text="Keeper").click()  # every drawn memory is a link
    loaded(page, "#memory")
    assert page.locator("#memory-title").inner_text() == "Keeper"
    assert drawn(page, 1) == ["Island", "Lighthouse"] and drawn(page, 2) == ["Harbour"]


def test_a_hubs_neighbourhood_is_bounded(server: LiveServer, page: Any) -> None:
    scope = new_scope()
    spokes = [node(f"s{i}", f"Boat {i:02d}") for i in range(15)]
    ids = write(server, scope, [node("hub", "Marina"), *spokes], [edge("hub", f"s{i}") for i in range(15)])
    page.goto(f"{server.url}/ui/memory/{ids[0]}?scope={scope}")
    loaded(page, "#memory")
    assert len(drawn(page, 1)) == 12
    assert "Drawn: the 12 neighbours" in page.locator("#graph-bounded").inner_text()
    assert page.locator("#memory table tbody tr").filter(has_text="related_to").count() == 15, "all edges listed"


def test_a_memory_the_caller_may_not_read_is_not_drawn_two_hops_away(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    alice = {"X-API-Key": ALICE}
    ids = write(secured, scope, [
        node("quay", "Quay"), node("crane", "Crane"), node("locker", "Locker", memory_lane="private"),
    ], [edge("quay", "crane"), edge("crane", "locker")], headers=alice)  # fmt: skip
    page.goto(f"{secured.url}/ui/memory/{ids[0]}?scope={scope}")
    use(page, ALICE)
    page.wait_for_function("() => document.querySelector('#second-hop') !== null", timeout=15000)
    assert drawn(page, 2) == ["Locker"]
    use(page, BOB)
    page.wait_for_function("() => document.querySelector('#second-hop') === null", timeout=15000)
    loaded(page, "#memory")
    assert drawn(page, 1) == ["Crane"] and drawn(page, 2) == []
    assert "Locker" not in page.locator("#memory").inner_text()
    screenshot(page, "memory-two-hops-as-bob")
    with httpx.Client(base_url=secured.url, timeout=30, headers={"X-API-Key": BOB}) as c:
        r = c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "Locker of the harbour"})
        assert r.status_code == 200 and ids[2] not in {s["id"] for s in r.json()["seeds"]}, "nor through the API"
