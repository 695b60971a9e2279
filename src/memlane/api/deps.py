"""Request-scoped dependencies shared by the routers: services, tenant, admin admission."""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import Request

from memlane.api.auth import Principal, bind_tenant, principal_of
from memlane.api.quotas import QuotaGuard
from memlane.domain.errors import InvalidRequest
from memlane.services.container import Services

RESERVED_TENANT_PREFIX = "_memlane"

LOOPBACK_NAMES = {"localhost", "testclient"}


def services(request: Request) -> Services:
    svc: Services = request.app.state.services
    return svc


def resolve_tenant(request: Request, body_tenant: str | None) -> str:
    """Body ``tenant_id``, else ``X-Tenant-Id``, else ``MEMORY_TENANT_ID``; with auth on, the
    tenant bound to the credentials, which the request may repeat but never change."""
    requested = body_tenant
    if not requested:
        header = request.headers.get("x-tenant-id")
        requested = header.strip() if header and header.strip() else None
    if requested is not None and requested.startswith(RESERVED_TENANT_PREFIX):
        # memlane keeps its own periodic jobs under such tenants; no client may act in them
        raise InvalidRequest(
            f"tenant ids starting with {RESERVED_TENANT_PREFIX!r} are reserved",
            code="reserved_tenant",
            details={"field": "tenant_id"},
        )
    return bind_tenant(principal_of(request), requested, services(request).settings.default_tenant_id)


async def authenticated(request: Request) -> Principal:
    """Router dependency: credentials are checked before the body is even validated."""
    return principal_of(request)


async def quota(request: Request, bucket: str, tenant_id: str) -> None:
    guard: QuotaGuard = request.app.state.quotas
    await guard.hit(bucket, tenant_id)


def resolve_scope(request: Request, body_scope: str | None) -> str:
    return body_scope or services(request).settings.default_scope


def is_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def admin_authorized(request: Request) -> bool:
    """``X-Admin-Token`` matching ``ADMIN_TOKEN``; or, with no token configured outside
    production, a request from loopback. Compared in constant time."""
    settings = services(request).settings
    given = request.headers.get("x-admin-token")
    if settings.admin_token:
        return given is not None and hmac.compare_digest(given.encode(), settings.admin_token.encode())
    return not settings.is_production and is_loopback(request)
