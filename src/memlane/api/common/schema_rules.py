"""Cross-field rules of request models, written into their JSON Schema.

A model validator ("input_text or input_sha256", "exactly one of id or client_id") is
invisible to clients reading ``/openapi.json``; a model states it here too, from
``__get_pydantic_json_schema__``, so a schema-valid request is one the server accepts.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue

Rule = dict[str, Any]


def _json_integer(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


#: JSON Schema's integer in a strict model: ``6`` and ``6.0``, not ``"6"``, ``6.5`` or ``true``
JsonInt = Annotated[int, BeforeValidator(_json_integer)]


def given(field: str, schema: dict[str, Any] | None = None) -> Rule:
    """``field`` is present and not null (optionally: and matches ``schema``)."""
    return {"required": [field], "properties": {field: {"not": {"type": "null"}, **(schema or {})}}}


def absent(field: str) -> Rule:
    """``field`` is missing or null."""
    return {"properties": {field: {"type": "null"}}}


def value(field: str, const: Any) -> Rule:
    """``field``, when present, is ``const``."""
    return {"properties": {field: {"const": const}}}


def both(*rules: Rule) -> Rule:
    """Every rule at once (their ``required`` and ``properties`` merged)."""
    out: Rule = {"required": [], "properties": {}}
    for rule in rules:
        out["required"] += rule.get("required", [])
        out["properties"].update(rule.get("properties", {}))
    return out


def any_of(*rules: Rule) -> Rule:
    return {"anyOf": list(rules)}


def one_of(*rules: Rule) -> Rule:
    """Exactly one of the rules holds."""
    return {"oneOf": list(rules)}


def all_of(*rules: Rule) -> Rule:
    return {"allOf": list(rules)}


def with_rules(handler: GetJsonSchemaHandler, schema: JsonSchemaValue, *rules: Rule) -> JsonSchemaValue:
    """``schema`` (the model's, maybe a ``$ref``) with ``rules`` added to its ``allOf``."""
    target = handler.resolve_ref_schema(schema)
    target.setdefault("allOf", []).extend(rules)
    return schema
