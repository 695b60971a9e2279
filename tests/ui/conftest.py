"""A real headless Chromium (Debian's ``chromium`` package, installed by
``scripts/setup.sh --dev``) driven by playwright; screenshots are kept as test artifacts in
``test-artifacts/ui/`` (or ``$MEMLANE_TEST_ARTIFACTS/ui``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_settings
from tests.support.server import LiveServer
from tests.ui.helpers import KEYS

CHROMIUM = os.environ.get("MEMLANE_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = (
    Path(os.environ.get("MEMLANE_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "ui"
)


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


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Auth off: the browser reads as an anonymous caller of the tenant it names."""
    url = f"sqlite:///{tmp_path_factory.mktemp('ui') / 'memlane.db'}"
    with LiveServer.start(make_settings(url)) as s:
        yield s


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = f"sqlite:///{tmp_path_factory.mktemp('ui-auth') / 'memlane.db'}"
    settings = make_settings(url, MEMORY_AUTH_MODE="api_key", MEMORY_API_KEYS_JSON=json.dumps(KEYS))
    with LiveServer.start(settings) as s:
        yield s
