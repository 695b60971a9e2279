"""Who a request is: turn credentials, and what the request says about itself, into a ``Viewer``.

Least privilege, by one rule per identity field (agent, team, user, session):

* With auth on, a field the credentials carry is the caller's; the request may repeat it, and
  any other value is ``403 identity_mismatch``. A field the credentials do not carry cannot be
  claimed at all (``403 identity_mismatch``), so naming a team, an agent or a user never widens
  what a caller sees, except for a session under the user the caller acts for (a session only
  narrows). The admin role may name any identity; the manager role may act for a user (name a
  ``user_id``: the conversation surface's bodies require one), as a backend serving its users
  does. Naming two different values of a field the credentials leave open is refused too (the
  request would not say whom it acts for). The role is always the credentials' (no role: the
  user-facing agent); ``X-Agent-Role`` is ignored.
* With auth off, the request is taken at its word (the embedded, single-user default): the
  identity fields it names, then the surface's configured defaults, and ``X-Agent-Role``.

Team ids starting with ``memlane:`` are reserved (the system agents' team owns workspace
memory) and cannot be claimed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fastapi import Request

from memlane.api.common.auth import Principal, bind_tenant, is_reserved_tenant, principal_of
from memlane.domain.errors import Forbidden, InvalidRequest
from memlane.domain.inputs import MAX_NAME_LENGTH, MAX_TENANT_LENGTH, check_name
from memlane.domain.roles import ADMIN, MANAGER, canonical_role, credential_role
from memlane.domain.visibility import Viewer

RESERVED_TEAM_PREFIX = "memlane:"
DIMENSIONS = ("agent_id", "team_id", "user_id", "session_id")
NOUNS = {"agent_id": "agent", "team_id": "team", "user_id": "user", "session_id": "session"}
#: roles whose credentials, bound to no user, may act for any user of their tenant
ACTS_FOR_USERS = (ADMIN, MANAGER)


@dataclass(slots=True)
class Claims:
    """What a request says about who it is, per identity field, keyed by the name the caller
    used (``consumer_agent_id``, ``X-Team-Id``, ``context.agent.id``...) for error messages."""

    agent_id: Mapping[str, str | None] = field(default_factory=dict)
    team_id: Mapping[str, str | None] = field(default_factory=dict)
    user_id: Mapping[str, str | None] = field(default_factory=dict)
    session_id: Mapping[str, str | None] = field(default_factory=dict)

    def given(self, dimension: str) -> list[tuple[str, str]]:
        values: Mapping[str, str | None] = getattr(self, dimension)
        return [(name, v) for name, v in values.items() if v is not None and v != ""]


#: the identity headers every surface reads (the tools and layered specs name them)
IDENTITY_HEADERS: dict[str, str] = {
    "agent_id": "X-Agent-Id",
    "team_id": "X-Team-Id",
    "user_id": "X-User-Id",
    "session_id": "X-Session-Id",
}


def header_name(request: Request, header: str, max_length: int = MAX_NAME_LENGTH) -> str | None:
    """A name a request gives in a header (an identity, a project), stripped; None when absent
    or blank. Held to the rules of the same name in a body (domain/inputs.py): at most
    ``max_length`` characters and no control character (a header may carry a tab), else 400
    naming the header."""
    raw = request.headers.get(header)
    value = raw.strip() if raw else ""
    if not value:
        return None
    problem = None
    if len(value) > max_length:
        problem = f"must be at most {max_length} characters"
    else:
        try:
            check_name(value)
        except ValueError as exc:
            problem = str(exc)
    if problem is not None:
        raise InvalidRequest(f"{header}: {problem}", details={"field": header})
    return value


def header_claims(request: Request) -> Claims:
    """The identity a request states in its ``X-Agent-Id``/``X-Team-Id``/``X-User-Id``/
    ``X-Session-Id`` headers."""
    values: dict[str, dict[str, str | None]] = {}
    for dimension, header in IDENTITY_HEADERS.items():
        values[dimension] = {header: header_name(request, header)}
    return Claims(**values)


def resolve_tenant(request: Request, body_tenant: str | None, default: str) -> str:
    """Body ``tenant_id``, else ``X-Tenant-Id``, else the default; with auth on, the tenant
    bound to the credentials, which the request may repeat but never change."""
    requested = body_tenant
    if not requested:
        requested = header_name(request, "X-Tenant-Id", MAX_TENANT_LENGTH)
    if requested is not None and is_reserved_tenant(requested):
        raise InvalidRequest(
            "tenant ids starting with '_memlane' are reserved", code="reserved_tenant", details={"field": "tenant_id"}
        )
    return bind_tenant(principal_of(request), requested, default)


def viewer_of(
    request: Request,
    tenant_id: str,
    claims: Claims | None = None,
    *,
    defaults: Mapping[str, str | None] | None = None,
) -> Viewer:
    """The caller as a Viewer, from its credentials (auth on) or its own word (auth off)."""
    principal = principal_of(request)
    claims = claims or Claims()
    for name, value in claims.given("team_id"):
        if value.startswith(RESERVED_TEAM_PREFIX):
            raise InvalidRequest(
                f"{name}: team ids starting with {RESERVED_TEAM_PREFIX!r} are reserved",
                code="reserved_team",
                details={"field": name},
            )
    if principal.authenticated:
        return _from_credentials(principal, tenant_id, claims)
    values = {d: _first(claims.given(d)) or (defaults or {}).get(d) for d in DIMENSIONS}
    return Viewer(
        tenant_id=tenant_id,
        role=canonical_role(request.headers.get("x-agent-role")),
        authenticated=False,
        **values,
    )


def _from_credentials(principal: Principal, tenant_id: str, claims: Claims) -> Viewer:
    role = credential_role(principal.role)
    values: dict[str, str | None] = {}
    for dimension in DIMENSIONS:
        own: str | None = getattr(principal, dimension)
        given = claims.given(dimension)
        if own is not None:
            for name, value in given:
                if value != own:
                    raise _mismatch(name, f"{name} {value!r} does not match the identity bound to your credentials")
            values[dimension] = own
            continue
        if given and not _may_name(dimension, role, values):
            name = given[0][0]
            extra = " (or carry the admin or manager role)" if dimension == "user_id" else ""
            raise _mismatch(
                name,
                f"{name} names a {NOUNS[dimension]}, but your credentials carry none: a key or token must be "
                f"issued for that {NOUNS[dimension]}{extra}",
            )
        for name, value in given[1:]:
            if value != given[0][1]:
                raise _mismatch(name, f"{name} {value!r} differs from {given[0][0]} {given[0][1]!r}; name one")
        values[dimension] = _first(given)
    return Viewer(tenant_id=tenant_id, role=role, authenticated=True, **values)


def _may_name(dimension: str, role: str, settled: Mapping[str, str | None]) -> bool:
    """Whether credentials that leave ``dimension`` open may name it: the admin anything, the
    manager a user, anyone acting for a user a session (it only narrows within the user)."""
    if role == ADMIN:
        return True
    if dimension == "user_id":
        return role in ACTS_FOR_USERS
    return dimension == "session_id" and settled.get("user_id") is not None


def _first(given: list[tuple[str, str]]) -> str | None:
    return given[0][1] if given else None


def _mismatch(name: str, message: str) -> Forbidden:
    return Forbidden(message, code="identity_mismatch", details={"field": name})
