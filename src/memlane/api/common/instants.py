"""Instants in requests: ISO-8601 on every surface, held as timezone-aware UTC.

A timestamp without a zone is read as UTC (what every response writes, with a ``Z``), so a
comparison with the stored, aware timestamps can never fail on a missing zone.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, GetJsonSchemaHandler, ValidationInfo, field_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from memlane.api.common.schema_rules import absent, any_of, value, with_rules
from memlane.domain.clock import as_utc
from memlane.domain.inputs import Instant
from memlane.domain.validity import ValidTime


def interval_end(valid_at: datetime | None, invalid_at: datetime | None) -> datetime | None:
    """A field validator's check of ``invalid_at`` (so the 400 names that field)."""
    if invalid_at is not None and valid_at is not None and invalid_at <= valid_at:
        raise ValueError("invalid_at must be after valid_at")
    return invalid_at


def one_time_question(as_of: datetime | None, include_invalid: bool) -> bool:
    """A field validator's check of ``include_invalid``: it returns every interval, so an
    ``as_of`` beside it would be ignored; refused instead."""
    if include_invalid and as_of is not None:
        raise ValueError("give as_of or include_invalid, not both: include_invalid returns every interval")
    return include_invalid


class IntervalIn(BaseModel):
    """``valid_at`` / ``invalid_at`` of something written (docs/api-graph.md, "Facts over time")."""

    valid_at: Instant | None = None
    invalid_at: Instant | None = None

    @field_validator("invalid_at")
    @classmethod
    def _ends_after_it_begins(cls, value: datetime | None, info: ValidationInfo) -> datetime | None:
        return interval_end(info.data.get("valid_at"), value)


class TimeQuestionIn(BaseModel):
    """Which facts a read takes: valid now (neither field), ``as_of`` an instant, or every one."""

    as_of: Instant | None = None
    include_invalid: bool = False

    @classmethod
    def __get_pydantic_json_schema__(cls, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core, handler)
        return with_rules(handler, schema, any_of(absent("as_of"), value("include_invalid", False)))

    @field_validator("include_invalid")
    @classmethod
    def _one_time_question(cls, value: bool, info: ValidationInfo) -> bool:
        return one_time_question(info.data.get("as_of"), value)

    @property
    def when(self) -> ValidTime:
        return ValidTime(as_of=self.as_of, include_invalid=self.include_invalid)


__all__ = ["Instant", "IntervalIn", "TimeQuestionIn", "as_utc", "interval_end", "one_time_question"]
