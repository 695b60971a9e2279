"""The route class of every router: request bodies parsed by pydantic-core's JSON parser, and
text no backend can store refused before anything else looks at the request.

A graph write of 500 nodes with 384-d embeddings is a 2 MB body; ``json.loads`` spent 17%
of the server's time on bulk writes parsing it (py-spy, bench/recall.py). pydantic-core
(already a dependency through pydantic) parses the same bytes into the same Python values
faster. FastAPI's documented hook for this is a custom ``Request`` behind a custom route
class; every router of the app uses ``JsonBodyRoute``.

The same route class holds every request to domain/inputs.py: a query or path parameter, or
any string (key or value) of a JSON body, holding U+0000 is a 400 naming it (lone surrogates
are not JSON to pydantic-core: ``invalid_json``). A body is only walked when its bytes hold a
``\u0000`` escape, so the check costs one scan of the bytes. The route also sets the
free-form JSON limits of the settings (``MEMLANE_JSON_MAX_*``) for the request's validation,
and runs the request with its read routing (read replicas and write positions: read_routing.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import pydantic_core
from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

from memlane.api.common.read_routing import routed
from memlane.domain.inputs import JSON_LIMITS, JsonLimits, escaped, find_unstorable, json_may_hold_nul, unstorable


class InputRefused(HTTPException):
    """Input refused before validation (text no backend stores). Raised from inside FastAPI's
    body reading, which turns any other exception into a bare 400; api/common/errors.py renders it
    exactly like a validation error (400 ``invalid_request``, the field path in ``details``)."""

    def __init__(self, loc: tuple[str | int, ...], message: str, kind: str = "unstorable_text"):
        super().__init__(400, message)
        self.errors = [{"loc": loc, "msg": message, "type": kind}]


def refuse_unstorable_body(raw: bytes, value: Any) -> None:
    """400 naming the first string of a parsed JSON body that holds a NUL (a walk only when the
    bytes hold a ``\\u0000`` escape)."""
    if json_may_hold_nul(raw):
        found = find_unstorable(value)
        if found is not None:
            path, why = found
            raise InputRefused(("body", *path), f"contains {why}, which memlane does not store")


def refuse_unstorable_params(request: Request) -> None:
    """400 naming the first query or path parameter that holds a NUL."""
    for where, items in (("path", request.path_params.items()), ("query", request.query_params.multi_items())):
        for name, value in items:
            if not isinstance(value, str):
                continue
            key_problem = unstorable(name)
            if key_problem is not None:
                raise InputRefused((where, escaped(name)), f"the parameter name contains {key_problem}")
            problem = unstorable(value)
            if problem is not None:
                raise InputRefused((where, name), f"contains {problem}, which memlane does not store")


def limits_of(request: Request) -> JsonLimits:
    services = getattr(request.app.state, "services", None)
    return services.settings.server.json_limits if services is not None else JsonLimits()


class JsonBodyRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                value = pydantic_core.from_json(body)
            except ValueError as exc:
                # FastAPI turns JSONDecodeError (only) into its 400 validation response
                raise json.JSONDecodeError(str(exc), body.decode("utf-8", errors="replace"), 0) from None
            refuse_unstorable_body(body, value)
            self._json = value
        return self._json


class JsonBodyRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            refuse_unstorable_params(request)
            token = JSON_LIMITS.set(limits_of(request))
            # one request object: a run again after a replica failed reuses the body read
            json_request = JsonBodyRequest(request.scope, request.receive)
            try:
                return await routed(json_request, lambda: handler(json_request))
            finally:
                JSON_LIMITS.reset(token)

        return route


M = TypeVar("M", bound=BaseModel)


async def validated_body(request: Request, model: type[M]) -> M:
    """The body validated straight from its bytes, in one pass.

    Used where bodies are large (bulk graph writes): parsing to Python values and validating
    those took 52 ms for a 500-node write, validating the bytes directly 33 ms (measured).
    Errors go through FastAPI's validation handler, so they look exactly like those of a
    declared body (400, field paths from ``body``). The route declares the schema with
    ``openapi_extra=json_request_body(model)`` and the app lists the model with
    ``document_body_models``.
    """
    raw = await request.body()
    if json_may_hold_nul(raw):
        with contextlib.suppress(ValueError):  # not JSON: the validation below says so
            refuse_unstorable_body(raw, pydantic_core.from_json(raw))
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        for err in errors:
            err["loc"] = ("body", *err["loc"])
        raise RequestValidationError(errors, body=raw) from None


def json_request_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI ``requestBody`` of a route that reads its body with ``validated_body``."""
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


def document_body_models(app: FastAPI, models: Sequence[type[BaseModel]]) -> None:
    """Add the schemas of bodies read with ``validated_body`` to the app's OpenAPI components."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in models:
            body = model.model_json_schema(ref_template="#/components/schemas/{model}", mode="validation")
            for name, definition in body.pop("$defs", {}).items():
                components.setdefault(name, definition)
            components.setdefault(model.__name__, body)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
