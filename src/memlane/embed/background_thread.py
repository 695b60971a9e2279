"""The thread background embedding runs on, at a lower CPU priority than requests.

Embedding jobs are work nobody waits for; queries and writes are. On a small machine both want
the same cores, and the kernel shares them equally between runnable threads, so a drained
backlog's model calls took CPU from the event loop and a recall's own stages
(BENCHMARKS.md, "Concurrent load"). A nice value on this one thread lets the scheduler run the
request path first and the backlog in the time left over, without changing how much work
either does. Linux sets nice per thread, and threads a thread starts inherit it, so
onnxruntime's own intra-op threads, created on this thread, run at the same priority.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

log = logging.getLogger("memlane.embed")
T = TypeVar("T")


def _lower_priority(nice: int) -> None:
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    tid = threading.get_native_id()
    try:
        # PRIO_PROCESS with a thread id sets that thread's nice on Linux; raising it needs no privilege
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except OSError as exc:  # a platform that refuses: run at normal priority rather than fail
        log.warning("background embedding stays at normal priority: %s", exc)


class BackgroundThread:
    """One thread, ``nice`` steps below the process, for background model calls in order."""

    def __init__(self, nice: int) -> None:
        self._pool = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="memlane-embed-background", initializer=_lower_priority, initargs=(nice,)
        )

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the thread and wait (for construction: sessions made here start their
        threads at this priority)."""
        return self._pool.submit(fn).result()

    async def run(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._pool.shutdown(wait=False, cancel_futures=True)
