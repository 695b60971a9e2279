"""The reference model of docs/security.md ("Who sees what"), written from the tables there.

Nothing here is imported from ``src``: the suite holds the server to this model, so a change
to the server's rules that the documentation does not make fails the suite. The model knows
callers with authenticated credentials (auth on) only.

A memory is described by its *audience*, one column of the table:

* ``("shared",)``: the shared lane (conversation notes, layered identity/project memories,
  tool memories of the project/org/company layers, shared graph nodes and rules);
* ``("agent", a)`` / ``("team", t)``: private to an agent / to a team;
* ``("unowned",)``: private with no owner (the admin alone);
* ``("workspace",)``: the layered workspace, for system roles only;
* ``("user", u)`` / ``("session", u, s)``: personal memories of the agent tools;
* ``("tenant",)``: knowledge items, the tenant's documents;
* ``("task", agent, team)``: a conversation task and its submitter.

Besides its audience, a memory may be *attributed to a user* (``user``): the caller it was
written for acted for that user. Such a memory is that user's, whatever its audience: only a
caller acting for the user sees it, and the admin ("other users' memories", last but one
column). Conversation tasks and memory batcher buffers are attributed to the request's user
the same way; a batcher flush belongs to the buffer (``("shared",)`` of its user).

A rule is also *governed* (docs/rules.md, "Who may govern a rule"; docs/security.md): seeing
it lets a caller evaluate it and report outcomes; changing anything of it, moving its state or
deleting it takes the rights to govern it (``may_govern``), else ``403
rule_governance_required``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

SYSTEM_ROLES = frozenset({"planner", "analyst", "executor", "guardian", "manager"})
ADMIN = "admin"
RESERVED_TENANT_PREFIX = "_memlane"
RESERVED_TEAM_PREFIX = "memlane:"
DIMENSIONS = ("agent", "team", "user", "session")

Audience = tuple[str | None, ...]


@dataclass(frozen=True)
class Who:
    """One request's caller: the tenant and identity the server must act with."""

    tenant: str
    agent: str | None = None
    team: str | None = None
    user: str | None = None
    session: str | None = None
    role: str = "user_agent"

    @property
    def admin(self) -> bool:
        return self.role == ADMIN

    @property
    def system(self) -> bool:
        return self.role in SYSTEM_ROLES or self.admin


def may_see(who: Who, tenant: str, audience: Audience, user: str | None = None) -> bool:
    """The table, row by row: may ``who`` see a memory of ``tenant`` with ``audience``,
    attributed to ``user`` (None: to no user)?"""
    if tenant != who.tenant:
        return False  # "any caller of another tenant": nothing
    if who.admin:
        return True  # "key or token with role admin": every column
    if user is not None and who.user != user:
        return False  # "other users' memories": only a caller acting for that user
    kind = audience[0]
    if kind in ("shared", "tenant"):
        return True
    if kind == "agent":
        return who.agent is not None and who.agent == audience[1]
    if kind == "team":
        return who.team is not None and who.team == audience[1]
    if kind == "unowned":
        return False
    if kind == "workspace":
        return who.system  # "system roles only"
    if kind == "user":
        return who.user is not None and who.user == audience[1]
    if kind == "session":
        # "a session only narrows within the user": the session and, when both the caller and
        # the memory name a user, the same user
        user, session = audience[1], audience[2]
        return who.session is not None and who.session == session and (None in (who.user, user) or who.user == user)
    if kind == "task":
        # "visible to the agent (or team) that submitted them, and to the admin"; a task
        # submitted by neither is the tenant's (its notes are shared memory)
        agent, team = audience[1], audience[2]
        if agent is not None:
            return who.agent == agent
        if team is not None:
            return who.team == team
        return True
    raise ValueError(f"unknown audience {audience!r}")


@dataclass(frozen=True)
class RuleOwners:
    """Whom a rule belongs to: its producer agent, owner agent and owning team."""

    producer: str | None = None
    agent: str | None = None
    team: str | None = None


SYSTEM_AGENTS_TEAM = "memlane:system-agents"
#: the roles that govern every rule they can see
GOVERNING_ROLES = frozenset({ADMIN, "manager"})


def may_govern(who: Who, tenant: str, owners: RuleOwners) -> bool:
    """docs/rules.md: with auth on, the admin and manager roles, the rule's producer, its
    owner agent, and the members of its owning team (as for lanes: the credentials' team, and
    the system agents' team for system roles) govern a rule; a caller of another tenant
    governs nothing. The caller must also see the rule (``may_see``): a hidden rule is not
    found, whoever asks."""
    if tenant != who.tenant:
        return False
    if who.role in GOVERNING_ROLES:
        return True
    if who.agent is not None and who.agent in (owners.producer, owners.agent):
        return True
    teams = {who.team, SYSTEM_AGENTS_TEAM if who.system else None} - {None}
    return owners.team is not None and owners.team in teams


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str


def resolve(
    creds: Who, tenant_claim: str | None, claims: Mapping[str, tuple[str, ...]]
) -> tuple[Who, frozenset[Refusal]]:
    """The caller a request acts as, given its credentials and what it claims about itself
    (docs/security.md, "Where the identity comes from"), or the refusals it must get.

    ``claims`` maps a dimension to the values the request states on channels the surface
    reads (headers, body fields, context). Rules: the tenant is the credentials'; a request
    may repeat it, another is ``403 tenant_mismatch``, a reserved one ``400``. A dimension the
    credentials carry may be repeated, any other value is ``403 identity_mismatch``. One they
    do not carry cannot be claimed (``403``), except by the admin, except a user by the
    manager (it acts for users), and except a session under the user the caller acts for (a
    session only narrows). Two different values for one dimension are ``403`` as well.
    Reserved team ids are ``400``.
    """
    refusals: set[Refusal] = set()
    if tenant_claim is not None:
        if tenant_claim.startswith(RESERVED_TENANT_PREFIX):
            refusals.add(Refusal(400, "reserved_tenant"))
        elif tenant_claim != creds.tenant:
            refusals.add(Refusal(403, "tenant_mismatch"))
    who = creds
    for dim in DIMENSIONS:
        values = claims.get(dim, ())
        if not values:
            continue
        if dim == "team" and any(v.startswith(RESERVED_TEAM_PREFIX) for v in values):
            refusals.add(Refusal(400, "reserved_team"))
        own = getattr(creds, dim)
        if own is not None:
            if any(v != own for v in values):
                refusals.add(Refusal(403, "identity_mismatch"))
            continue
        acts_for_user = dim == "user" and creds.role in ("admin", "manager")
        narrows = dim == "session" and who.user is not None
        if not (creds.admin or acts_for_user or narrows) or len(set(values)) > 1:
            refusals.add(Refusal(403, "identity_mismatch"))
        else:
            who = replace(who, **{dim: values[0]})
    return (creds if refusals else who), frozenset(refusals)


def same_caller(a: Who, b: Who) -> bool:
    """docs/api-conversation.md: an ``Idempotency-Key`` is the caller's own, the caller being
    its tenant, agent, team, user and role; a session does not make another caller."""
    return (a.tenant, a.agent, a.team, a.user, a.role) == (b.tenant, b.agent, b.team, b.user, b.role)
