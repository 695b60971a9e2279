"""``/openapi.json`` made truthful in one place, for every route, present and future.

FastAPI documents a 422 that this server never sends (validation errors are 400s in each
surface's envelope, api/common/errors.py) and none of the errors it does send. Rather than repeat
``responses=`` on every route, the document is post-processed here: each operation gets the
error statuses its route can produce, each with its surface's envelope (``surface_of``), and
the bounds that depend on settings (embedding dimension, message count) are written into the
request schemas so a schema-valid request is one the server accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from pydantic import TypeAdapter

from memlane.api.common.browser_boundary import HOST_EXEMPT_PATHS, accepted_media_types
from memlane.api.common.error_responses import ENVELOPES
from memlane.api.common.errors import surface_of
from memlane.api.common.read_routing import POSITION_HEADER, READ_AFTER_HEADER, READ_SOURCE_HEADER, route_reads
from memlane.api.common.requests import HTTP_URL_PATTERN
from memlane.config import Settings

COMPONENT = "#/components/schemas/{model}"

_RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before retrying, when the server knows",
        "schema": {"type": "string"},
        "required": False,
    }
}

#: why each status is sent; the body is always the surface's error envelope
ERROR_STATUSES: dict[int, str] = {
    400: "Invalid request: the message names the field (validation errors are 400, never 422)",
    401: "Missing or invalid credentials (auth modes api_key / jwt)",
    403: "The credentials do not allow this (identity mismatch, admin-only option, role), or a browser sent a "
    "state-changing request from another web origin",
    404: "Not found in the caller's tenant and scope",
    409: "Conflict with the stored state (duplicate id, idempotency key reused with another body)",
    413: "Request body larger than MEMLANE_MAX_REQUEST_BYTES",
    415: "The body is not of a media type the request body names (application/json; JSONL for /v1/admin/import)",
    421: "The Host header is not one this server answers to (loopback on its port, MEMLANE_ALLOWED_HOSTS)",
    429: "A quota or the embedding provider's rate limit; see Retry-After",
    500: "Internal error; the message carries a reference to the server log",
    502: "The embedding provider answered badly",
    503: "A dependency (store, embedding provider) is unavailable, or the server is overloaded; see Retry-After",
    504: "The work is queued and continues; ask again (agent tools)",
}


#: paths served by the authenticated surfaces (the rest is /health, / and the document itself)
SECURED_PREFIXES = ("/v1/memory", "/api/", "/v1/layers", "/v1/tools", "/v1/knowledge", "/v1/admin", "/metrics")
WRITE_METHODS = ("post", "put", "patch", "delete")


def error_statuses(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    """The error statuses an operation can answer with, from what it declares: a body or
    parameters can be invalid, an authenticated route can refuse, a body can be too large."""
    has_body = "requestBody" in operation or method in ("post", "put", "patch")
    statuses = {500}
    if path not in HOST_EXEMPT_PATHS:
        statuses.add(421)
    if has_body or operation.get("parameters"):
        statuses.add(400)
    if has_body:
        statuses |= {413, 415}
    if method in WRITE_METHODS:
        statuses.add(403)
    if path.startswith(SECURED_PREFIXES):
        statuses |= {401, 403, 404, 429, 502, 503}
        if method in WRITE_METHODS:
            statuses.add(409)
        if surface_of(path) == "tools":
            statuses.add(504)
    return sorted(statuses)


def _error_response(status: int, envelope: str) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": ERROR_STATUSES[status],
        "content": {"application/json": {"schema": {"$ref": COMPONENT.format(model=envelope)}}},
    }
    if status in (429, 502, 503):
        response["headers"] = _RETRY_AFTER
    return response


def _add_envelopes(schema: dict[str, Any]) -> None:
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in ENVELOPES.values():
        components[model.__name__] = TypeAdapter(model).json_schema(ref_template=COMPONENT)


def _document_errors(schema: dict[str, Any]) -> None:
    for path, path_item in schema["paths"].items():
        envelope = ENVELOPES[surface_of(path)].__name__
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            for status in error_statuses(path, method, operation):
                responses.setdefault(str(status), _error_response(status, envelope))


def _document_media_types(schema: dict[str, Any]) -> None:
    """Each request body lists exactly the media types the browser boundary accepts for it."""
    for path, path_item in schema["paths"].items():
        for operation in path_item.values():
            content = operation.get("requestBody", {}).get("content")
            if not content:
                continue
            body = next(iter(content.values()))
            operation["requestBody"]["content"] = {media: body for media in accepted_media_types(path)}


def _drop_unused(schema: dict[str, Any]) -> None:
    """FastAPI's validation-error schemas describe the 422 that was removed."""
    text = str(schema["paths"])
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        if COMPONENT.format(model=name) not in text:
            components.pop(name, None)


def _plain_query_arrays(schema: dict[str, Any]) -> None:
    """``list[str] | None`` query parameters are documented as ``array or null``; a query string
    cannot say null (the parameter is absent instead), so the null branch only misleads."""
    for path_item in schema["paths"].values():
        for operation in path_item.values():
            for param in operation.get("parameters", []):
                variants = param.get("schema", {}).get("anyOf")
                if param.get("in") == "query" and variants and {"type": "null"} in variants:
                    rest = [v for v in variants if v != {"type": "null"}]
                    if len(rest) == 1:
                        title = param["schema"].get("title")
                        param["schema"] = {**rest[0], **({"title": title} if title else {})}


#: request headers the routers check by hand, as the schema of what they accept: the
#: Idempotency-Key is stripped, then 1..200 printable characters (latin-1 on the wire)
_PRINTABLE = r"\x21-\x7e\xa1-\xac\xae-\xff"
HEADER_SCHEMAS: dict[str, dict[str, Any]] = {
    "Idempotency-Key": {
        "type": "string",
        "pattern": f"^[\\s]*[{_PRINTABLE}]([ {_PRINTABLE}]{{0,198}}[{_PRINTABLE}])?[\\s]*$",
    },
    "X-Callback-URL": {"type": "string", "maxLength": 2048, "pattern": f"^$|{HTTP_URL_PATTERN}"},
}
#: (path, header) whose router reads the header only sometimes: any value is accepted otherwise
HEADERS_READ_SOMETIMES: dict[tuple[str, str], str] = {
    ("/api/v1/agent/summaries", "Idempotency-Key"): "read only with a callback URL (asynchronous summary)",
}


def _header_schemas(schema: dict[str, Any]) -> None:
    for path, path_item in schema["paths"].items():
        for operation in path_item.values():
            for param in operation.get("parameters", []):
                name = param.get("name", "")
                known = HEADER_SCHEMAS.get(name)
                if param.get("in") != "header" or known is None:
                    continue
                sometimes = HEADERS_READ_SOMETIMES.get((path, name))
                if sometimes is not None:
                    param["schema"] = {"type": "string", "title": name}
                    param["description"] = sometimes
                else:
                    param["schema"] = {**known, "title": name}


READ_AFTER_PARAMETER: dict[str, Any] = {
    "name": READ_AFTER_HEADER,
    "in": "header",
    "required": False,
    "description": f"Read-your-writes: a position a write answered as {POSITION_HEADER}; the read is served by "
    'a replica that has replayed that far, or else by the primary (docs/operations.md, "Read replicas")',
    "schema": {"type": "string", "pattern": "^lsn:[0-9A-Fa-f]{16}$", "title": READ_AFTER_HEADER},
}
READ_SOURCE_RESPONSE_HEADER: dict[str, Any] = {
    "description": "Which database served this read (only with read replicas configured)",
    "schema": {"type": "string", "enum": ["replica", "primary"]},
    "required": False,
}
POSITION_RESPONSE_HEADER: dict[str, Any] = {
    "description": "PostgreSQL only: the primary's WAL position after this request's commits (lsn: and 16 hex "
    f"digits); send it back as {READ_AFTER_HEADER} to read this write from a replica",
    "schema": {"type": "string", "pattern": "^lsn:[0-9A-F]{16}$"},
    "required": False,
}


def _routes_reads(dependant: Dependant) -> bool:
    """Whether ``route_reads`` (``RoutedRead``) runs for a route, declared on it or its router."""
    return any(dep.call is route_reads or _routes_reads(dep) for dep in dependant.dependencies)


def routed_reads(app: FastAPI) -> set[tuple[str, str]]:
    """(path, method) of every documented operation a read replica may serve."""
    return {
        (str(route.path_format), method.lower())
        for route in iter_route_contexts(app.routes)  # included routers flattened, as FastAPI documents them
        if getattr(route, "include_in_schema", False)
        and isinstance(dependant := getattr(route, "dependant", None), Dependant)
        and _routes_reads(dependant)
        for method in route.methods or ()
    }


def _read_after_parameter(schema: dict[str, Any], reads: set[tuple[str, str]]) -> None:
    """Every routed read accepts ``X-Memlane-Read-After`` (before the errors are documented:
    a malformed value is a 400)."""
    for path, path_item in schema["paths"].items():
        for method, operation in path_item.items():
            if (path, method) not in reads:
                continue
            parameters = operation.setdefault("parameters", [])
            if not any(p.get("name") == READ_AFTER_HEADER for p in parameters):
                parameters.append(READ_AFTER_PARAMETER)


def _read_routing_headers(schema: dict[str, Any], reads: set[tuple[str, str]]) -> None:
    """A routed read says where it was served on every answer, an error included; a write (a
    state-changing method that is not a routed read) answers its position on success."""
    for path, path_item in schema["paths"].items():
        for method, operation in path_item.items():
            routed = (path, method) in reads
            if not routed and method not in WRITE_METHODS:
                continue
            for status, response in operation.get("responses", {}).items():
                if routed:
                    header = {READ_SOURCE_HEADER: READ_SOURCE_RESPONSE_HEADER}
                elif status.startswith("2"):
                    header = {POSITION_HEADER: POSITION_RESPONSE_HEADER}
                else:
                    continue
                # a new dict: an error response's headers may be the shared Retry-After mapping
                response["headers"] = {**response.get("headers", {}), **header}


def _bound(schema: dict[str, Any], model: str, field: str, **bounds: Any) -> None:
    prop = schema.get("components", {}).get("schemas", {}).get(model, {}).get("properties", {}).get(field)
    if prop is None:
        return
    arrays = [prop, *prop.get("anyOf", [])]
    for variant in arrays:
        if variant.get("type") == "array":
            variant.update(bounds)


def _settings_bounds(schema: dict[str, Any], app: FastAPI, settings: Settings) -> None:
    """Bounds that the routers check against settings, written where clients can read them."""
    for model in ("AddMemoryRequest", "AgentMemoryRequest", "SummaryRequest"):
        _bound(schema, model, "messages", minItems=1, maxItems=settings.conversation.max_messages)
    services = getattr(app.state, "services", None)
    if services is not None:
        dim = services.embedder.dimension
        _bound(schema, "RecallRequest", "query_embedding", minItems=dim, maxItems=dim)
        _bound(schema, "WriteNodeIn", "embedding", minItems=dim, maxItems=dim)


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """Replace ``app.openapi`` by the generated document, post-processed as above; call it
    after every router is included and after ``document_body_models``."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        reads = routed_reads(app)
        _add_envelopes(schema)
        _read_after_parameter(schema, reads)
        _document_errors(schema)
        _read_routing_headers(schema, reads)
        _document_media_types(schema)
        _drop_unused(schema)
        _plain_query_arrays(schema)
        _header_schemas(schema)
        _settings_bounds(schema, app, settings)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
