"""``memlane mcp``: the MCP server over stdin/stdout for Claude Desktop and other local clients.

The process opens the services itself (migrating the database first) and runs the job worker
in-process unless ``MEMLANE_WORKER_IN_PROCESS=false``, so sync_now completes on its own. The
caller's tenant and identifiers come from the command line (or their environment variables).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from memlane.config import Settings
from memlane.mcp.server import build_server
from memlane.services.tools.context import ToolContext
from memlane.services.tools.service import ToolService


async def serve_stdio(settings: Settings, ctx: ToolContext) -> None:
    from memlane.services.container import open_services

    # stdout is the protocol channel: logs go to stderr only
    logging.basicConfig(level=settings.server.log_level.upper(), stream=sys.stderr, force=True)
    svc = await open_services(settings)
    try:
        if settings.worker.in_process:
            svc.worker.start()
        tools = svc.tools

        async def resolve(_: ServerRequestContext[Any, Any]) -> tuple[ToolService, ToolContext]:
            return tools, ctx

        server = build_server(resolve)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await svc.close()
