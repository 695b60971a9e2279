"""The MCP server: the eight agent tools with the spec's descriptions and JSON Schemas.

Both transports share this; they differ only in how a call learns its tenant and
identifiers (``resolve``): stdio from the command line, HTTP from the request's credentials
and headers. A failing tool answers ``isError: true`` with the ToolError envelope as its
structured content (and as JSON text for clients that read only text).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from memlane import __version__
from memlane.domain.errors import MemlaneError
from memlane.services.tools.context import ToolContext
from memlane.services.tools.errors import envelope, internal_envelope
from memlane.services.tools.schemas import DESCRIPTIONS, SCHEMAS, TOOL_NAMES
from memlane.services.tools.service import ToolService

log = logging.getLogger(__name__)

#: turns an MCP request into the tool service to use and the caller's context
Resolver = Callable[[ServerRequestContext[Any, Any]], Awaitable[tuple[ToolService, ToolContext]]]

INSTRUCTIONS = (
    "memlane: long-term memory and organizational knowledge for agents. Use memory_add / memory_search / "
    "memory_delete to remember and recall across sessions (layers agent, session, user, project, team, org, "
    "company); knowledge_query / knowledge_show to find ADRs, policies, patterns and specs; knowledge_check "
    "before adding dependencies or files; sync_now / sync_status to keep memory in line with knowledge."
)


def tool_list() -> list[types.Tool]:
    return [types.Tool(name=n, description=DESCRIPTIONS[n], input_schema=SCHEMAS[n]) for n in TOOL_NAMES]


def _result(payload: dict[str, Any], *, error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=error,
    )


def build_server(resolve: Resolver) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            tools, tctx = await resolve(ctx)
            payload = await tools.call(params.name, params.arguments or {}, tctx)
        except MemlaneError as exc:
            return _result(envelope(exc), error=True)
        except Exception:
            ref = uuid.uuid4().hex[:12]
            log.exception("MCP tool %s failed (reference %s)", params.name, ref)
            return _result(internal_envelope(ref), error=True)
        return _result(payload, error=False)

    return Server(
        "memlane",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
