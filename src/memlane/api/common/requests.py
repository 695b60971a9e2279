"""The request pieces the graph spec's surfaces (graph, rules, lifecycle) share: the tenant
and scope a request names, the provenance of a write, ids and short names; and the pattern of
a callback URL. Every request model extends ``Strict`` (domain/inputs.py, shared with the
import's record models): unknown fields are refused and values are strict."""

from __future__ import annotations

import re
from typing import Annotated
from uuid import UUID

from pydantic import Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.schema_rules import any_of, given, with_rules
from memlane.domain.inputs import Name, ScopeName, Strict, TenantName

#: an absolute http(s) URL with a host, as a pattern clients can read: a callback URL in a body
#: (api/conversation/requests.py's check_callback_url) or in ``X-Callback-URL`` (openapi.py)
HTTP_URL_PATTERN = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9\-._~%!$&'()*+,;=]+(:[0-9]*)?([/?#][\x21-\x7e]*)?\s*$"
#: an agent, team or run id, an actor, a model name (domain/inputs.py: no control characters)
ShortText = Name
SHA256 = re.compile(r"^[0-9a-f]{64}$")

#: a UUID as JSON carries it (a string): strict mode alone would want a ``UUID`` object
UUIDIn = Annotated[UUID, Field(strict=False)]


class Provenance(Strict):
    input_text: str | None = Field(None, max_length=1_000_000)
    input_sha256: str | None = Field(None, json_schema_extra={"pattern": SHA256.pattern})

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        return with_rules(handler, schema, any_of(given("input_text"), given("input_sha256")))

    @model_validator(mode="after")
    def _one_input(self) -> Provenance:
        if self.input_text is None and self.input_sha256 is None:
            raise ValueError("input_text or input_sha256 is required (provenance of the request)")
        if self.input_sha256 is not None and not SHA256.match(self.input_sha256):
            raise ValueError("input_sha256 must be 64 lowercase hex characters")
        return self


class TenantScoped(Strict):
    tenant_id: TenantName | None = None
    scope: ScopeName | None = None
