"""The browser's search with the default model: a relevance cut-off, and only what reaches it.

Twenty short facts about one person (the tester's case of issue #27 item 6): every one of them
looks like every question about her, because her name is most of each sentence. The search
shows the cut-off it applies (the default threshold of ``memory_search``), the results that
reach it, and the keyword score as words and a share of the best, not as raw BM25.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.fact_sheets import ALICE
from tests.support.memory_api import new_scope
from tests.support.server import LiveServer, ServerFactory
from tests.ui.helpers import loaded, screenshot, write


@pytest.fixture(scope="module")
def local(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(MEMLANE_EMBEDDER="local") as s:
        yield s


@pytest.fixture(scope="module")
def alice(local: LiveServer) -> tuple[str, dict[str, str]]:
    scope = new_scope()
    ids = write(local, scope, [{"type": "event", "text_summary": fact} for fact in ALICE])
    return scope, dict(zip(ALICE, ids, strict=True))


def test_search_shows_its_relevance_cut_off_and_only_what_reaches_it(
    local: LiveServer, alice: tuple[str, dict[str, str]], page: Any
) -> None:
    scope, ids = alice
    page.goto(f"{local.url}/ui/search?scope={scope}&q=Where+does+Alice+live%3F")
    loaded(page, "#results")
    assert page.locator("#min_relevance").input_value() == "0.70"
    cut = page.locator("#cut-off").inner_text()
    assert "cut-off 0.70" in cut and "1 of 10 results" in cut, cut
    hits = page.locator("#hits li")
    assert hits.count() == 1
    first = hits.nth(0)
    assert first.get_attribute("data-node-id") == ids["Alice lives in Berlin."]
    assert float(first.locator("td.relevance").inner_text()) >= 0.7
    # the keyword score as what it matched and a share of the best, not raw BM25
    assert first.locator("td.keyword").inner_text() == "100 % of best (alice, live)"
    screenshot(page, "search-cut-off")

    # lowering the cut-off in the form shows what was below it
    page.fill("#min_relevance", "0")
    page.get_by_role("button", name="Search").click()
    loaded(page, "#results")
    page.wait_for_function("document.querySelectorAll('#hits li').length === 10", timeout=15000)
    assert "10 of 10 results" in page.locator("#cut-off").inner_text()
    relevances = [float(x) for x in page.locator("#hits td.relevance").all_inner_texts()]
    assert sum(r >= 0.7 for r in relevances) == 1
    # a word every fact shares weighs next to nothing in BM25, and says so
    assert page.locator("#hits td.keyword").nth(1).inner_text() == "<1 % of best (alice)"
    screenshot(page, "search-cut-off-0")


def test_a_search_nothing_answers_says_so_and_how_many_are_below_the_cut_off(
    local: LiveServer, alice: tuple[str, dict[str, str]], page: Any
) -> None:
    scope, _ = alice
    page.goto(f"{local.url}/ui/search?scope={scope}&q=quarterly+tax+return+deadline")
    loaded(page, "#results")
    text = page.locator("#results").inner_text()
    assert page.locator("#hits li").count() == 0
    assert "is relevant enough" in text and "below the cut-off" in text


def test_a_cut_off_outside_0_to_1_is_a_client_error_naming_it(local: LiveServer) -> None:
    with httpx.Client(base_url=local.url, timeout=30) as c:
        for path in ("/ui/search", "/ui/part/search"):
            r = c.get(path, params={"scope": "x", "q": "y", "min_relevance": "2"})
            assert 400 <= r.status_code < 500 and "min_relevance" in r.text, (path, r.status_code, r.text[:200])
