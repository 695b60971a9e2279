"""The official MCP client over streamable HTTP (``/mcp``), driven from synchronous tests."""

from __future__ import annotations

from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession
from tests.security.authz.world import Caller, Loop


class McpClient:
    def __init__(self, url: str, loop: Loop):
        self.url = f"{url}/mcp"
        self.loop = loop

    def call(self, caller: Caller, headers: dict[str, str], name: str, args: dict[str, Any]) -> tuple[bool, Any]:
        """One session per call (each attempt has its own headers): (is_error, structured content)."""
        return self.loop.run(self._call({**caller.auth(), **headers}, name, args))

    async def _call(self, headers: dict[str, str], name: str, args: dict[str, Any]) -> tuple[bool, Any]:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(self.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(name, args)
            return bool(result.is_error), result.structured_content
