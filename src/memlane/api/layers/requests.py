"""Request bodies of the layered surface (docs/api-layers.md).

``layer`` is a plain string here so an unknown layer answers ``invalid_layer`` (the spec's
error type) rather than a generic validation error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.instants import IntervalIn, TimeQuestionIn
from memlane.api.common.schema_rules import JsonInt, Rule, any_of, both, given, value, with_rules
from memlane.domain.inputs import IdText, Name, ScopeName, Strict, TagName, TenantName
from memlane.services.layers.roles import LAYERS, READ_MODES
from memlane.services.layers.service import MemoryMeta

ShortText = Name
Tag = TagName
Title = Annotated[str, Field(min_length=1, max_length=2000)]
Content = Annotated[str, Field(min_length=1, max_length=100_000)]


class Scoped(Strict):
    tenant_id: TenantName | None = None
    scope: ScopeName | None = None


class MetadataIn(Strict, IntervalIn):
    agent: ShortText | None = None
    task_id: ShortText | None = None
    user_visible: bool | None = None
    expiry: Annotated[AwareDatetime, Field(strict=False)] | None = None
    tags: list[Tag] | None = Field(None, max_length=50)

    def to_meta(self) -> MemoryMeta:
        return MemoryMeta(
            agent=self.agent,
            task_id=self.task_id,
            user_visible=self.user_visible,
            expiry=self.expiry,
            tags=self.tags,
            valid_at=self.valid_at,
            invalid_at=self.invalid_at,
            given=frozenset(self.model_fields_set),
        )


class WriteIn(Scoped):
    layer: str | None = Field(
        None,
        description="identity | project | workspace; omitted: routed by content",
        json_schema_extra={"enum": [*LAYERS, None]},
    )
    title: Title
    content: Content
    metadata: MetadataIn = Field(default_factory=MetadataIn)
    user_instruction: bool = Field(False, description="the user explicitly asked for this write")


class ReadIn(Scoped):
    layer: str = Field(..., json_schema_extra={"enum": list(LAYERS)})
    query: str | None = Field(None, min_length=1, max_length=20_000)
    id: IdText | None = None
    task_id: ShortText | None = None
    agent: ShortText | None = None
    mode: str | None = Field(
        None,
        description="semantic | keyword | id | task (default: by layer and fields)",
        json_schema_extra={"enum": ["semantic", "keyword", "id", "task", None]},
    )
    limit: JsonInt = Field(10, ge=1, le=100)
    tags: list[Tag] = Field(default_factory=list, max_length=50)
    include_embeddings: bool = False

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        return with_rules(handler, schema, any_of(*_read_modes()))


def _mode(*modes: str | None) -> Rule:
    return {"properties": {"mode": {"enum": list(modes)}}}


def _read_modes() -> list[Rule]:
    """What each read mode needs (services/layers/service.py): ``id`` an id (and is the mode
    when one is given), ``task`` a task_id on the workspace layer (the workspace's mode when
    no id is given), the query modes a query on the layers that have them."""
    rules = [both(given("id"), _mode("id", None)), both(value("layer", "workspace"), given("task_id"), _mode("task"))]
    rules.append(
        both(value("layer", "workspace"), given("task_id"), _mode(None), {"properties": {"id": {"type": "null"}}})
    )
    for layer, modes in READ_MODES.items():
        query_modes = [m for m in modes if m not in ("id", "task")]
        if query_modes:
            rules.append(both(value("layer", layer), given("query"), _mode(*query_modes, None)))
    return rules


class SearchIn(Scoped, TimeQuestionIn):
    layer: str | None = Field(None, json_schema_extra={"enum": [*LAYERS, None]})
    query: str = Field(..., min_length=1, max_length=20_000)
    top_k: JsonInt = Field(10, ge=1, le=100)
    task_id: ShortText | None = None
    agent: ShortText | None = None
    tags: list[Tag] = Field(default_factory=list, max_length=50)
    include_embeddings: bool = False


class UpdateIn(Strict):
    tenant_id: TenantName | None = None
    id: IdText
    new_title: Title | None = None
    new_content: Content | None = None
    new_metadata: MetadataIn | None = None
    user_instruction: bool = False
    user_confirmed: bool = Field(False, description="the user confirmed this identity change")
    system_refinement: bool = Field(False, description="a system agent refines identity memory")


class DeleteIn(Strict):
    tenant_id: TenantName | None = None
    id: IdText
    user_instruction: bool = False
