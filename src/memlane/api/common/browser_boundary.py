"""What a web browser may do with memlane, decided for every request before any route runs.

With auth off (the quick start) memlane trusts whoever reaches it; a web page open in a browser
on the same machine reaches it too. This layer keeps such pages out, in one place for every
surface (graph, conversation, layers, tools, admin, ``/mcp``, ``/ui``):

1. **Host** (DNS rebinding): a request whose ``Host`` is not one memlane answers to is refused,
   ``421 host_not_allowed`` (``domain/browser_policy.py``'s ``HostPolicy``). ``/health`` is exempt: probes
   (Kubernetes sends the pod's IP as ``Host``) must reach it, and it reads nothing of a tenant.
2. **Origin** (cross-site requests): a state-changing request (any method but GET, HEAD,
   OPTIONS) that a browser marks as coming from another origin (``Origin``, or when that is
   absent ``Sec-Fetch-Site: cross-site`` / ``same-site``) is refused, ``403
   cross_origin_forbidden``, unless ``MEMLANE_CORS_ORIGINS`` names that origin.
3. **Media type**: a body must be of the type the endpoint documents: JSON
   (``application/json``) everywhere, JSONL (``application/x-ndjson`` or ``application/jsonl``)
   for ``POST /v1/admin/import``; anything else, a missing type included, is ``415
   unsupported_media_type``. This is what makes a page's POST need a CORS preflight: the types
   a page may send without one (``text/plain``, forms) are never accepted.
4. **Response headers**: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``
   (not ``no-referrer``: under it a browser sends ``Origin: null`` on the UI's own POSTs) and
   ``X-Frame-Options: DENY`` on every answer; ``/ui`` adds a Content-Security-Policy that runs
   only the UI's own scripts and styles and forbids framing.

Refusals are in the surface's error envelope (``errors.render``). Plain ASGI, like
``edge_middleware.py``: no extra task per request.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memlane.api.common.errors import render
from memlane.domain.browser_policy import BrowserPolicy, OriginPolicy, same_origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: answered whatever the Host: liveness and readiness probes
HOST_EXEMPT_PATHS = frozenset({"/health"})

JSON_TYPES = ("application/json",)
JSONL_TYPES = ("application/x-ndjson", "application/jsonl")
#: the endpoints whose body is not JSON, with the media types they take (the OpenAPI document
#: states the same, openapi.py)
BODY_TYPES: dict[str, tuple[str, ...]] = {"/v1/admin/import": JSONL_TYPES}

UI_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_COMMON_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]
_UI_HEADERS = [*_COMMON_HEADERS, (b"content-security-policy", UI_CSP.encode())]


#: response headers a page on an allowed origin may read besides the CORS-safelisted ones
EXPOSED_HEADERS = ("retry-after", "server-timing", "content-disposition", "allow")


def add_cors(app: FastAPI, origins: OriginPolicy) -> None:
    """CORS for the origins of ``MEMLANE_CORS_ORIGINS`` (Starlette's middleware answers their
    preflights): every method and request header, so an allowed page can call any endpoint
    as an API client does. No credentials mode: memlane's credentials are headers, never
    cookies, so ``*`` never makes a browser send anything it would not send anyway."""
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["*"] if origins.any_origin else sorted(origins.origins),
        allow_methods=["*"],
        allow_headers=["*"],
        expose_headers=EXPOSED_HEADERS,
        allow_private_network=True,
    )


def accepted_media_types(path: str) -> tuple[str, ...]:
    return BODY_TYPES.get(path, JSON_TYPES)


def media_type(content_type: str | None) -> str | None:
    """``"Application/JSON; charset=utf-8"`` -> ``"application/json"``; parameters such as the
    charset are accepted and not read (JSON and JSONL are UTF-8)."""
    if content_type is None:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def is_ui(path: str) -> bool:
    return path == "/ui" or path.startswith("/ui/")


class BrowserBoundary:
    def __init__(self, app: ASGIApp, *, policy: BrowserPolicy):
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        extra = _UI_HEADERS if is_ui(path) else _COMMON_HEADERS

        async def send_hardened(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        refusal = self.refusal(scope, path)
        if refusal is not None:
            await refusal(scope, receive, send_hardened)
            return
        await self.app(scope, receive, send_hardened)

    def refusal(self, scope: Scope, path: str) -> Response | None:
        headers = _headers(scope)
        host = headers.get("host")
        if path not in HOST_EXEMPT_PATHS:
            server = scope.get("server")
            port = server[1] if server else None
            if not self.policy.hosts.allows(host, port, scope.get("scheme", "http")):
                shown = repr(host[:200]) if host else "(none)"
                return render(
                    path,
                    421,
                    "host_not_allowed",
                    f"this server does not answer to Host {shown}: it answers to localhost, 127.0.0.1 and [::1] "
                    f"on {f'port {port}' if port else 'its own port'} and to the hosts in MEMLANE_ALLOWED_HOSTS",
                )
        method: str = scope["method"]
        if method in SAFE_METHODS:
            return None
        cross = self.cross_site(headers, host or "")
        if cross is not None:
            return render(path, 403, "cross_origin_forbidden", f"{method} {cross}")
        if _has_body(headers):
            accepted = accepted_media_types(path)
            given = headers.get("content-type")
            if media_type(given) not in accepted:
                return render(
                    path,
                    415,
                    "unsupported_media_type",
                    f"this endpoint takes a body of type {' or '.join(accepted)}, not {given or 'an untyped body'}",
                )
        return None

    def cross_site(self, headers: dict[str, str], host: str) -> str | None:
        """Why a state-changing request is refused as cross-site, or None. Browsers send
        ``Origin`` with every such request (and pages cannot forge it or ``Sec-Fetch-*``);
        clients that are not browsers send neither and are not concerned."""
        origin = headers.get("origin")
        if origin is not None:
            if same_origin(origin, host) or self.policy.origins.allows(origin):
                return None
            return (
                f"from the web page at {origin[:200]!r} is refused: only memlane's own pages and the origins in "
                "MEMLANE_CORS_ORIGINS may change anything"
            )
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return f"from a {site} web page is refused: only memlane's own pages may change anything"
        return None


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length")
    if length is not None:
        return length.strip() != "0"
    return "transfer-encoding" in headers


#: the request headers the boundary reads (ASGI names are lower case)
_READ = frozenset({b"host", b"origin", b"sec-fetch-site", b"content-type", b"content-length", b"transfer-encoding"})


def _headers(scope: Scope) -> dict[str, str]:
    """The headers the boundary reads, by name (the first of repeated ones)."""
    found: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        if key in _READ:
            found.setdefault(key.decode(), value.decode("latin-1"))
    return found
