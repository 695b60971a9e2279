"""The recall audit in a real headless Chromium: who recalled what, when and with which query
hash; an agent sees its own recalls, the admin role every caller's, and a seed the caller may
not read is counted, never named."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx

from tests.support.memory_api import new_scope
from tests.support.server import LiveServer
from tests.ui.helpers import ADMIN, ALICE, BOB, screenshot, use, write


def recall(server: LiveServer, key: str, scope: str, text: str) -> set[str]:
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-API-Key": key}) as c:
        r = c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": text, "limit": 5})
        assert r.status_code == 200, r.text
        return {s["id"] for s in r.json()["seeds"]}


def rows(page: Any, wanted: str) -> list[tuple[str, str, str]]:
    """(who, query hash, seeds) of each row, once a row with the hash ``wanted`` is shown."""
    page.wait_for_function(
        "h => document.querySelector(`#audit-list .hash[title='${h}']`) !== null", arg=wanted, timeout=15000
    )
    return [
        (r.locator(".who").inner_text(), r.locator(".hash").get_attribute("title"), r.locator(".seeds").inner_text())
        for r in page.locator("#audit-list tbody tr").all()
    ]


def test_each_agent_sees_its_own_recalls_and_the_admin_every_callers(secured: LiveServer, page: Any) -> None:
    scope = new_scope()
    [diary] = write(secured, scope, [{"type": "event", "title": "Alice diary", "text_summary": "Alice rowed at dawn"}],
                    headers={"X-API-Key": ALICE}, lane="private")  # fmt: skip
    [shared] = write(secured, scope, [{"type": "event", "title": "Regatta", "text_summary": "The regatta is at dawn"}],
                     headers={"X-API-Key": ALICE})  # fmt: skip
    assert recall(secured, ALICE, scope, "rowing at dawn") >= {diary, shared}
    assert recall(secured, BOB, scope, "dawn regatta") == {shared}
    alice_hash = hashlib.sha256(b"rowing at dawn").hexdigest()
    bob_hash = hashlib.sha256(b"dawn regatta").hexdigest()

    page.goto(f"{secured.url}/ui/audit?scope={scope}")
    use(page, BOB)
    assert rows(page, bob_hash) == [("bob", bob_hash, "Regatta")], "Bob sees his own recall only"

    use(page, ALICE)  # Alice's recalls: hers (the writes above waited for recall as her), not Bob's
    mine = rows(page, alice_hash)
    assert {w for w, _, _ in mine} == {"alice"} and bob_hash not in {h for _, h, _ in mine}
    [seeds] = [s for _, h, s in mine if h == alice_hash]
    assert "Alice diary" in seeds and "Regatta" in seeds

    use(page, ADMIN)
    every = rows(page, bob_hash)
    assert {("alice", alice_hash), ("bob", bob_hash)} <= {(w, h) for w, h, _ in every}
    screenshot(page, "recall-audit")
