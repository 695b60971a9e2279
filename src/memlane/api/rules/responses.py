"""Success responses of the rules surface (``/v1/memory/rules/*``, ``/v1/memory/tools/*``,
``/v1/memory/feedback``). Parts computed by the rules engine (match details, tool selection)
are objects whose shape docs/rules.md describes."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.rules.evaluate import RuleCountsView


@closed
class RuleCounts(RuleCountsView):
    """What every rule evaluation reports: how many rules were considered and matched, and
    the merged policy that applies."""


@closed
class EvaluateReply(RuleCounts):
    tenant_id: str
    scope: str
    agent_visibility_summary: dict[str, Any]
    active: list[dict[str, Any]]
    shadow: list[dict[str, Any]]


@closed
class SelectionRules(RuleCounts):
    agent_visibility_summary: dict[str, Any]
    tool_conflicts_summary: list[str]
    shadow_selection: NotRequired[dict[str, Any]]
    shadow_tool_conflicts_summary: NotRequired[list[str]]


@closed
class ToolsSelectReply(TypedDict):
    tenant_id: str
    scope: str
    candidates: list[str]
    selection: dict[str, Any]
    rules: SelectionRules


@closed
class ToolsFeedbackReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    updated_rules: int
    rule_node_ids: list[str]
    commit_id: str | None
    commit_hash: str | None


@closed
class RuleFeedbackReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    rule_node_id: str
    outcome: str
    stats: dict[str, Any]
    commit_id: str
    commit_hash: str


@closed
class RuleStateReply(TypedDict):
    ok: bool
    tenant_id: str
    scope: str
    rule_node_id: str
    previous_state: str | None
    state: str
    changed: bool
    commit_id: str | None
    commit_hash: str | None
