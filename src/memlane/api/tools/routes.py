"""The tools surface over HTTP, for frameworks without MCP: ``GET /v1/tools`` (schemas, also as
OpenAI functions) and ``POST /v1/tools/{name}`` (body = the tool's arguments). Errors use the
ToolError envelope; the knowledge repository's CRUD is api/knowledge/routes.py.

Each tool is its own operation in ``/openapi.json`` (``POST /v1/tools/memory_add``...), with
its own request schema (api/tools/requests.py); a route for any other name, left out of the
document, answers the ToolError 404 that lists the tools there are."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, authenticated, get_services, resolve_tenant
from memlane.api.common.identity import DIMENSIONS, NOUNS, header_claims, header_name, viewer_of
from memlane.api.common.read_routing import RoutedRead
from memlane.api.tools import responses as t
from memlane.api.tools.requests import request_body
from memlane.domain.errors import InvalidRequest
from memlane.services.tools.context import IdentitySource, ToolContext
from memlane.services.tools.schemas import DESCRIPTIONS, SCHEMAS, TOOL_NAMES, openai_functions

#: the tools that only read memory: a read replica may serve them (api/common/read_routing.py)
READ_TOOLS = frozenset({"memory_search"})

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/v1/tools", tags=["agent tools"], dependencies=[Depends(authenticated)]
)


def tool_context(request: Request) -> ToolContext:
    """The caller (credentials, or with auth off the ``X-*`` headers, then the configured
    ``MEMORY_DEFAULT_*`` identity) and the project and org labels it works in; the context
    also records where the identity came from, for the ``identity`` of every result."""
    settings = get_services(request).settings
    claims = header_claims(request)
    defaults = {
        "agent_id": settings.defaults.agent_id,
        "user_id": settings.defaults.user_id,
        "session_id": settings.defaults.session_id,
    }
    viewer = viewer_of(request, resolve_tenant(request, None), claims, defaults=defaults)
    named = [d for d in DIMENSIONS if claims.given(d)]
    defaulted: tuple[str, ...] = ()
    source: IdentitySource = "credentials"
    if not viewer.authenticated:
        defaulted = tuple(NOUNS[d] for d in defaults if not claims.given(d))
        source = "headers" if named else "defaults"
    return ToolContext(
        viewer=viewer,
        project_id=header_name(request, "X-Project-Id"),
        org_id=header_name(request, "X-Org-Id"),
        source=source,
        defaulted=defaulted,
    )


@router.get(
    "", response_model=t.ToolList, summary="The tools with their JSON Schemas, also in OpenAI function-calling form"
)
async def list_tools() -> t.ToolList:
    return {
        "tools": [{"name": n, "description": DESCRIPTIONS[n], "inputSchema": SCHEMAS[n]} for n in TOOL_NAMES],
        "openai": openai_functions(),
    }


async def _call(name: str, request: Request, svc: ServicesDep) -> dict[str, Any]:
    ctx = tool_context(request)
    raw = await request.body()
    args: Any = {}
    if raw.strip():
        try:
            args = await request.json()
        except ValueError:
            raise InvalidRequest("request body is not valid JSON", code="INVALID_INPUT") from None
    return await svc.tools.call(name, args, ctx)


def _tool_route(name: str) -> None:
    async def call(request: Request, svc: ServicesDep) -> dict[str, Any]:
        return await _call(name, request, svc)

    router.add_api_route(
        f"/{name}",
        call,
        methods=["POST"],
        name=f"tool_{name}",
        response_model=t.ToolResult,
        summary=f"Call {name}; the body is its arguments object",
        description=DESCRIPTIONS[name],
        openapi_extra=request_body(name),
        dependencies=[RoutedRead] if name in READ_TOOLS else None,
    )


for _name in TOOL_NAMES:
    _tool_route(_name)


@router.post("/{name}", response_model=t.ToolResult, include_in_schema=False)
async def call_unknown_tool(name: str, request: Request, svc: ServicesDep) -> dict[str, Any]:
    """Any other name: the tool service's 404 naming the tools there are."""
    return await _call(name, request, svc)
