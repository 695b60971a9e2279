"""MCP over streamable HTTP at ``/mcp`` on the API server, sharing its services and auth.

Stateless mode (every POST is self-contained) with JSON responses, so any API replica can
serve any request. Credentials are checked before the MCP layer sees the request (a failure
is a 401 in the ToolError envelope); inside a tool call the tenant and identifiers come from
the same headers as ``POST /v1/tools/{name}``.

Browsers: the app's browser boundary (browser_boundary.py) checks ``/mcp`` like every other
path (Host, Origin, JSON bodies). The MCP SDK's own DNS-rebinding protection runs behind it
with the same lists (``transport_security``), as a second line should the endpoint ever be
served without the boundary.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from memlane.api.common.auth import principal_of
from memlane.api.common.errors import render
from memlane.api.common.route_labels import LabelledRoute
from memlane.domain.browser_policy import DEFAULT_PORTS, LOOPBACK_NAMES, BrowserPolicy
from memlane.domain.errors import MemlaneError, ServiceUnavailable
from memlane.mcp.server import build_server
from memlane.services.tools.context import ToolContext
from memlane.services.tools.service import ToolService

PATH = "/mcp"


async def _resolve(ctx: ServerRequestContext[Any, Any]) -> tuple[ToolService, ToolContext]:
    from memlane.api.tools.routes import tool_context

    request = ctx.request
    if not isinstance(request, Request):
        raise ServiceUnavailable("MCP over HTTP needs the HTTP request of the call")
    return request.app.state.services.tools, tool_context(request)


class _AuthenticatedMCP:
    """ASGI endpoint: authenticate, then hand the request to the session manager."""

    def __init__(self, manager: StreamableHTTPSessionManager):
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            principal_of(request)
        except MemlaneError as exc:
            response = render(PATH, exc.status, exc.code, exc.message, exc.details)
            await response(scope, receive, send)
            return
        # host names are case-insensitive (RFC 9110) and the boundary compares them so; the
        # SDK's transport security compares exactly
        headers = [(k, v.lower() if k == b"host" else v) for k, v in scope.get("headers", [])]
        await self.manager.handle_request({**scope, "headers": headers}, receive, send)


def transport_security(policy: BrowserPolicy) -> TransportSecuritySettings:
    """The SDK's Host and Origin checks with memlane's allowed hosts and origins.

    The SDK matches exact values or ``name:*`` (any port), and knows neither the port the
    server listens on (the loopback names get ``:*``; the boundary in front checks the port) nor
    a wildcard host or origin: with ``*`` in ``MEMLANE_ALLOWED_HOSTS`` or
    ``MEMLANE_CORS_ORIGINS`` its check is off, as the operator asked for."""
    if policy.hosts.any_host or policy.origins.any_origin:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts: list[str] = []
    for name in LOOPBACK_NAMES:
        hosts += [name, f"{name}:*"]
    for entry in policy.hosts.entries:
        hosts += [f"{entry.name}:{entry.port}"] if entry.port is not None else [entry.name, f"{entry.name}:*"]
    # a page served by memlane itself (same origin) has one of those hosts as its origin
    origins = [f"{scheme}://{host}" for scheme in DEFAULT_PORTS for host in hosts]
    origins += sorted(policy.origins.origins)
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


def mount_mcp(app: FastAPI, policy: BrowserPolicy) -> None:
    """Add ``/mcp`` and run the session manager inside the app's lifespan."""
    manager = StreamableHTTPSessionManager(
        app=build_server(_resolve), json_response=True, stateless=True, security_settings=transport_security(policy)
    )
    endpoint = _AuthenticatedMCP(manager)
    app.router.routes.append(LabelledRoute(PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"]))
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state, manager.run():
            yield state

    app.router.lifespan_context = lifespan
