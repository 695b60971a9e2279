"""Every surface's requests are counted under their own route label, never with the 404s
under ``route="unmatched"``: the MCP endpoint, the memory browser and its static files, and
the API documentation pages.

Counters are per process and shared by every server of the test process, so each test
compares a scrape before and after its own requests."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.api.test_metrics import Samples, scrape, value
from tests.support.server import LiveServer
from tests.support.settings import make_settings

COUNT = "memlane_http_requests_total"
MCP_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = f"sqlite:///{tmp_path_factory.mktemp('labels') / 'memlane.db'}"
    with LiveServer.start(make_settings(url)) as s:
        yield s


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def delta(before: Samples, after: Samples, method: str, route: str, status: int) -> float:
    labels = {"method": method, "route": route, "status": str(status)}
    return value(after, COUNT, **labels) - value(before, COUNT, **labels)


def test_mcp_requests_are_counted_under_the_mcp_route(client: httpx.Client) -> None:
    before = scrape(client)
    for _ in range(2):
        r = client.post("/mcp", json=MCP_CALL, headers=MCP_ACCEPT)
        assert r.status_code == 200, r.text
    after = scrape(client)
    assert delta(before, after, "POST", "/mcp", 200) == 2
    assert delta(before, after, "POST", "unmatched", 200) == 0


def test_memory_browser_pages_and_static_files_have_their_own_labels(client: httpx.Client) -> None:
    before = scrape(client)
    assert client.get("/ui").status_code == 200
    assert client.get("/ui/static/ui.js").status_code == 200
    assert client.get("/ui/static/ui.css").status_code == 200
    assert client.get("/ui/static/nothing.js").status_code == 404
    after = scrape(client)
    assert delta(before, after, "GET", "/ui", 200) == 1
    assert delta(before, after, "GET", "/ui/static/{path}", 200) == 2
    assert delta(before, after, "GET", "/ui/static/{path}", 404) == 1
    assert delta(before, after, "GET", "unmatched", 200) == 0
    assert not any("ui.js" in str(labels) for _, labels in after), "file names never become labels"


def test_documentation_pages_have_their_own_labels(client: httpx.Client) -> None:
    before = scrape(client)
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert client.get(path).status_code == 200, path
    after = scrape(client)
    for route in ("/docs", "/redoc", "/openapi.json"):
        assert delta(before, after, "GET", route, 200) == 1, route
    assert delta(before, after, "GET", "unmatched", 200) == 0


def test_unknown_paths_are_still_counted_as_unmatched(client: httpx.Client) -> None:
    before = scrape(client)
    assert client.get("/no/such/page").status_code == 404
    after = scrape(client)
    assert delta(before, after, "GET", "unmatched", 404) == 1
