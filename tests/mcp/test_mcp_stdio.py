"""`memlane mcp` over stdio, driven by the official SDK's client: every tool, end to end."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcp import ClientSession, StdioServerParameters, stdio_client
from tests.knowledge.helpers import ADR_DIR
from tests.mcp.session_checks import exercise_every_tool

pytestmark = pytest.mark.slow


async def test_stdio_server_serves_every_tool(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MEMLANE_DATABASE_URL": f"sqlite:///{tmp_path / 'memlane.db'}",
        "MEMLANE_EMBEDDER": "hashing",
        "MEMLANE_KNOWLEDGE_DIR": str(ADR_DIR),
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.05",
        "MEMLANE_MCP_TENANT_ID": "stdio-tenant",
        "MEMLANE_MCP_USER_ID": "user-1",
        "MEMLANE_MCP_AGENT_ID": "claude-desktop",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "memlane.cli.main", "mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await exercise_every_tool(session)
