"""Request shapes of node activation and archive rehydrate (docs/api-graph.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.requests import Provenance, ShortText, TenantScoped, UUIDIn
from memlane.api.common.schema_rules import any_of, given, with_rules
from memlane.domain.inputs import ClientId

Reason = Annotated[str, Field(max_length=1000)]


class NodeRefs(TenantScoped, Provenance):
    actor: ShortText | None = None
    node_ids: list[UUIDIn] | None = Field(None, min_length=1, max_length=200)
    client_ids: list[ClientId] | None = Field(None, min_length=1, max_length=200)
    reason: Reason | None = None

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        return with_rules(handler, schema, any_of(given("node_ids"), given("client_ids")))

    @model_validator(mode="after")
    def _some_ref(self) -> NodeRefs:
        if not self.node_ids and not self.client_ids:
            raise ValueError("give node_ids or client_ids (1..200 each)")
        return self

    def ids(self) -> list[str]:
        return [str(i) for i in self.node_ids or []]


class ActivateRequest(NodeRefs):
    run_id: ShortText | None = None
    outcome: Literal["positive", "negative", "neutral"] = "neutral"
    activate: bool = True


class RehydrateRequest(NodeRefs):
    target_tier: Literal["warm", "hot"] = "warm"
