"""Request bodies of the knowledge repository (``/v1/knowledge``): items, patches, imports."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from pydantic.config import JsonDict

from memlane.domain.inputs import FreeObject, Strict, TagName
from memlane.services.knowledge.model import (
    ID_PATTERN,
    LAYERS,
    MAX_PATTERN,
    OPERATORS,
    SEVERITIES,
    STATUSES,
    TARGET_ALIASES,
    TARGETS,
    TYPES,
)

ShortText = Annotated[str, Field(min_length=1, max_length=256)]
#: the service checks these values (services/knowledge/model.py) to name the field in its own
#: envelope; the schema states them so clients know them
_TYPE: JsonDict = {"enum": list(TYPES)}
_LAYER: JsonDict = {"enum": list(LAYERS)}
_STATUS: JsonDict = {"enum": list(STATUSES)}
_SEVERITY: JsonDict = {"enum": list(SEVERITIES)}
_NOT_BLANK: JsonDict = {"pattern": r"\S"}


#: a change names a value; null is refused (the item keeps a type, layer, title, ...)
_NOT_NULL: JsonDict = {"not": {"type": "null"}}
_CONSTRAINT: JsonDict = {
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["operator", "target", "pattern"],
        "properties": {
            "operator": {"enum": list(OPERATORS)},
            "target": {"enum": [*TARGETS, *TARGET_ALIASES]},
            "pattern": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN},
            "severity": {"enum": [*SEVERITIES, None]},
            "message": {"type": ["string", "null"]},
            "appliesTo": {
                "anyOf": [
                    {"type": "string", "minLength": 1},
                    {"type": "array", "items": {"type": "string", "minLength": 1}},
                    {"type": "null"},
                ]
            },
        },
    }
}


class KnowledgeItemIn(Strict):
    id: str = Field(..., min_length=1, max_length=200, json_schema_extra={"pattern": ID_PATTERN.pattern})
    type: str = Field(..., json_schema_extra=_TYPE)
    layer: str = Field(..., json_schema_extra=_LAYER)
    title: str = Field(..., min_length=1, max_length=2000, json_schema_extra=_NOT_BLANK)
    summary: str = Field("", max_length=10_000)
    content: str = Field("", max_length=1_000_000)
    status: str = Field("draft", json_schema_extra=_STATUS)
    severity: str = Field("warn", json_schema_extra=_SEVERITY)
    tags: list[TagName] = Field(default_factory=list, max_length=100)
    constraints: list[dict[str, Any]] = Field(default_factory=list, max_length=200, json_schema_extra=_CONSTRAINT)
    metadata: FreeObject = Field(default_factory=dict)
    supersedes: str | None = Field(None, max_length=200)
    message: str | None = Field(None, max_length=2000, description="version history message")


class KnowledgeItemPatch(Strict):
    type: str | None = Field(None, json_schema_extra=_TYPE)
    layer: str | None = Field(None, json_schema_extra=_LAYER)
    title: str | None = Field(None, min_length=1, max_length=2000, json_schema_extra={**_NOT_BLANK, **_NOT_NULL})
    summary: str | None = Field(None, max_length=10_000, json_schema_extra=_NOT_NULL)
    content: str | None = Field(None, max_length=1_000_000, json_schema_extra=_NOT_NULL)
    status: str | None = Field(None, json_schema_extra=_STATUS)
    severity: str | None = Field(None, json_schema_extra=_SEVERITY)
    tags: list[TagName] | None = Field(None, max_length=100)
    constraints: list[dict[str, Any]] | None = Field(None, max_length=200, json_schema_extra=_CONSTRAINT)
    metadata: FreeObject | None = None
    supersedes: str | None = Field(None, max_length=200)
    message: str | None = Field(None, max_length=2000)


class DocumentIn(Strict):
    path: str = Field(..., min_length=1, max_length=1024)
    content: str = Field(
        ...,
        min_length=1,
        max_length=1_000_000,
        description="Markdown starting with a YAML front matter block (services/knowledge/markdown.py)",
        json_schema_extra={"pattern": r"^\ufeff*---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)"},
    )


class ImportIn(Strict):
    documents: list[DocumentIn] = Field(..., min_length=1, max_length=500)
