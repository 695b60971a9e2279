"""What one reader may see inside its tenant, as a predicate on node columns.

The tenant itself is not here: every store call takes it first, so nothing crosses it. Inside
the tenant three rules apply, all at once, on every surface:

* **Lanes.** A ``shared`` node is visible to every reader of the tenant. A ``private`` node is
  visible to its owner agent and to the members of its owner team. A private node with no
  owner is visible to no one but an unrestricted reader. Lanes are not applied to an
  unrestricted reader (an admin, an offline job, or, as the graph contract asks, an
  anonymous reader who names no agent or team while auth is off).
* **Hidden layers.** A layer in ``hidden_layers`` is never visible (the workspace layer, for
  readers that are not system agents).
* **Personal layers.** ``user`` and ``session`` memories are visible only to the reader acting
  for that user or session.

Readers never build this themselves: ``services/visibility.py`` turns a caller into one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memlane.domain.filters import TRUE, Eq, In, Not, Term, all_of, any_of, matches

WORKSPACE_LAYER = "workspace"
USER_LAYER = "user"
SESSION_LAYER = "session"
PERSONAL_LAYERS: tuple[str, ...] = (USER_LAYER, SESSION_LAYER)
#: the reserved team that owns workspace memories; system agents read as its members
SYSTEM_AGENTS_TEAM = "memlane:system-agents"
#: the node columns the visibility term reads
VISIBILITY_COLUMNS: tuple[str, ...] = (
    "memory_lane",
    "owner_agent_id",
    "owner_team_id",
    "layer",
    "user_id",
    "session_id",
)


@dataclass(frozen=True, slots=True)
class Visibility:
    """A reader's reach inside its tenant; see the module docstring for the rules."""

    lanes_enforced: bool
    agent_id: str | None = None
    team_ids: tuple[str, ...] = ()
    hidden_layers: tuple[str, ...] = ()
    personal_enforced: bool = True
    user_id: str | None = None
    session_id: str | None = None

    def term(self) -> Term:
        return all_of(self._lane_term(), self._layer_term(), self._personal_term())

    def can_see(self, node: Any) -> bool:
        """The same rule as ``term()``, on a node (or row) already in memory."""
        return matches(self.term(), node)

    def _lane_term(self) -> Term:
        if not self.lanes_enforced:
            return TRUE
        parts: list[Term] = [Eq("memory_lane", "shared")]
        if self.agent_id is not None:
            parts.append(Eq("owner_agent_id", self.agent_id))
        if self.team_ids:
            parts.append(In("owner_team_id", self.team_ids))
        return any_of(*parts)

    def _layer_term(self) -> Term:
        return Not(In("layer", self.hidden_layers)) if self.hidden_layers else TRUE

    def _personal_term(self) -> Term:
        if not self.personal_enforced:
            return TRUE
        own: list[Term] = [Not(In("layer", PERSONAL_LAYERS))]
        if self.user_id is not None:
            own.append(all_of(Eq("layer", USER_LAYER), Eq("user_id", self.user_id)))
        if self.session_id is not None:
            own.append(all_of(Eq("layer", SESSION_LAYER), Eq("session_id", self.session_id)))
        return any_of(*own)


#: offline jobs (decay, consolidation, sync, expiry) act for the system, not for a reader
EVERYTHING = Visibility(lanes_enforced=False, personal_enforced=False)
