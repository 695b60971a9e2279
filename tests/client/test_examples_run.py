"""The SDK examples in examples/sdk run as written against a real server (docs/sdk.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.knowledge.helpers import ADR_DIR
from tests.support.server import LiveServer, ServerFactory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sdk"


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(MEMLANE_EMBEDDER="local", MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)) as s:
        yield s


def run(example: str, server: LiveServer) -> str:
    env = {**os.environ, "MEMLANE_URL": server.url}
    env.pop("MEMLANE_API_KEY", None)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_quickstart_example_runs(server: LiveServer) -> None:
    out = run("quickstart.py", server)
    assert "seed" in out and "Alice climbed El Capitan" in out
    assert "stored mem_" in out and "(defaults)" in out
    assert re.search(r"found 0\.\d\d \[user\] User prefers functional programming", out), out
    assert "note" in out and "not found: {'detail':" in out


def test_the_async_agent_example_runs(server: LiveServer) -> None:
    out = run("async_agent.py", server)
    assert "dependency check passed: False" in out
    assert "Deploys happen on Tuesday afternoons" in out and "remembered mem_" in out
