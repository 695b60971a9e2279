"""The request body of ``POST /v1/erasure``: exactly one subject."""

from __future__ import annotations

from pydantic import GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.schema_rules import given, one_of, with_rules
from memlane.domain.erasure import ErasureSubject
from memlane.domain.inputs import Name, Strict, TenantName


class ErasureRequest(Strict):
    """Exactly one subject: ``scope``, ``user_id``, ``agent_id``, or ``whole_tenant: true``."""

    tenant_id: TenantName | None = None
    scope: Name | None = None
    user_id: Name | None = None
    agent_id: Name | None = None
    whole_tenant: bool = False

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        whole = given("whole_tenant", {"const": True})
        return with_rules(handler, schema, one_of(given("scope"), given("user_id"), given("agent_id"), whole))

    @model_validator(mode="after")
    def _one_subject(self) -> ErasureRequest:
        given = [n for n in ("scope", "user_id", "agent_id") if getattr(self, n) is not None]
        if self.whole_tenant:
            given.append("whole_tenant")
        if len(given) != 1:
            raise ValueError(
                "give exactly one of scope, user_id, agent_id or whole_tenant=true"
                + (f" (got {', '.join(given)})" if given else "")
            )
        return self

    def subject(self, tenant_id: str) -> ErasureSubject:
        if self.scope is not None:
            return ErasureSubject(tenant_id, "scope", self.scope)
        if self.user_id is not None:
            return ErasureSubject(tenant_id, "user", self.user_id)
        if self.agent_id is not None:
            return ErasureSubject(tenant_id, "agent", self.agent_id)
        return ErasureSubject(tenant_id, "tenant", tenant_id)
