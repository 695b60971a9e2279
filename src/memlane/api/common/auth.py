"""Who is calling: API keys, HS256 JWTs, or nobody (auth off), resolved once per request.

A principal bound to a tenant can act only in that tenant; what it may claim beyond that is
decided in api/common/identity.py. Keys are compared as sha256 digests in constant time, and no key
or token ever reaches a log line or an error message. Tenants starting with ``_memlane`` are
reserved for memlane's own jobs: a key registry naming one does not start, a token naming
one is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

import jwt
from fastapi import Request

from memlane.config import Settings
from memlane.domain.errors import Forbidden, Unauthorized

SHA256_PREFIX = "sha256:"
#: memlane keeps its own periodic jobs under such tenants; no client may act in them
RESERVED_TENANT_PREFIX = "_memlane"


def is_reserved_tenant(tenant_id: str) -> bool:
    return tenant_id.startswith(RESERVED_TENANT_PREFIX)


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller. ``tenant_id`` is None only when auth is off (the request picks the tenant)."""

    method: str
    tenant_id: str | None = None
    agent_id: str | None = None
    team_id: str | None = None
    role: str | None = None
    user_id: str | None = None
    session_id: str | None = None

    @property
    def authenticated(self) -> bool:
        return self.method != "off"


ANONYMOUS = Principal(method="off")


@dataclass(frozen=True, slots=True)
class KeyEntry:
    digest: bytes
    principal: Principal


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def parse_key_registry(raw: str | None) -> list[KeyEntry]:
    """``{"<key>" or "sha256:<hex of key>": {tenant_id, agent_id?, team_id?, role?, user_id?,
    session_id?}}``."""
    if not raw:
        return []
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"MEMORY_API_KEYS_JSON is not valid JSON: {exc.msg} at position {exc.pos}") from None
    if not isinstance(data, dict):
        raise ValueError("MEMORY_API_KEYS_JSON must be a JSON object mapping keys to identities")
    entries: list[KeyEntry] = []
    for n, (key, ident) in enumerate(data.items()):
        if not isinstance(ident, dict) or not isinstance(ident.get("tenant_id"), str) or not ident["tenant_id"]:
            raise ValueError(f"MEMORY_API_KEYS_JSON entry #{n + 1} needs a non-empty tenant_id")
        if is_reserved_tenant(ident["tenant_id"]):
            raise ValueError(
                f"MEMORY_API_KEYS_JSON entry #{n + 1}: tenant ids starting with {RESERVED_TENANT_PREFIX!r} are reserved"
            )
        if key.startswith(SHA256_PREFIX):
            hexpart = key[len(SHA256_PREFIX) :].lower()
            if len(hexpart) != 64 or any(c not in "0123456789abcdef" for c in hexpart):
                raise ValueError(f"MEMORY_API_KEYS_JSON entry #{n + 1}: sha256: must be followed by 64 hex digits")
            digest = bytes.fromhex(hexpart)
        else:
            digest = _digest(key)
        entries.append(
            KeyEntry(
                digest,
                Principal(
                    method="api_key",
                    tenant_id=ident["tenant_id"],
                    agent_id=_opt(ident, "agent_id"),
                    team_id=_opt(ident, "team_id"),
                    role=_opt(ident, "role"),
                    user_id=_opt(ident, "user_id"),
                    session_id=_opt(ident, "session_id"),
                ),
            )
        )
    return entries


def _opt(d: dict[str, Any], key: str) -> str | None:
    value = d.get(key)
    return str(value) if value not in (None, "") else None


class Authenticator:
    def __init__(self, settings: Settings):
        self.mode = settings.security.auth_mode
        self.keys = parse_key_registry(settings.security.api_keys_json)
        self.secret = settings.security.jwt_hs256_secret
        self.leeway = settings.security.jwt_clock_skew_sec
        self.required_claims = ["exp"] if settings.security.jwt_require_exp else []
        if self.mode in ("api_key", "api_key_or_jwt") and not self.keys:
            raise ValueError(f"MEMORY_AUTH_MODE={self.mode} needs MEMORY_API_KEYS_JSON with at least one key")
        if self.mode in ("jwt", "api_key_or_jwt") and not self.secret:
            raise ValueError(f"MEMORY_AUTH_MODE={self.mode} needs MEMORY_JWT_HS256_SECRET")

    def authenticate(self, api_key: str | None, authorization: str | None) -> Principal:
        if self.mode == "off":
            return ANONYMOUS
        accepts_key = self.mode in ("api_key", "api_key_or_jwt")
        accepts_jwt = self.mode in ("jwt", "api_key_or_jwt")
        if api_key is not None and accepts_key:
            return self._by_key(api_key)
        bearer = _bearer(authorization)
        if bearer is not None and accepts_jwt:
            return self._by_jwt(bearer)
        wanted = {
            "api_key": "X-Api-Key",
            "jwt": "Authorization: Bearer <jwt>",
            "api_key_or_jwt": "X-Api-Key or Authorization: Bearer <jwt>",
        }[self.mode]
        raise Unauthorized(f"missing credentials: send {wanted}", code="unauthorized")

    def _by_key(self, key: str) -> Principal:
        given = _digest(key)
        found: Principal | None = None
        for entry in self.keys:  # every entry is compared, so timing says nothing about which matched
            if hmac.compare_digest(given, entry.digest):
                found = entry.principal
        if found is None:
            raise Unauthorized("invalid API key", code="invalid_api_key")
        return found

    def _by_jwt(self, token: str) -> Principal:
        assert self.secret is not None
        try:
            claims = jwt.decode(
                token,
                self.secret,
                algorithms=["HS256"],
                leeway=self.leeway,
                options={"require": self.required_claims, "verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthorized("token has expired", code="token_expired") from None
        except jwt.ImmatureSignatureError:
            raise Unauthorized("token is not valid yet (nbf)", code="token_not_yet_valid") from None
        except jwt.MissingRequiredClaimError as exc:
            raise Unauthorized(
                f"token has no {exc.claim!r} claim (MEMORY_JWT_REQUIRE_EXP)", code="invalid_token"
            ) from None
        except jwt.InvalidTokenError as exc:
            raise Unauthorized(f"invalid token: {type(exc).__name__}", code="invalid_token") from None
        tenant = claims.get("tenant_id") or claims.get("tenant")
        if not isinstance(tenant, str) or not tenant:
            raise Unauthorized("token has no tenant_id (or tenant) claim", code="invalid_token")
        if is_reserved_tenant(tenant):
            raise Unauthorized(
                f"token names a reserved tenant (ids starting with {RESERVED_TENANT_PREFIX!r})", code="invalid_token"
            )
        return Principal(
            method="jwt",
            tenant_id=tenant,
            agent_id=_opt(claims, "agent_id") or _opt(claims, "sub"),
            team_id=_opt(claims, "team_id"),
            role=_opt(claims, "role"),
            user_id=_opt(claims, "user_id"),
            session_id=_opt(claims, "session_id"),
        )


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def principal_of(request: Request) -> Principal:
    """Authenticate once per request; the result is kept on ``request.state``."""
    cached = getattr(request.state, "principal", None)
    if isinstance(cached, Principal):
        return cached
    auth: Authenticator = request.app.state.authenticator
    principal = auth.authenticate(request.headers.get("x-api-key"), request.headers.get("authorization"))
    request.state.principal = principal
    return principal


def bind_tenant(principal: Principal, requested: str | None, default: str) -> str:
    """The tenant a request acts in: the bound one, which a request may repeat but not change."""
    if principal.tenant_id is None:
        return requested or default
    if requested and requested != principal.tenant_id:
        raise Forbidden(
            f"tenant {requested!r} does not match the tenant bound to your credentials",
            code="tenant_mismatch",
            details={"field": "tenant_id"},
        )
    return principal.tenant_id
