"""Each tool's request body as ``/openapi.json`` states it: the tool's own JSON Schema (what
``GET /v1/tools`` and MCP serve, the spec's verbatim) plus the rules the tool service checks
in code that JSON Schema can say, so a schema-valid call is one the server accepts.

The served tool schemas stay as the spec writes them (agents and MCP clients read those);
these additions live only in the HTTP contract. What cannot be said (an interval's end after
its start, the identifier a layer needs from the credentials, an expiry in the future) is
listed in tests/api/schemathesis.toml with its reason.
"""

from __future__ import annotations

from typing import Any

from memlane.domain.inputs import ID_PATTERN, MAX_ID_LENGTH
from memlane.services.tools.memory import MAX_CONTENT
from memlane.services.tools.schemas import SCHEMAS

#: text the service strips and then refuses when empty
NOT_BLANK: dict[str, Any] = {"type": "string", "pattern": r"\S"}

#: an id a caller sends back (domain/inputs.py)
ID_TEXT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": MAX_ID_LENGTH, "pattern": ID_PATTERN}

#: per tool, what its service refuses that the served schema allows
RULES: dict[str, list[dict[str, Any]]] = {
    "memory_add": [{"properties": {"content": {**NOT_BLANK, "maxLength": MAX_CONTENT}}}],
    # a memory id is an id (domain/inputs.py): the service refuses any other text
    "memory_delete": [{"properties": {"memoryId": ID_TEXT}}],
    "memory_search": [
        {"properties": {"query": NOT_BLANK}},
        # includeInvalid returns every interval: an asOf beside it is refused, not ignored
        {"not": {"required": ["asOf", "includeInvalid"], "properties": {"includeInvalid": {"const": True}}}},
    ],
}


def request_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of ``POST /v1/tools/{name}``'s body."""
    schema = {k: v for k, v in SCHEMAS[name].items() if k != "$schema"}
    rules = RULES.get(name)
    if rules:
        schema["allOf"] = [*schema.get("allOf", []), *rules]
    return schema


def request_body(name: str) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of the tool's route: required when the tool has required
    arguments; otherwise an empty body, or ``null``, is the empty arguments object."""
    schema = request_schema(name)
    required = bool(schema.get("required"))
    body = schema if required else {"anyOf": [schema, {"type": "null"}]}
    return {"requestBody": {"required": required, "content": {"application/json": {"schema": body}}}}


__all__ = ["RULES", "request_body", "request_schema"]
