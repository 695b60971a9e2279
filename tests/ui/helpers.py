"""Shared by the browser tests: where Chromium and screenshots live, the keys of the auth-on
server, writing through the API, and waiting for what htmx loads."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import httpx

from tests.support import memory_api
from tests.support.memory_api import wait_until_recallable
from tests.support.server import LiveServer

CHROMIUM = os.environ.get("MEMLANE_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = (
    Path(os.environ.get("MEMLANE_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "ui"
)


ALICE = "key-alice-ui"
BOB = "key-bob-ui"
ADMIN = "key-admin-ui"
MANAGER = "key-manager-ui"
ERASED_USER = "key-carol-ui"
KEYS = {
    MANAGER: {"tenant_id": "acme", "agent_id": "mgr", "role": "manager"},
    ERASED_USER: {"tenant_id": "acme", "agent_id": "carol", "user_id": "u-erase"},
    ALICE: {"tenant_id": "acme", "agent_id": "alice"},
    BOB: {"tenant_id": "acme", "agent_id": "bob"},
    ADMIN: {"tenant_id": "acme", "agent_id": "ops", "role": "admin"},
}


def write(server: LiveServer, scope: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None,
          headers: dict[str, str] | None = None, lane: str = "shared") -> list[str]:  # fmt: skip
    with httpx.Client(base_url=server.url, timeout=30, headers=headers or {}) as c:
        out = memory_api.write(c, scope, nodes, edges, input_text="ui test", memory_lane=lane)
        ids = [n["id"] for n in out["nodes"]]
        wait_until_recallable(c, scope, nodes[0].get("text_summary") or nodes[0]["title"], set(ids))
        return ids


def loaded(page: Any, selector: str) -> None:
    """Wait until htmx replaced the region's placeholder."""
    page.wait_for_function(
        "s => { const el = document.querySelector(s); return el && !el.textContent.includes('Loading'); }",
        arg=selector,
        timeout=15000,
    )


def confirm(page: Any, button: str) -> None:
    """Press a destructive action's button twice: the first press arms it, the second acts."""
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_role("button", name=f"Confirm: {button}").click()


def result_of(page: Any, target: str = "#action-result") -> str:
    """The action's outcome once the API answered."""
    page.wait_for_function(
        "s => { const t = document.querySelector(s).textContent; return t === 'done' || t.startsWith('refused'); }",
        arg=target,
        timeout=15000,
    )
    return str(page.locator(target).inner_text())


def use(page: Any, credential: str | None = None, *, tenant: str | None = None, project: str | None = None) -> None:
    """Enter a credential (and, with auth off, a tenant and a project id) in the session form,
    as a person does; the page's panels reload with it."""
    if credential is not None:
        page.fill("#credential", credential)
    if tenant is not None:
        page.fill("#tenant", tenant)
    if project is not None:
        page.locator("details.identity summary").click()
        page.fill("#id-project", project)
    page.click("#session-form button[type=submit]")


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
