"""The roles a caller can hold, and how their spellings map onto them.

A role comes from the credentials (API key registry or JWT ``role``), or, with auth off, from
the ``X-Agent-Role`` header. No role means the user-facing agent: the least-privileged role,
so a forgotten header or claim never opens more than the least.
"""

from __future__ import annotations

from memlane.domain.errors import InvalidRequest

USER_AGENT = "user_agent"
MANAGER = "manager"
#: the tenant's administrator: sees every lane and layer of its tenant, may erase and export
ADMIN = "admin"
#: every spelling of the user-facing chat agent; all map to ``user_agent``
USER_FACING_ALIASES: frozenset[str] = frozenset({"user_agent", "user", "chat", "user_chat", "assistant"})
#: agents that work behind the user (the layered spec's system agents)
SYSTEM_ROLES: tuple[str, ...] = ("planner", "analyst", "executor", "guardian", MANAGER)
ACCEPTED_ROLES: tuple[str, ...] = (USER_AGENT, *SYSTEM_ROLES, ADMIN)


def canonical_role(raw: str | None) -> str:
    """The role name the rules use; ``None`` or empty means the user-facing agent.

    An unknown spelling is a 400 naming the field: guessing would either lock a system agent
    out or let a typo in."""
    if raw is None or not raw.strip():
        return USER_AGENT
    role = raw.strip().lower()
    if role in USER_FACING_ALIASES:
        return USER_AGENT
    if role in SYSTEM_ROLES or role == ADMIN:
        return role
    accepted = sorted(USER_FACING_ALIASES | set(SYSTEM_ROLES) | {ADMIN})
    raise InvalidRequest(
        f"unknown agent role {raw!r}; accepted: {', '.join(accepted)}",
        code="invalid_role",
        details={"field": "role"},
    )


def credential_role(raw: str | None) -> str:
    """The role of verified credentials: an unknown role there is an operator's choice we do
    not understand, so it gets the least privilege rather than failing every request."""
    try:
        return canonical_role(raw)
    except InvalidRequest:
        return USER_AGENT


def is_system(role: str) -> bool:
    """System agents (and the admin) may read and write workspace memory."""
    return role in SYSTEM_ROLES or role == ADMIN
