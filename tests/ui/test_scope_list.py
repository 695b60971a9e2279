"""The scope list (``/ui/part/scopes``) comes a page at a time, on both backends: a page
counts at most ``SCOPES_PAGE`` scopes, and the next page is named by its place, so a scope
the caller may not see is neither listed nor named in the link to the next page."""

from __future__ import annotations

import re

import httpx

from memlane.api.ui.views import SCOPES_PAGE
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer


def listed(html: str) -> list[str]:
    return re.findall(r'<a href="/ui/search\?scope=([^"]+)"', html)


def test_the_scope_list_comes_in_pages_and_never_names_a_hidden_scope(live_server: LiveServer) -> None:
    tenant = f"pages-{new_scope()}"
    visible = [f"p{i:02d}" for i in range(SCOPES_PAGE + 5)]
    with httpx.Client(base_url=live_server.url, timeout=30, headers={"X-Tenant-Id": tenant}) as c:
        for scope in visible:
            body = {
                "scope": scope,
                "input_text": "x",
                "memory_lane": "shared",
                "nodes": [{"type": "event", "title": scope}],
            }
            assert c.post("/v1/memory/write", json=body).status_code == 200
        # among the first page's names: one scope holding only another agent's private memory
        hidden = {
            "scope": "p05-private",
            "input_text": "x",
            "memory_lane": "private",
            "nodes": [{"type": "event", "title": "mine"}],
        }
        assert c.post("/v1/memory/write", json=hidden, headers={"X-Agent-Id": "someone"}).status_code == 200

        reader = {"X-Agent-Id": "reader"}  # names an agent, so lanes apply (auth off)
        first = c.get("/ui/part/scopes", headers=reader)
        assert first.status_code == 200
        assert listed(first.text) == visible[: SCOPES_PAGE - 1]  # 20 names read, the private one not shown
        nxt = re.search(r'hx-get="/ui/part/scopes\?offset=(\d+)"', first.text)
        assert nxt is not None and int(nxt.group(1)) == SCOPES_PAGE
        assert "More scopes" in first.text

        second = c.get("/ui/part/scopes", params={"offset": nxt.group(1)}, headers=reader)
        assert second.status_code == 200
        assert listed(second.text) == visible[SCOPES_PAGE - 1 :]
        assert "<table" not in second.text, "a later page is rows for the same table"
        assert "More scopes" not in second.text, "the last page offers no more"
        assert "p05-private" not in first.text + second.text

        bad = c.get("/ui/part/scopes", params={"offset": -1})
        assert bad.status_code == 400 and "offset" in bad.text
