"""Each surface answers errors in its own envelope; this is the one place that decides which.

graph (``/v1/memory``): ``{"error", "message", "details"?}``; conversation (``/api/v1``):
``{"detail"}``; layered (``/v1/layers``): ``{"success": false, "error_type", "message"}``; tools
(``/v1/tools``): ``{"success": false, "errorCode", "message", "details"?, "retryable"}``.
Operator endpoints (``/metrics``, ``/v1/admin``) and everything else answer the graph's
plain ``{"error", "message"}``.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memlane.api.common.body import InputRefused
from memlane.domain.errors import MemlaneError, Overloaded, RateLimited, StoreUnavailable, UpstreamError
from memlane.services.tools.errors import tool_envelope
from memlane.store.availability import DRIVER_ERROR_TYPES, as_store_unavailable

log = logging.getLogger(__name__)

#: the layered surface names every embedding-provider failure one way (its status still says
#: which: 429 rate limited, 502 bad answer, 503 unavailable)
LAYERS_EMBEDDING_FAILURE = "embedding_failure"


def surface_of(path: str) -> str:
    if path.startswith("/v1/memory"):
        return "graph"
    if path.startswith("/api/"):
        return "conversation"
    if path.startswith("/v1/layers"):
        return "layers"
    if path.startswith(("/v1/tools", "/mcp", "/v1/knowledge")):
        return "tools"
    return "graph"


def field_path(loc: Sequence[Any]) -> str:
    """``("body", "nodes", 0, "type")`` -> ``nodes[0].type``; query and path params keep their name."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "body"


def render(
    path: str,
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    retryable: bool | None = None,
) -> JSONResponse:
    surface = surface_of(path)
    body: dict[str, Any]
    if surface == "conversation":
        body = {"detail": message}
    elif surface == "layers":
        error_type = LAYERS_EMBEDDING_FAILURE if code.startswith("upstream_embedding") else code
        body = {"success": False, "error_type": error_type, "message": message}
        if details:
            body["details"] = details
    elif surface == "tools":
        body = tool_envelope(status, code, message, details, retryable)
    else:
        body = {"error": code, "message": message}
        if details:
            body["details"] = details
    return JSONResponse(body, status_code=status, headers=headers)


def documented_methods(app: FastAPI, path: str) -> list[str]:
    """The methods the document lists for ``path``, for a 405's ``Allow``: Starlette names only
    the first route matching the path, RFC 9110 wants them all. Where templates overlap
    (``/memories/query`` and ``/memories/{memory_id}``) the one with more literal segments is
    the one routing serves, as the routers declare the literal path first."""
    best: tuple[int, set[str]] = (-1, set())
    for template, path_item in app.openapi()["paths"].items():
        if not re.fullmatch(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)), path):
            continue
        literal = sum(1 for part in template.split("/") if not part.startswith("{"))
        methods = {m.upper() for m in path_item}
        if literal > best[0]:
            best = (literal, methods)
        elif literal == best[0]:
            best[1].update(methods)
    methods = best[1]
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def validation_response(request: Request, raw_errors: Sequence[Any]) -> JSONResponse:
    """400 ``invalid_request`` naming each field (``invalid_json`` for a body that is not JSON)."""
    errors = []
    for err in raw_errors:
        loc = err.get("loc", ())
        if err.get("type") == "json_invalid":
            return render(request.url.path, 400, "invalid_json", f"request body is not valid JSON: {err.get('msg')}")
        errors.append({"field": field_path(loc), "message": err.get("msg", "invalid"), "type": err.get("type")})
    first = errors[0] if errors else {"field": "body", "message": "invalid request"}
    message = f"{first['field']}: {first['message']}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return render(request.url.path, 400, "invalid_request", message, {"errors": errors})


def _domain_response(request: Request, exc: MemlaneError) -> JSONResponse:
    headers: dict[str, str] = {}
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(exc, RateLimited | UpstreamError | Overloaded | StoreUnavailable) and retry_after is not None:
        headers["retry-after"] = str(max(1, round(float(retry_after))))
    return render(request.url.path, exc.status, exc.code, exc.message, exc.details, headers, exc.retryable)


async def _domain(request: Request, exc: MemlaneError) -> JSONResponse:
    return _domain_response(request, exc)


async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    return validation_response(request, exc.errors())


async def _refused(request: Request, exc: InputRefused) -> JSONResponse:
    return validation_response(request, exc.errors)


async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}.get(exc.status_code, "http_error")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        # Starlette names only the first route matching the path; RFC 9110 wants them all
        allowed = documented_methods(request.app, request.url.path)
        if allowed:
            headers = {k: v for k, v in headers.items() if k.lower() != "allow"}
            headers["allow"] = ", ".join(allowed)
    return render(request.url.path, exc.status_code, code, str(exc.detail), headers=headers or None)


async def _driver_error(request: Request, exc: Exception) -> JSONResponse:
    """A database error that did not pass the store's hooks (store/availability.py):
    during a failover it is a 503, not a bug. Handled here, inside the app, so the
    connection stays open; anything else goes on to ``_unexpected``."""
    unavailable = as_store_unavailable(exc)
    if unavailable is None:
        raise exc
    log.warning("%s %s: %s", request.method, request.url.path, unavailable.message)
    return _domain_response(request, unavailable)


def install_error_handlers(app: FastAPI) -> None:
    app.exception_handler(MemlaneError)(_domain)
    app.exception_handler(RequestValidationError)(_validation)
    app.exception_handler(InputRefused)(_refused)
    app.exception_handler(StarletteHTTPException)(_http)
    for error_type in DRIVER_ERROR_TYPES:
        app.add_exception_handler(error_type, _driver_error)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        ref = uuid.uuid4().hex[:12]
        log.exception("unhandled error %s on %s %s", ref, request.method, request.url.path)
        return render(request.url.path, 500, "internal_error", f"internal error (reference {ref})")
