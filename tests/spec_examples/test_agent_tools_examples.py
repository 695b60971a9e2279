"""Every request example of agent-tools.md, sent as written with no identity, over each
transport: ``POST /v1/tools/{name}`` on both backends, MCP over streamable HTTP and MCP over
stdio (``memlane mcp`` started with no options)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession, StdioServerParameters, stdio_client
from tests.knowledge.helpers import ADR_DIR
from tests.spec_examples.agent_tools_scenario import run_every_example
from tests.support.backends import BACKENDS, fresh_url
from tests.support.server import LiveServer, ServerFactory

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """The default model, the spec's ADR folder, auth off, nothing else configured."""
    with live_server_factory(fresh_url(request), MEMLANE_EMBEDDER="local", MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)) as s:
        yield s


async def test_every_agent_tools_example_works_over_http_without_identity(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:

        async def call(name: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
            r = await http.post(f"/v1/tools/{name}", json=args)
            assert r.status_code in (200, 400, 404), r.text
            return r.status_code != 200, r.json()

        await run_every_example(call)


async def mcp_call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await session.call_tool(name, args)
    payload = result.structured_content
    assert isinstance(payload, dict), result
    return bool(result.is_error), payload


async def test_every_agent_tools_example_works_over_mcp_http_without_identity(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    with live_server_factory(
        f"sqlite:///{tmp_path / 'memlane.db'}", MEMLANE_EMBEDDER="local", MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)
    ) as server:
        await _over_mcp_http(server)


async def _over_mcp_http(server: LiveServer) -> None:
    async with (
        httpx2.AsyncClient(timeout=120) as http,
        streamable_http_client(f"{server.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await run_every_example(lambda name, args: mcp_call(session, name, args))


async def test_every_agent_tools_example_works_over_mcp_stdio_without_options(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MEMLANE_DATABASE_URL": f"sqlite:///{tmp_path / 'memlane.db'}",
        "MEMLANE_EMBEDDER": "local",
        "MEMLANE_KNOWLEDGE_DIR": str(ADR_DIR),
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.05",
    }
    for name in [k for k in env if k.startswith("MEMLANE_MCP_") or k.startswith("MEMORY_DEFAULT_")]:
        env.pop(name)
    params = StdioServerParameters(command=sys.executable, args=["-m", "memlane.cli.main", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await run_every_example(lambda name, args: mcp_call(session, name, args))
