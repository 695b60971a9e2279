"""Watching a live server stay responsive while a test loads it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx


@contextmanager
def health_watch(base_url: str) -> Iterator[list[int]]:
    """Polls /health from another client for as long as the block runs; yields the statuses.
    A server held by a regex would leave them missing (the client gives up after 10 s)."""
    statuses: list[int] = []
    stop = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=base_url, timeout=10) as c:
            while not stop.is_set():
                try:
                    statuses.append(c.get("/health").status_code)
                except httpx.TimeoutException:
                    statuses.append(0)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield statuses
    finally:
        stop.set()
        thread.join(timeout=30)


def concurrently(calls: list[Callable[[], Any]]) -> list[Any]:
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results
