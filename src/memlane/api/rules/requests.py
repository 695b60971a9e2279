"""Request shapes of rules, tool selection and feedback (docs/api-graph.md).

Bounds follow the contract: ``limit`` / ``rules_limit`` 1..200 (default 50), ``candidates``
1..200 tool names (1..256 characters each). ``context`` is any JSON value but must be present
and not null, and within ``MAX_CONTEXT_*`` (64 levels, 20,000 values, 256 Ki characters).
Unknown fields are refused like everywhere on the graph surface.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

from pydantic import Field, field_validator

from memlane.api.common.requests import Provenance, ShortText, TenantScoped, UUIDIn
from memlane.api.common.schema_rules import JsonInt

ToolName = Annotated[str, Field(min_length=1, max_length=256)]
OutcomeIn = Literal["positive", "negative", "neutral"]
Note = Annotated[str, Field(max_length=2000)]


#: bounds of a planner context: every visible rule is matched against it on every call
MAX_CONTEXT_DEPTH = 64
MAX_CONTEXT_VALUES = 20_000
MAX_CONTEXT_CHARS = 256 * 1024


class RecallRulesIn(Protocol):
    """What recall's ``rules`` block reads from a graph recall request (api/graph/requests.py's
    ``RecallBase``): the rules surface names only these, so it does not depend on the graph's."""

    @property
    def rules_context(self) -> Any: ...
    @property
    def consumer_agent_id(self) -> str | None: ...
    @property
    def consumer_team_id(self) -> str | None: ...
    @property
    def rules_include_shadow(self) -> bool: ...
    @property
    def rules_limit(self) -> int: ...


def context_problem(value: Any) -> str | None:
    """Why a context is too big to evaluate rules against, or None (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    values = chars = 0
    while stack:
        item, depth = stack.pop()
        values += 1
        if depth > MAX_CONTEXT_DEPTH:
            return f"nested deeper than {MAX_CONTEXT_DEPTH} levels"
        if values > MAX_CONTEXT_VALUES:
            return f"more than {MAX_CONTEXT_VALUES} values"
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, dict):
            chars += sum(len(str(k)) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        if chars > MAX_CONTEXT_CHARS:
            return f"more than {MAX_CONTEXT_CHARS} characters of text"
    return None


class WithContext(TenantScoped):
    context: Any = Field(
        ...,
        description="planner context (docs/rules.md); any JSON value, not null",
        json_schema_extra={"not": {"type": "null"}},
    )

    @field_validator("context")
    @classmethod
    def _present(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("context is required (normally the planner context object), not null")
        problem = context_problem(value)
        if problem is not None:
            raise ValueError(f"context is too large: {problem}")
        return value


class EvaluateRequest(WithContext):
    include_shadow: bool = True
    limit: JsonInt = Field(50, ge=1, le=200)


class ToolsSelectRequest(WithContext):
    candidates: list[ToolName] = Field(..., min_length=1, max_length=200)
    include_shadow: bool = False
    rules_limit: JsonInt = Field(50, ge=1, le=200)
    strict: bool = True


class ToolsFeedbackRequest(WithContext, Provenance):
    candidates: list[ToolName] = Field(..., min_length=1, max_length=200)
    selected_tool: ToolName
    outcome: OutcomeIn
    actor: ShortText | None = None
    run_id: ShortText | None = None
    target: Literal["tool", "all"] = "tool"
    include_shadow: bool = False
    rules_limit: JsonInt = Field(50, ge=1, le=200)
    note: Note | None = None


class FeedbackRequest(TenantScoped, Provenance):
    rule_node_id: UUIDIn
    outcome: OutcomeIn
    run_id: ShortText | None = None
    note: Note | None = None
    actor: ShortText | None = None


class RuleStateRequest(TenantScoped, Provenance):
    rule_node_id: UUIDIn
    state: Literal["draft", "shadow", "active", "disabled"]
    actor: ShortText | None = None
