"""Rule evaluation: everything ``POST /v1/memory/rules/evaluate`` returns but tenant and scope.

Pure and deterministic: the same rules (in any input order) and context give the same result.
Pipeline per rule, each rule counted in exactly one ``agent_visibility_summary.rule_scope``
bucket:

1. **State** (``slots.state``, default ``draft``): only ``active`` rules, and ``shadow`` rules
   when ``include_shadow``, are scanned; ``draft``, ``disabled`` and unknown states are never
   evaluated nor counted. Non-rule nodes are ignored.
2. **Scope**, then **lane** (visibility.py) -> ``filtered_by_scope`` / ``filtered_by_lane``.
3. **then** must pass the strict PolicyPatch schema -> else ``skipped_invalid_then``. This is
   checked before the condition so a broken rule is reported to every caller who can see it,
   not only on the day a context happens to match it.
4. **Condition** (``if`` and ``exceptions``) -> ``filtered_by_condition`` or
   ``matched_active`` / ``matched_shadow``.

``scanned = filtered_by_scope + filtered_by_lane + considered`` and
``considered = skipped_invalid_then + filtered_by_condition + matched``: *considered* counts the
rules visible to the caller. ``matched`` counts every match; ``active``/``shadow`` keep the top
``limit`` of each state in rank order (rank desc, then rule id), and only those are applied, so
``applied.sources`` is always a subset of the returned matches.

``applied.policy`` merges the active matches. With ``include_shadow``, ``shadow_policy`` is the
counterfactual "active + matched shadow rules, as if the shadow rules were promoted": that is
the decision a shadow rule would change, which a shadow-only merge (ignoring active denies)
could not show. Sources carry their ``state`` to tell them apart.

Feedback counts are read from ``slots.stats.positive`` / ``slots.stats.negative`` (see
``policy.read_stats``); a ``RuleRecord`` may override state and counts when the store keeps
them elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from memlane.domain.model import Node
from memlane.domain.visibility import Visibility
from memlane.rules.conditions import matches, specificity
from memlane.rules.policy import (
    INVALID_THEN_SAMPLE,
    PolicyPatch,
    Rank,
    RankedPatch,
    merge_policies,
    parse_policy_patch,
    parse_rule_meta,
    read_stats,
)
from memlane.rules.visibility import (
    Identity,
    VisibilityTally,
    is_unowned_private,
    lane_allows,
    rule_scope_of,
    scope_allows,
)

RULE_STATES: Final = ("draft", "shadow", "active", "disabled")
DEFAULT_STATE: Final = "draft"
DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200


@dataclass(frozen=True, slots=True)
class RuleRecord:
    """A rule node plus, optionally, state and feedback counts kept outside its slots."""

    node: Node
    state: str | None = None
    positive: int | None = None
    negative: int | None = None


def rule_state(node: Node) -> str:
    """A rule's lifecycle state from ``slots.state``; absent or unknown reads as ``draft``."""
    state = node.slots.get("state")
    return state if isinstance(state, str) and state in RULE_STATES else DEFAULT_STATE


@dataclass(slots=True)
class _Candidate:
    node: Node
    state: str
    positive: int
    negative: int


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A matched rule: its DTO plus the parsed patch and rank the merge needs."""

    rule_node_id: str
    state: str
    rank: Rank
    patch: PolicyPatch
    dto: dict[str, Any]


@dataclass(slots=True)
class Evaluation:
    """The result of ``evaluate``; ``as_response()`` is the contract's body minus tenant/scope."""

    considered: int
    matched: int
    skipped_invalid_then: int
    invalid_then_sample: list[dict[str, str]]
    agent_visibility_summary: dict[str, Any]
    active: list[RuleMatch]
    shadow: list[RuleMatch]
    applied: dict[str, Any]
    identity: Identity
    #: rule_meta values refused and replaced by defaults, by rule id (for logs, not the DTO)
    rule_meta_issues: dict[str, list[str]] = field(default_factory=dict)
    #: condition defects (invalid ``if``/exceptions) of considered rules, by rule id (for logs)
    condition_errors: dict[str, list[str]] = field(default_factory=dict)

    @property
    def tool_policy(self) -> dict[str, Any]:
        """``applied.policy.tool`` (empty when no matched rule says anything about tools)."""
        tool = self.applied["policy"].get("tool")
        return dict(tool) if isinstance(tool, dict) else {}

    @property
    def shadow_tool_policy(self) -> dict[str, Any] | None:
        policy = self.applied.get("shadow_policy")
        if policy is None:
            return None
        tool = policy.get("tool")
        return dict(tool) if isinstance(tool, dict) else {}

    def as_response(self) -> dict[str, Any]:
        return {
            "considered": self.considered,
            "matched": self.matched,
            "skipped_invalid_then": self.skipped_invalid_then,
            "invalid_then_sample": self.invalid_then_sample,
            "agent_visibility_summary": self.agent_visibility_summary,
            "active": [m.dto for m in self.active],
            "shadow": [m.dto for m in self.shadow],
            "applied": self.applied,
        }


def _candidate(item: Node | RuleRecord) -> _Candidate:
    if isinstance(item, RuleRecord):
        node = item.node
        state = rule_state(node) if item.state is None else item.state
        positive, negative = read_stats(node.slots)
        return _Candidate(
            node,
            state if state in RULE_STATES else DEFAULT_STATE,
            max(item.positive, 0) if item.positive is not None else positive,
            max(item.negative, 0) if item.negative is not None else negative,
        )
    positive, negative = read_stats(item.slots)
    return _Candidate(item, rule_state(item), positive, negative)


def _dto(c: _Candidate, rank: Rank, condition_paths: Sequence[str]) -> dict[str, Any]:
    """RuleMatchDTO: exactly the contract's whitelist, optional targets only when set."""
    slots = c.node.slots
    scope = rule_scope_of(slots)
    exceptions = slots.get("exceptions")
    dto: dict[str, Any] = {
        "rule_node_id": c.node.id,
        "state": c.state,
        "summary": c.node.text_summary or c.node.title,
        "rule_scope": scope.scope,
    }
    if scope.target_agent_id is not None:
        dto["target_agent_id"] = scope.target_agent_id
    if scope.target_team_id is not None:
        dto["target_team_id"] = scope.target_team_id
    dto.update(
        {
            "if_json": slots.get("if") if slots.get("if") is not None else {},
            "then_json": slots.get("then"),
            "exceptions_json": exceptions if exceptions is not None else [],
            "stats": {"positive": c.positive, "negative": c.negative},
            "rank": rank.as_dict(),
            "match_detail": {"condition_paths": list(condition_paths), "condition_path_count": len(condition_paths)},
            "commit_id": c.node.commit_id,
        }
    )
    return dto


def _ranked(matches_: Sequence[RuleMatch]) -> list[RankedPatch]:
    return [RankedPatch(m.rule_node_id, m.state, m.rank.score, m.patch) for m in matches_]


def evaluate(
    rules: Sequence[Node | RuleRecord],
    context: object,
    *,
    include_shadow: bool = True,
    limit: int = DEFAULT_LIMIT,
    reach: Visibility | None = None,
) -> Evaluation:
    """Evaluate visible SHADOW/ACTIVE rules against ``context`` and merge what they say.

    ``reach`` is the caller's visibility (services pass the one decided for the caller); without
    it the context's identity decides, as for an anonymous caller (rules/visibility.py)."""
    limit = max(0, min(int(limit), MAX_LIMIT))
    identity = Identity.from_context(context)
    reach = reach if reach is not None else identity.reach()
    tally = VisibilityTally()
    invalid_sample: list[dict[str, str]] = []
    meta_issues: dict[str, list[str]] = {}
    condition_errors: dict[str, list[str]] = {}
    active: list[RuleMatch] = []
    shadow: list[RuleMatch] = []

    candidates = sorted((_candidate(item) for item in rules), key=lambda c: c.node.id)
    for c in candidates:
        if c.node.type != "rule":
            continue
        if c.state != "active" and not (include_shadow and c.state == "shadow"):
            continue
        tally.scanned += 1
        slots = c.node.slots
        unowned = is_unowned_private(c.node)
        if unowned:
            tally.legacy_unowned_private_detected += 1
        if not scope_allows(rule_scope_of(slots), identity):
            tally.filtered_by_scope += 1
            continue
        if not lane_allows(c.node, reach):
            tally.filtered_by_lane += 1
            continue
        if unowned:
            tally.legacy_unowned_private_visible += 1
        check = parse_policy_patch(slots.get("then"))
        if check.patch is None:
            tally.skipped_invalid_then += 1
            if len(invalid_sample) < INVALID_THEN_SAMPLE:
                invalid_sample.append({"rule_node_id": c.node.id, "reason": check.error or "invalid"})
            continue
        result = matches(slots.get("if"), slots.get("exceptions"), context)
        if result.errors:
            condition_errors[c.node.id] = list(result.errors)
        if not result.matched:
            tally.filtered_by_condition += 1
            continue
        meta = parse_rule_meta(slots)
        if meta.issues:
            meta_issues[c.node.id] = list(meta.issues)
        rank = Rank.of(meta, c.positive, c.negative, specificity(slots.get("if")))
        match = RuleMatch(c.node.id, c.state, rank, check.patch, _dto(c, rank, result.condition_paths))
        if c.state == "active":
            tally.matched_active += 1
            active.append(match)
        else:
            tally.matched_shadow += 1
            shadow.append(match)

    def order(items: list[RuleMatch]) -> list[RuleMatch]:
        return sorted(items, key=lambda m: (-m.rank.score, m.rule_node_id))[:limit]

    active, shadow = order(active), order(shadow)
    merged = merge_policies(_ranked(active))
    applied: dict[str, Any] = {
        "policy": merged.policy,
        "sources": merged.sources,
        "conflicts": merged.conflicts,
        "conflict_explain": merged.conflict_explain,
        "tool_explain": merged.tool_explain,
    }
    if include_shadow:
        counterfactual = merge_policies(_ranked(active) + _ranked(shadow))
        applied.update(
            {
                "shadow_policy": counterfactual.policy,
                "shadow_sources": counterfactual.sources,
                "shadow_conflicts": counterfactual.conflicts,
                "shadow_tool_explain": counterfactual.tool_explain,
            }
        )
    matched = tally.matched_active + tally.matched_shadow
    return Evaluation(
        considered=tally.skipped_invalid_then + tally.filtered_by_condition + matched,
        matched=matched,
        skipped_invalid_then=tally.skipped_invalid_then,
        invalid_then_sample=invalid_sample,
        agent_visibility_summary=tally.summary(identity, lane_applied=reach.lanes_enforced),
        active=active,
        shadow=shadow,
        applied=applied,
        identity=identity,
        rule_meta_issues=meta_issues,
        condition_errors=condition_errors,
    )
