"""``memlane mcp``: serve the agent tools over MCP stdio (see docs/agents.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from memlane.config import Settings


def mcp(
    tenant: Annotated[str | None, typer.Option(help="tenant to act in", envvar="MEMLANE_MCP_TENANT_ID")] = None,
    agent_id: Annotated[str | None, typer.Option(help="agent identifier", envvar="MEMLANE_MCP_AGENT_ID")] = None,
    user_id: Annotated[str | None, typer.Option(help="user identifier", envvar="MEMLANE_MCP_USER_ID")] = None,
    session_id: Annotated[str | None, typer.Option(help="session identifier", envvar="MEMLANE_MCP_SESSION_ID")] = None,
    project_id: Annotated[str | None, typer.Option(help="project identifier", envvar="MEMLANE_MCP_PROJECT_ID")] = None,
    team_id: Annotated[str | None, typer.Option(help="team identifier", envvar="MEMLANE_MCP_TEAM_ID")] = None,
    org_id: Annotated[str | None, typer.Option(help="organization identifier", envvar="MEMLANE_MCP_ORG_ID")] = None,
    role: Annotated[str | None, typer.Option(help="agent role", envvar="MEMLANE_MCP_ROLE")] = None,
) -> None:
    """Serve the memory, knowledge and sync tools over MCP stdio (for Claude Desktop and other clients)."""
    from memlane.mcp.stdio import serve_stdio
    from memlane.services.tools.context import ToolContext

    settings = Settings()
    ctx = ToolContext(
        tenant_id=tenant or settings.default_tenant_id,
        agent_id=agent_id,
        user_id=user_id,
        session_id=session_id,
        project_id=project_id,
        team_id=team_id,
        org_id=org_id,
        role=role,
    )
    asyncio.run(serve_stdio(settings, ctx))
