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

from typing_extensions import TypedDict

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


class RuleCountsView(TypedDict):
    """What every report of an evaluation carries (the rules surface, a recall's ``rules``
    block): how many rules were considered and matched, and the merged policy that applies."""

    considered: int
    matched: int
    skipped_invalid_then: int
    invalid_then_sample: list[dict[str, Any]]
    applied: dict[str, Any]


class EvaluationView(RuleCountsView):
    """``Evaluation.as_response()``: what the rules surface answers, minus tenant and scope."""

    agent_visibility_summary: dict[str, Any]
    active: list[dict[str, Any]]
    shadow: list[dict[str, Any]]


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

    def as_response(self) -> EvaluationView:
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


@dataclass(slots=True)
class _Scan:
    """What one evaluation found, rule by rule: the tally, the matches of each state, and the
    defects worth logging."""

    tally: VisibilityTally = field(default_factory=VisibilityTally)
    invalid_sample: list[dict[str, str]] = field(default_factory=list)
    meta_issues: dict[str, list[str]] = field(default_factory=dict)
    condition_errors: dict[str, list[str]] = field(default_factory=dict)
    active: list[RuleMatch] = field(default_factory=list)
    shadow: list[RuleMatch] = field(default_factory=list)

    def consider(
        self, c: _Candidate, context: object, identity: Identity, reach: Visibility, *, include_shadow: bool
    ) -> None:
        """One rule through the pipeline of the module's docstring: state, scope, lane, then, condition."""
        if c.node.type != "rule":
            return
        if c.state != "active" and not (include_shadow and c.state == "shadow"):
            return
        self.tally.scanned += 1
        if not self._visible(c, identity, reach):
            return
        check = parse_policy_patch(c.node.slots.get("then"))
        if check.patch is None:
            self.tally.skipped_invalid_then += 1
            if len(self.invalid_sample) < INVALID_THEN_SAMPLE:
                self.invalid_sample.append({"rule_node_id": c.node.id, "reason": check.error or "invalid"})
            return
        self._match(c, check.patch, context)

    def _visible(self, c: _Candidate, identity: Identity, reach: Visibility) -> bool:
        """Scope, then lane (visibility.py), counted in the tally either way."""
        tally = self.tally
        unowned = is_unowned_private(c.node)
        if unowned:
            tally.legacy_unowned_private_detected += 1
        if not scope_allows(rule_scope_of(c.node.slots), identity):
            tally.filtered_by_scope += 1
            return False
        if not lane_allows(c.node, reach):
            tally.filtered_by_lane += 1
            return False
        if unowned:
            tally.legacy_unowned_private_visible += 1
        return True

    def _match(self, c: _Candidate, patch: PolicyPatch, context: object) -> None:
        """The condition against ``context``; a match is ranked and kept with its state's."""
        slots = c.node.slots
        result = matches(slots.get("if"), slots.get("exceptions"), context)
        if result.errors:
            self.condition_errors[c.node.id] = list(result.errors)
        if not result.matched:
            self.tally.filtered_by_condition += 1
            return
        meta = parse_rule_meta(slots)
        if meta.issues:
            self.meta_issues[c.node.id] = list(meta.issues)
        rank = Rank.of(meta, c.positive, c.negative, specificity(slots.get("if")))
        match = RuleMatch(c.node.id, c.state, rank, patch, _dto(c, rank, result.condition_paths))
        if c.state == "active":
            self.tally.matched_active += 1
            self.active.append(match)
        else:
            self.tally.matched_shadow += 1
            self.shadow.append(match)


def _top(items: list[RuleMatch], limit: int) -> list[RuleMatch]:
    return sorted(items, key=lambda m: (-m.rank.score, m.rule_node_id))[:limit]


def _applied(active: list[RuleMatch], shadow: list[RuleMatch], *, include_shadow: bool) -> dict[str, Any]:
    """The active matches merged; with ``include_shadow``, also the counterfactual merge of the
    active and shadow matches (as if the shadow rules were promoted)."""
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
    return applied


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
    scan = _Scan()
    for c in sorted((_candidate(item) for item in rules), key=lambda c: c.node.id):
        scan.consider(c, context, identity, reach, include_shadow=include_shadow)
    active, shadow = _top(scan.active, limit), _top(scan.shadow, limit)
    tally = scan.tally
    matched = tally.matched_active + tally.matched_shadow
    return Evaluation(
        considered=tally.skipped_invalid_then + tally.filtered_by_condition + matched,
        matched=matched,
        skipped_invalid_then=tally.skipped_invalid_then,
        invalid_then_sample=scan.invalid_sample,
        agent_visibility_summary=tally.summary(identity, lane_applied=reach.lanes_enforced),
        active=active,
        shadow=shadow,
        applied=_applied(active, shadow, include_shadow=include_shadow),
        identity=identity,
        rule_meta_issues=scan.meta_issues,
        condition_errors=scan.condition_errors,
    )
