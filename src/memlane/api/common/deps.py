"""Typed request dependencies shared by the routers: services, credentials, tenant, scope,
quotas, and admission to the admin channel."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Annotated

from fastapi import Depends, Request

from memlane.api.common import identity
from memlane.api.common.auth import Principal, principal_of
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


def resolve_tenant(request: Request, body_tenant: str | None) -> str:
    return identity.resolve_tenant(request, body_tenant, get_services(request).settings.default_tenant_id)


def resolve_scope(request: Request, body_scope: str | None) -> str:
    return body_scope or get_services(request).settings.default_scope


async def quota(request: Request, bucket: str, tenant_id: str) -> None:
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
    if settings.admin_token:
        return given is not None and hmac.compare_digest(given.encode(), settings.admin_token.encode())
    if principal_of(request).authenticated:
        return False
    return not settings.is_production and is_loopback(request) and not from_browser(request)
