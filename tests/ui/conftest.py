"""A real headless Chromium (Debian's ``chromium`` package, installed by
``scripts/setup.sh --dev``) driven by playwright; screenshots are kept as test artifacts in
``test-artifacts/ui/`` (or ``$MEMLANE_TEST_ARTIFACTS/ui``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys
from tests.ui.helpers import CHROMIUM, KEYS


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    # package scope: playwright's sync API keeps an event loop running on this thread until it
    # stops, and tests collected after this package (asyncio.run in the CLI tests) need it gone
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: run scripts/setup.sh --dev (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    p = context.new_page()
    try:
        yield p
    finally:
        context.close()


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """Auth off: the browser reads as an anonymous caller of the tenant it names."""
    with live_server_factory() as s:
        yield s


@pytest.fixture(scope="module")
def secured(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**api_keys(KEYS)) as s:
        yield s
