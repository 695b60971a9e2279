"""MCP over streamable HTTP at /mcp on the API server, driven by the SDK's own client."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession
from tests.knowledge.helpers import ADR_DIR
from tests.mcp.session_checks import exercise_every_tool
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

KEYS = {"k-acme": {"tenant_id": "acme", "agent_id": "agent-1", "user_id": "user-1"}}


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR),
        **api_keys(KEYS),
    ) as s:
        yield s


async def test_streamable_http_serves_every_tool(server: LiveServer) -> None:
    headers = {"X-Api-Key": "k-acme"}  # the key acts for agent-1 and user-1
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{server.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await exercise_every_tool(session)
    # the memory lives in the key's tenant, the same one the REST tools see
    with httpx.Client(base_url=server.url) as c:
        r = c.post("/v1/tools/sync_status", json={}, headers={"X-Api-Key": "k-acme"})
        assert r.json()["stats"]["totalSyncs"] == 2


def test_mcp_endpoint_needs_credentials(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as c:
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 401
    assert r.json()["errorCode"] == "UNAUTHORIZED" and r.json()["success"] is False
