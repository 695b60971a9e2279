"""Waiting for what a real server does in the background (a job, a worker process), with
a deadline: a test waits for an outcome, never for a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(
    check: Callable[[], T],
    *,
    what: str = "the condition",
    timeout: float = 20.0,
    interval: float = 0.05,
    diagnose: Callable[[], str] | None = None,
) -> T:
    """Calls ``check`` until it returns something truthy and returns that. Past ``timeout``
    seconds it fails naming ``what``, with ``diagnose()`` (a log tail, say) when given.
    ``check`` may itself fail early, e.g. when the process it watches has died."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            detail = f"\n{diagnose()}" if diagnose is not None else ""
            raise AssertionError(f"timed out waiting for {what}{detail}")
        time.sleep(interval)
