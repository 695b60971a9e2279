"""Who calls a tool: the caller's ``Viewer`` (tenant, agent, team, user, session, role: what it
may see) plus the project and org labels that tool memories of those layers carry.

HTTP callers send identifiers as headers (``X-Agent-Id``, ``X-User-Id``, ``X-Session-Id``,
``X-Project-Id``, ``X-Team-Id``, ``X-Org-Id``); with auth on, identity comes from the
credentials (api/identity.py); the stdio MCP server takes it from its command line.
Project and org are labels, not access boundaries: they narrow a search, they never widen it.
"""

from __future__ import annotations

from dataclasses import dataclass

from memlane.domain.visibility import Viewer


@dataclass(frozen=True, slots=True)
class ToolContext:
    viewer: Viewer
    project_id: str | None = None
    org_id: str | None = None

    @property
    def tenant_id(self) -> str:
        return self.viewer.tenant_id

    @property
    def agent_id(self) -> str | None:
        return self.viewer.agent_id

    @property
    def user_id(self) -> str | None:
        return self.viewer.user_id

    @property
    def session_id(self) -> str | None:
        return self.viewer.session_id

    @property
    def team_id(self) -> str | None:
        return self.viewer.team_id

    @property
    def actor(self) -> str:
        return self.viewer.agent_id or self.viewer.role or "tool-caller"


HEADER_FIELDS: dict[str, str] = {
    "agent_id": "x-agent-id",
    "user_id": "x-user-id",
    "session_id": "x-session-id",
    "project_id": "x-project-id",
    "team_id": "x-team-id",
    "org_id": "x-org-id",
}
