"""Who calls a tool, and the identifiers that bind memories to an agent, user, session, project,
team or org. HTTP callers send them as headers (``X-Agent-Id``, ``X-User-Id``,
``X-Session-Id``, ``X-Project-Id``, ``X-Team-Id``, ``X-Org-Id``); credentials bound to an
agent or team override the headers; the stdio MCP server takes them from its command line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolContext:
    tenant_id: str
    agent_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    project_id: str | None = None
    team_id: str | None = None
    org_id: str | None = None
    role: str | None = None

    @property
    def actor(self) -> str:
        return self.agent_id or self.role or "tool-caller"


HEADER_FIELDS: dict[str, str] = {
    "agent_id": "x-agent-id",
    "user_id": "x-user-id",
    "session_id": "x-session-id",
    "project_id": "x-project-id",
    "team_id": "x-team-id",
    "org_id": "x-org-id",
}
