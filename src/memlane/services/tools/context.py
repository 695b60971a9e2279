"""Who calls a tool: the caller's ``Viewer`` (tenant, agent, team, user, session, role: what it
may see) plus the project and org labels that tool memories of those layers carry.

HTTP callers send identifiers as headers (``X-Agent-Id``, ``X-User-Id``, ``X-Session-Id``,
``X-Project-Id``, ``X-Team-Id``, ``X-Org-Id``); with auth on, identity comes from the
credentials (api/common/identity.py); the stdio MCP server takes it from its command line.
Project and org are labels, not access boundaries: they narrow a search, they never widen it.

Every tool result carries ``identity`` (``identity_view``): whom the call acted for and where
that came from, so an agent that sent no identifiers can see which defaults it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memlane.domain.visibility import Viewer
from memlane.services.tools.results import IdentityView

#: where a call's identity came from: verified credentials (auth on), the request's ``X-*``
#: headers, the configured ``MEMORY_DEFAULT_*`` values, or ``memlane mcp``'s options
IdentitySource = Literal["credentials", "headers", "defaults", "options"]


@dataclass(frozen=True, slots=True)
class ToolContext:
    viewer: Viewer
    project_id: str | None = None
    org_id: str | None = None
    source: IdentitySource = "headers"
    #: identity fields (agent, user, session) filled from the configured defaults
    defaulted: tuple[str, ...] = ()

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

    def identity_view(self) -> IdentityView:
        v = self.viewer
        return {
            "tenant": v.tenant_id,
            "agent": v.agent_id,
            "user": v.user_id,
            "session": v.session_id,
            "team": v.team_id,
            "project": self.project_id,
            "org": self.org_id,
            "role": v.role,
            "source": self.source,
            "defaulted": list(self.defaulted),
        }


HEADER_FIELDS: dict[str, str] = {
    "agent_id": "x-agent-id",
    "user_id": "x-user-id",
    "session_id": "x-session-id",
    "project_id": "x-project-id",
    "team_id": "x-team-id",
    "org_id": "x-org-id",
}
