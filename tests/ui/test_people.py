"""An app's users and sessions with their messages and notes, in a real headless Chromium: read
as the caller, so a caller acting for one user sees neither another user's notes nor the
messages they came from."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conversation.helpers import ingest, msg, new_app
from tests.support.server import LiveServer
from tests.ui.helpers import loaded, screenshot


def test_users_sessions_messages_and_notes_of_an_app(server: LiveServer, page: Any) -> None:
    app = new_app()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        ingest(c, app, [msg("My sister Ines runs a bakery in Porto.")], user_id="u-ana", session_id="s-morning")
        ingest(c, app, [msg("I play the cello every Sunday.", ts="2024-03-02T09:00:00Z")], user_id="u-ana",
               session_id="s-evening")  # fmt: skip
        ingest(c, app, [msg("My dog Rex is afraid of thunder.")], user_id="u-ben")
        r = c.get("/api/v1/memories/query", params={"app_id": app, "query": "Ines bakery", "user_id": "u-ana"})
        assert r.status_code == 200, r.text
        ana_notes = {m["memory_id"] for m in r.json()["memories"]}
    assert ana_notes

    page.goto(f"{server.url}/ui/people?scope={app}")
    loaded(page, "#people")
    users = page.locator("#people-list tbody tr td:first-child").all_inner_texts()
    assert sorted(users) == ["u-ana", "u-ben"]
    page.get_by_role("link", name="u-ana", exact=True).click()
    loaded(page, "#people")
    excerpts = page.locator("#talk-messages .excerpt").all_inner_texts()
    assert excerpts == ["My sister Ines runs a bakery in Porto.", "I play the cello every Sunday."], "oldest first"
    shown = {h.split("/")[3].split("?")[0] for h in page.locator("#talk-notes a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")}  # fmt: skip
    assert ana_notes <= shown, "the notes the API finds for the user are listed"
    assert "Rex" not in page.locator("#talk-notes").inner_text()
    screenshot(page, "people")

    page.get_by_role("link", name="s-evening").click()
    loaded(page, "#people")
    assert page.locator("#talk-messages .excerpt").all_inner_texts() == ["I play the cello every Sunday."]

    # a caller acting for u-ben (auth off: X-User-Id) reads nothing of u-ana's
    page.goto(f"{server.url}/ui/people?scope={app}&user=u-ana")
    page.locator("details.identity summary").click()
    page.fill("#id-user", "u-ben")
    page.click("#session-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('#people').textContent.includes('403')", timeout=15000)
    text = page.locator("#people").inner_text()
    assert text.startswith("403 identity_mismatch") and "Ines" not in text and "cello" not in text, text
    screenshot(page, "people-refused")
    page.goto(f"{server.url}/ui/people?scope={app}")  # the identity stays for the tab
    loaded(page, "#people")
    assert page.locator("#people-list tbody tr td:first-child").all_inner_texts() == ["u-ben"]
