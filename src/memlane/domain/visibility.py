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
  for that user or session; a session memory of another user stays hidden even to a reader
  naming its session id (a session only narrows within the user).
* **Users.** A memory attributed to a user (its ``user_id``: conversation notes, graph and
  layered memories written by a caller acting for the user, personal tool memories) is visible
  only to a reader acting for that user, whatever its lane; a memory attributed to no user
  follows the lanes alone. The rule holds for every authenticated reader but the admin (a key
  that acts for no user sees no user's memories), and, with auth off, once the request names a
  user. Things that are not nodes but belong to a user (conversation tasks, memory batcher
  buffers) are held to the same rule through ``Attribution``.

A caller is a ``Viewer``; ``visibility_of(viewer)`` is the one function that decides what it
may see. Every surface turns its request into a Viewer (api/common/identity.py: from the credentials,
or from the request itself when auth is off), and every read of memory asks this function
through ``services/reading.py``. The table it implements is in docs/security.md ("Who sees
what").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memlane.domain.filters import TRUE, Eq, In, Not, Term, all_of, any_of, matches
from memlane.domain.roles import ADMIN, USER_AGENT, canonical_role, is_system

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
    #: memories attributed to another user are hidden (off by default: ``visibility_of`` decides)
    users_enforced: bool = False

    def term(self) -> Term:
        return all_of(self._lane_term(), self._layer_term(), self._personal_term(), self._user_term())

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
            session: list[Term] = [Eq("layer", SESSION_LAYER), Eq("session_id", self.session_id)]
            if self.user_id is not None:
                # a session only narrows within the user: naming another user's session id
                # (X-Session-Id under a key that carries a user) must not open its memories
                session.append(any_of(Eq("user_id", self.user_id), Eq("user_id", None)))
            own.append(all_of(*session))
        return any_of(*own)

    def _user_term(self) -> Term:
        if not self.users_enforced:
            return TRUE
        if self.user_id is None:
            return Eq("user_id", None)
        return any_of(Eq("user_id", None), Eq("user_id", self.user_id))


#: offline jobs (decay, consolidation, sync, expiry) act for the system, not for a reader
EVERYTHING = Visibility(lanes_enforced=False, personal_enforced=False, users_enforced=False)


@dataclass(frozen=True, slots=True)
class Attribution:
    """The visibility columns of something that is not a node but is held to the same rule
    (a conversation task, a memory batcher buffer): ``Visibility.can_see`` reads it like a row."""

    memory_lane: str = "shared"
    owner_agent_id: str | None = None
    owner_team_id: str | None = None
    layer: str | None = None
    user_id: str | None = None
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class Viewer:
    """A caller inside its tenant.

    ``authenticated`` is true when the identity comes from verified credentials (auth on):
    lanes then always apply, so a key that carries no agent and no team sees shared memory
    only. With auth off, lanes apply once the request names an agent or a team, as the graph
    contract asks; without either, the request is an anonymous reader of the whole tenant
    (still not of workspace or personal memory).
    """

    tenant_id: str
    agent_id: str | None = None
    team_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    role: str = USER_AGENT
    authenticated: bool = False

    @property
    def admin(self) -> bool:
        return self.role == ADMIN

    @property
    def system(self) -> bool:
        return is_system(self.role)

    @property
    def actor(self) -> str:
        """How commits name this caller."""
        return self.agent_id or self.team_id or self.role

    def to_payload(self) -> dict[str, Any]:
        """For a job that acts on the caller's behalf later (the job keeps the caller's reach)."""
        return asdict(self)

    @classmethod
    def from_payload(cls, tenant_id: str, raw: object) -> Viewer:
        """The viewer a job was submitted with; a job without one (older rows) acts as an
        authenticated reader with no identity: shared memory only."""
        if not isinstance(raw, dict):
            return cls(tenant_id=tenant_id, authenticated=True)
        text = {k: raw.get(k) if isinstance(raw.get(k), str) and raw.get(k) else None for k in
                ("agent_id", "team_id", "user_id", "session_id")}  # fmt: skip
        return cls(
            tenant_id=tenant_id,
            role=canonical_role(raw.get("role") if isinstance(raw.get("role"), str) else None),
            authenticated=bool(raw.get("authenticated", True)),
            **text,
        )


def visibility_of(viewer: Viewer) -> Visibility:
    """The reach of ``viewer`` inside its tenant (docs/security.md, "Who sees what")."""
    if viewer.admin:
        return EVERYTHING
    system = viewer.system
    teams = tuple(t for t in (viewer.team_id, SYSTEM_AGENTS_TEAM if system else None) if t)
    return Visibility(
        lanes_enforced=viewer.authenticated or viewer.agent_id is not None or viewer.team_id is not None,
        agent_id=viewer.agent_id,
        team_ids=teams,
        hidden_layers=() if system else (WORKSPACE_LAYER,),
        personal_enforced=True,
        user_id=viewer.user_id,
        session_id=viewer.session_id,
        users_enforced=viewer.authenticated or viewer.user_id is not None,
    )
