"""Who may govern a rule: change what it is, move its state, delete it (docs/rules.md, section 2).

Seeing a rule and governing it are two rights. Visibility (``domain/visibility.py``) decides
who sees a rule: who gets its policy, reads it, and reports outcomes on it through the
feedback endpoints (feedback is how agents say what a rule did for them, so it stays open to
everyone who sees the rule). Governing is narrower, and this module is the one place that
decides it; every path that changes a stored rule asks it: a write of any surface (from the
store's write plan, through ``rules/lifecycle.py``, under the scope's write lock),
``rules/state``, and the one surface that deletes nodes of any type (the conversation
surface's delete).

Choices:

* **Who governs, with auth on**: the ``admin`` and ``manager`` roles (the layered spec has
  the Manager Agent keep the tenant's durable shared memory: identity and project writes
  "must come from Manager Agent"; no other role is given a say over policy, so ``guardian``
  and the other system roles are not added), the rule's producer agent
  (``producer_agent_id``: its author), its owner agent (``owner_agent_id``), and the members of
  its owning team (``owner_team_id``, membership as visibility counts it: the credentials'
  team, and the reserved system agents' team for system roles). Roles govern only what they
  can see: a rule hidden from a caller is not found, as before.
* **Judged on the stored rule**, never on the write's version of it, so a write naming its
  author as owner or producer cannot hand itself the rights it needs to be accepted; and
  changing the owners or producer is itself governing.
* **Any change is governing.** Not only the definition (``if``, ``then``, scope, lane,
  owners) and the state: a rule's tier, validity, expiry, layer, user, title or summary decide
  whether it is kept, found or read right, so a caller who may not govern a rule may not
  change anything of it. A write that sends a rule back as stored (a read-modify-write that
  changes nothing) is not a change and is accepted.
* **Creating a rule is open** to any writer of the lane: it starts as a draft (or shadow),
  and its writer is its producer and, unless the write names others, its owner; promoting it
  to active is ``rules/state``, with these rights.
* **Auth off**: every caller governs every rule it can see. The request is taken at its word,
  as everywhere with auth off, and its word could name any owner or the ``manager`` role
  (``X-Agent-Role``, which the layered surface honours with auth off): a check would refuse
  honest callers only and stop nobody, so none is made, and ``X-Agent-Role`` plays no part
  here. Deployments where agents must not govern each other's rules run with auth on.
* **The system** (ingestion and lifecycle jobs, an import, which needs the admin role) acts
  for no caller and governs every rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from memlane.domain.errors import Forbidden
from memlane.domain.model import Node
from memlane.domain.roles import ADMIN, MANAGER
from memlane.domain.visibility import Viewer, visibility_of

#: roles that govern every rule they can see
GOVERNING_ROLES: Final = (ADMIN, MANAGER)
RULE_GOVERNANCE_REQUIRED: Final = "rule_governance_required"


@dataclass(frozen=True, slots=True)
class RuleRights:
    """What one caller may govern; ``every_rule`` for a governing role, auth off and the system."""

    every_rule: bool
    agent_id: str | None = None
    team_ids: tuple[str, ...] = ()

    def may_govern(self, rule: Node) -> bool:
        """``rule`` as stored: its producer, owner agent or owning team is the caller's."""
        if self.every_rule:
            return True
        if self.agent_id is not None and self.agent_id in (rule.producer_agent_id, rule.owner_agent_id):
            return True
        return rule.owner_team_id is not None and rule.owner_team_id in self.team_ids

    def require(self, rule: Node, *, field: str, action: str) -> None:
        """Raise ``403 rule_governance_required`` naming ``field`` unless the caller governs
        ``rule``; ``action`` says what was refused ("change slots.then", "move it to active")."""
        if self.may_govern(rule):
            return
        raise Forbidden(
            f"{field}: only the rule's producer, its owner agent, members of its owning team, and the "
            f"manager and admin roles may {action} (rule {rule.id}); you may evaluate it and send feedback "
            "with POST /v1/memory/feedback",
            code=RULE_GOVERNANCE_REQUIRED,
            details={"field": field, "rule_node_id": rule.id},
        )


#: auth off and the system itself
EVERY_RULE: Final = RuleRights(every_rule=True)


def rule_rights_of(viewer: Viewer | None) -> RuleRights:
    """The rules ``viewer`` may govern (see the module docstring); None is the system."""
    if viewer is None or not viewer.authenticated or viewer.role in GOVERNING_ROLES:
        return EVERY_RULE
    return RuleRights(every_rule=False, agent_id=viewer.agent_id, team_ids=visibility_of(viewer).team_ids)


__all__ = ["EVERY_RULE", "GOVERNING_ROLES", "RULE_GOVERNANCE_REQUIRED", "RuleRights", "rule_rights_of"]
