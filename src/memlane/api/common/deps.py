"""Typed request dependencies shared by the routers (full-stack-fastapi-template's style: an
``Annotated`` alias per dependency, declared as a parameter): services, credentials, the
current viewer, the default actor of a change, admission to the admin channel and to the debug
embeddings; and the helpers that need the body first (tenant, scope, quotas).

Quotas are counted in the route, after the body is validated: an invalid request costs the
caller nothing, and most bodies name the tenant whose bucket is counted."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Annotated, Literal

from fastapi import Depends, Request

from memlane.api.common import identity
from memlane.api.common.auth import Principal, principal_of
from memlane.domain.errors import Forbidden
from memlane.domain.visibility import Viewer
from memlane.services.container import Services

LOOPBACK_NAMES = {"localhost", "testclient"}


def get_services(request: Request) -> Services:
    svc: Services = request.app.state.services
    return svc


async def services(request: Request) -> Services:
    """Router dependency. ``async`` on purpose: FastAPI runs a plain ``def`` dependency on its
    thread pool, a thread hand-off on every request (seen in profiles of one-node writes)."""
    return get_services(request)


async def authenticated(request: Request) -> Principal:
    """Router dependency: credentials are checked before the body is even validated."""
    return principal_of(request)


ServicesDep = Annotated[Services, Depends(services)]
PrincipalDep = Annotated[Principal, Depends(authenticated)]

#: the per-tenant request buckets (services/quotas.py; settings ``MEMLANE_*_RPS`` / ``_BURST``)
Bucket = Literal["recall", "write", "debug_embeddings"]


def resolve_tenant(request: Request, body_tenant: str | None) -> str:
    return identity.resolve_tenant(request, body_tenant, get_services(request).settings.defaults.tenant_id)


def resolve_scope(request: Request, body_scope: str | None) -> str:
    return body_scope or get_services(request).settings.defaults.scope


def request_viewer(request: Request) -> Viewer:
    """The caller of a request whose body names no tenant: the credentials' identity, or with
    auth off the ``X-*`` headers, in the credentials' (or ``X-Tenant-Id``'s, or the default) tenant."""
    return identity.viewer_of(request, resolve_tenant(request, None), identity.header_claims(request))


async def current_viewer(request: Request) -> Viewer:
    return request_viewer(request)


async def request_tenant(request: Request) -> str:
    """The tenant of a request whose body names none (credentials, ``X-Tenant-Id``, default)."""
    return resolve_tenant(request, None)


CurrentViewer = Annotated[Viewer, Depends(current_viewer)]
RequestTenant = Annotated[str, Depends(request_tenant)]


class ActorDefault:
    """Who a change is recorded under (a commit's actor, a rule's state history): the actor the
    request names, else the credentials' agent; with auth off, or a key that carries no agent,
    nobody unless named. The rule of a graph write's commit too (services/writing.py ``authored``).
    The label is the caller's word: it names, it grants nothing."""

    def __init__(self, agent_id: str | None) -> None:
        self._agent_id = agent_id

    def of(self, named: str | None) -> str | None:
        """The actor of a request whose body names ``named`` (or none)."""
        return named or self._agent_id


async def actor_default(request: Request) -> ActorDefault:
    return ActorDefault(principal_of(request).agent_id)


#: the actor of a change when the request names none (``actor.of(body.actor)``)
CurrentActor = Annotated[ActorDefault, Depends(actor_default)]


async def quota(request: Request, bucket: Bucket, tenant_id: str) -> None:
    await get_services(request).quotas.hit(bucket, tenant_id)


async def admit_queued_write(request: Request, tenant_id: str) -> None:
    """For writes that queue background work: 503 + Retry-After once the backlog is at its
    bound and ``tenant_id`` holds its share of it (services/backlog.py)."""
    await get_services(request).backlog.admit(tenant_id)


def is_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def from_browser(request: Request) -> bool:
    """A browser sent it: it carries ``Origin`` or a ``Sec-Fetch-*`` header, which browsers add
    (every request of a current browser has ``Sec-Fetch-Site`` and ``Sec-Fetch-Mode``) and a
    page can neither forge nor remove."""
    return any(name == "origin" or name.startswith("sec-fetch-") for name in request.headers)


def admin_authorized(request: Request) -> bool:
    """``X-Admin-Token`` matching ``ADMIN_TOKEN``, compared in constant time.

    Only with auth off, outside production and with no token configured, is a loopback
    request admitted without one (the embedded quick start), and only when no browser sent it:
    a web page on the same machine sends from loopback too. With auth on the token is always
    needed: behind a reverse proxy on the same host every request comes from loopback, so the
    address proves nothing."""
    settings = get_services(request).settings
    given = request.headers.get("x-admin-token")
    if settings.security.admin_token:
        return given is not None and hmac.compare_digest(given.encode(), settings.security.admin_token.encode())
    if principal_of(request).authenticated:
        return False
    return not settings.server.is_production and is_loopback(request) and not from_browser(request)


#: why a caller the admin channel does not admit gets no embeddings (each surface its own code)
DEBUG_EMBEDDINGS_REFUSED = (
    "debug embeddings need X-Admin-Token matching ADMIN_TOKEN (with auth off and no token set, outside "
    "production, a loopback request)"
)


class DebugEmbeddingsGate:
    """The one gate of the debug channel's embeddings (docs/security.md): a caller the admin
    channel admits (``admin_authorized``) gets them, and each such request counts against the
    tenant's ``debug_embeddings`` bucket. Checked only when a request asks for embeddings."""

    def __init__(self, request: Request) -> None:
        self._request = request

    async def admit(self, tenant_id: str, *, code: str, field: str | None = None) -> None:
        """Refuse (403 ``code``: each surface keeps its documented one, ``debug_embeddings_forbidden``
        on the graph, ``embeddings_forbidden`` on the layers) unless admitted, then count it."""
        if not admin_authorized(self._request):
            raise Forbidden(DEBUG_EMBEDDINGS_REFUSED, code=code, details={"field": field} if field else None)
        await quota(self._request, "debug_embeddings", tenant_id)


async def debug_embeddings_gate(request: Request) -> DebugEmbeddingsGate:
    return DebugEmbeddingsGate(request)


DebugEmbeddingsAllowed = Annotated[DebugEmbeddingsGate, Depends(debug_embeddings_gate)]
