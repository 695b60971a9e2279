"""``/docs`` and ``/redoc`` work on a machine with no internet, under their
Content-Security-Policy: rendered in headless Chromium with every request that leaves the
loopback interface refused, they list the API's operations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support.server import LiveServer
from tests.ui.helpers import ARTIFACTS

LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
#: ReDoc's "API docs by Redocly" badge is an image on its CDN; the page's policy refuses it
#: before any request is made, and the page is whole without it
REDOC_BADGE = "https://cdn.redoc.ly/redoc/logo-mini.svg"


class Offline:
    """The page's network, cut off from everything but this machine; what it tried to reach
    and what the browser refused to run are kept for the assertions."""

    def __init__(self, page: Any):
        self.blocked: list[str] = []
        self.refused: list[str] = []
        page.route("**/*", self._route)
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.refused.append(f"page error: {exc}"))

    def _route(self, route: Any) -> None:
        url = route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname in LOOPBACK:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("internetdisconnected")

    def _console(self, message: Any) -> None:
        if message.type == "error" and ("Content Security Policy" in message.text or "Refused" in message.text):
            self.refused.append(message.text)


def screenshot(page: Any, name: str) -> None:
    """The first screenful: the whole of ReDoc's page is over 100,000 pixels tall."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture
def offline(page: Any) -> Iterator[Offline]:
    yield Offline(page)


def operation_paths(server: LiveServer) -> set[str]:
    import httpx

    spec = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    return set(spec["paths"])


def test_swagger_ui_lists_the_operations_with_no_network(server: LiveServer, page: Any, offline: Offline) -> None:
    response = page.goto(f"{server.url}/docs")
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock", timeout=30000)
    shown = set(page.locator(".opblock-summary-path").evaluate_all("els => els.map(e => e.dataset.path)"))
    assert "/v1/memory/recall_text" in shown
    assert shown == operation_paths(server), "every documented path has its operations listed"
    assert page.locator(".info .title").inner_text().startswith("memlane")
    screenshot(page, "docs-swagger-offline")
    assert offline.refused == []
    assert offline.blocked == [], "the page asked for nothing beyond this machine"


def test_redoc_lists_the_operations_with_no_network(server: LiveServer, page: Any, offline: Offline) -> None:
    response = page.goto(f"{server.url}/redoc")
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("[data-section-id^='operation/']", state="attached", timeout=30000)
    sections = page.locator("[data-section-id^='operation/']").count()
    assert sections >= len(operation_paths(server))
    assert page.get_by_text("/v1/memory/recall_text").count() >= 1
    screenshot(page, "docs-redoc-offline")
    assert [m for m in offline.refused if REDOC_BADGE not in m] == []
    assert offline.blocked == [], "the page asked for nothing beyond this machine"
