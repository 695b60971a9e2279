"""Which rules a caller may see: rule scope first, then memory lane (docs/api-graph.md).

Both filters run before conditions, so a rule the caller may not see never influences, and is
never named in, anything the caller gets back (including ``invalid_then_sample``).

Choices:

* Identity comes from ``context.agent.id`` (else ``context.agent_id``) and
  ``context.agent.team_id`` (else ``context.team_id``); only non-empty strings count.
* Scope: ``slots.rule_scope`` absent means ``global``. ``team``/``agent`` rules need their
  target id; a rule with an unknown ``rule_scope`` or a missing target is misconfigured and is
  filtered by scope (never applied to everyone by accident).
* Lane: the caller's reach, decided by the one visibility function
  (``domain/visibility.py``); the service passes it in. Without one (the pure engine on its
  own), the reach is that of an anonymous caller naming the context's agent and team: lanes
  apply as soon as an agent *or* team id is known, as the graph contract says. ``shared`` is
  visible, ``private`` is visible to its owner agent or owner team, and ``private`` without any
  owner (a legacy defect the write path now refuses) is never visible when lanes apply. Such
  rules are counted in ``legacy_unowned_private_detected`` whenever they are scanned; when
  lanes do not apply they stay visible and are also counted in
  ``legacy_unowned_private_visible``. With auth on, lanes always apply: a tenant-wide key
  sees shared rules only (``applied: true``, ``reason: missing_agent_context``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from memlane.domain.model import Node
from memlane.domain.visibility import Viewer, Visibility, visibility_of

RULE_SCOPES: Final = ("global", "team", "agent")
LaneReason = Literal["missing_agent_context", "enforced_agent_only", "enforced_team_only", "enforced_agent_team"]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class Identity:
    """The caller as rules see it, read from the planner context."""

    agent_id: str | None = None
    team_id: str | None = None

    @classmethod
    def from_context(cls, context: object) -> Identity:
        if not isinstance(context, Mapping):
            return cls()
        agent = context.get("agent")
        agent = agent if isinstance(agent, Mapping) else {}
        return cls(
            agent_id=_text(agent.get("id")) or _text(context.get("agent_id")),
            team_id=_text(agent.get("team_id")) or _text(context.get("team_id")),
        )

    def reach(self) -> Visibility:
        """The reach of an anonymous caller naming this identity (the engine used alone)."""
        return visibility_of(Viewer(tenant_id="", agent_id=self.agent_id, team_id=self.team_id))

    @property
    def lane_reason(self) -> LaneReason:
        if self.agent_id is not None and self.team_id is not None:
            return "enforced_agent_team"
        if self.agent_id is not None:
            return "enforced_agent_only"
        if self.team_id is not None:
            return "enforced_team_only"
        return "missing_agent_context"


@dataclass(frozen=True, slots=True)
class RuleScope:
    """A rule's normalized scope; ``scope`` is None when the slots are misconfigured."""

    scope: str | None
    target_team_id: str | None
    target_agent_id: str | None


def rule_scope_of(slots: Mapping[str, Any]) -> RuleScope:
    raw = slots.get("rule_scope")
    scope = "global" if raw is None else raw
    team, agent = _text(slots.get("target_team_id")), _text(slots.get("target_agent_id"))
    if scope not in RULE_SCOPES or (scope == "team" and team is None) or (scope == "agent" and agent is None):
        return RuleScope(None, team, agent)
    return RuleScope(str(scope), team, agent)


def scope_allows(scope: RuleScope, identity: Identity) -> bool:
    """Global rules apply to all; team/agent rules only to their target."""
    if scope.scope == "global":
        return True
    if scope.scope == "team":
        return identity.team_id is not None and identity.team_id == scope.target_team_id
    if scope.scope == "agent":
        return identity.agent_id is not None and identity.agent_id == scope.target_agent_id
    return False


def is_unowned_private(node: Node) -> bool:
    return node.memory_lane != "shared" and not node.owner_agent_id and not node.owner_team_id


def lane_allows(node: Node, reach: Visibility) -> bool:
    """Lane visibility of a rule node for the caller's reach."""
    return reach.can_see(node)


@dataclass(slots=True)
class VisibilityTally:
    """Counters behind ``agent_visibility_summary``; each scanned rule lands in one bucket."""

    scanned: int = 0
    filtered_by_scope: int = 0
    filtered_by_lane: int = 0
    filtered_by_condition: int = 0
    skipped_invalid_then: int = 0
    matched_active: int = 0
    matched_shadow: int = 0
    legacy_unowned_private_visible: int = 0
    legacy_unowned_private_detected: int = 0

    def summary(self, identity: Identity, *, lane_applied: bool) -> dict[str, Any]:
        """The ``agent_visibility_summary`` object, exactly as the contract shapes it."""
        return {
            "agent": {"id": identity.agent_id, "team_id": identity.team_id},
            "rule_scope": {
                "scanned": self.scanned,
                "filtered_by_scope": self.filtered_by_scope,
                "filtered_by_lane": self.filtered_by_lane,
                "filtered_by_condition": self.filtered_by_condition,
                "skipped_invalid_then": self.skipped_invalid_then,
                "matched_active": self.matched_active,
                "matched_shadow": self.matched_shadow,
            },
            "lane": {
                "applied": lane_applied,
                "reason": identity.lane_reason,
                "legacy_unowned_private_visible": self.legacy_unowned_private_visible,
                "legacy_unowned_private_detected": self.legacy_unowned_private_detected,
            },
        }
