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
    print_config: Annotated[
        bool,
        typer.Option(
            "--print-config",
            help="print the mcpServers entry for Claude Desktop or another MCP client (absolute paths), "
            "with the other options given here, and exit",
        ),
    ] = False,
) -> None:
    """Serve the memory, knowledge and sync tools over MCP stdio (for Claude Desktop and other clients)."""
    if print_config:
        from memlane.cli.mcp_config import print_config as show

        given = {
            "--tenant": tenant, "--agent-id": agent_id, "--user-id": user_id, "--session-id": session_id,
            "--project-id": project_id, "--team-id": team_id, "--org-id": org_id, "--role": role,
        }  # fmt: skip
        show(Settings(), [part for flag, value in given.items() if value for part in (flag, value)])
        return
    from memlane.domain.roles import canonical_role
    from memlane.domain.visibility import Viewer
    from memlane.mcp.stdio import serve_stdio
    from memlane.services.tools.context import ToolContext

    settings = Settings()
    # the stdio server is a local process of its user: it acts for the identity it is started
    # with, as the HTTP surface does with auth off (defaults: MEMORY_DEFAULT_*)
    viewer = Viewer(
        tenant_id=tenant or settings.defaults.tenant_id,
        agent_id=agent_id or settings.defaults.agent_id,
        team_id=team_id,
        user_id=user_id or settings.defaults.user_id,
        session_id=session_id or settings.defaults.session_id,
        role=canonical_role(role),
    )
    named = {"agent": agent_id, "user": user_id, "session": session_id}
    defaulted = tuple(noun for noun, value in named.items() if not value)
    ctx = ToolContext(
        viewer=viewer,
        project_id=project_id,
        org_id=org_id,
        source="options" if len(defaulted) < len(named) or tenant or team_id else "defaults",
        defaulted=defaulted,
    )
    asyncio.run(serve_stdio(settings, ctx))
