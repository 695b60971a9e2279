"""Rules as a use case: load a scope's rule nodes, evaluate them, select tools, record feedback,
move rules through their lifecycle, and suggest promotions.

The semantics live in ``memlane.rules`` (pure, exhaustively tested); this module adds what
needs the store: loading rules, read-modify-write of feedback counters and state under the
scope's write lock (``WriteService.mutate``), and a commit for every change.

Choices made here:

* **Loading.** Every rule node of the scope is loaded (keyset pages, no silent cap) and kept in
  a small per-process cache keyed by the scope's head commit. Every change to a node chains a
  commit, so a head that moved means "reload"; replicas never serve stale rules for longer
  than one request.
* **Feedback counters** live in ``slots.stats``: ``positive``, ``negative``, ``neutral`` (the
  evaluator and the promotion helper read them there), ``positive_run_ids`` (distinct run ids
  of positive outcomes, the newest ``MAX_RUN_IDS`` kept: promotion to shadow needs distinct
  runs), and ``last_outcome`` / ``last_run_id`` / ``last_feedback_at`` / ``last_source``.
* **Lifecycle** (the transitions and checks are ``memlane.rules.lifecycle``'s, which every write
  follows too: this is the only way a state changes). draft -> shadow -> active, and any state
  -> disabled. Asking for the state a rule is already in is a no-op (no commit). A rule may
  only enter shadow or active when it could actually apply: a private rule needs an owner
  (``invalid_private_rule_owner``), and ``then``, ``if``, ``exceptions`` and the rule scope
  must be valid (``invalid_rule_definition``). Other transitions are
  ``invalid_rule_state_transition`` (409). The last transitions are kept in
  ``slots.state_history``, each with its actor, and every change chains a commit with it.
* **Rights.** Moving a rule, to any state and even to the one it is in, needs the rights to
  govern it (``memlane.rules.governance``: with auth on, the admin and manager roles, its
  producer, its owner agent and its owning team's members): ``403 rule_governance_required``,
  checked once the rule is found and before its transitions. Feedback needs only to see the
  rule: it is how every agent the rule steers reports what it did.
* **Lanes.** With a caller identity, a private rule of another agent or team is reported as
  not found, never as forbidden, so its existence does not leak.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal, Protocol

from memlane.domain.clock import Clock, iso
from memlane.domain.errors import Conflict, InvalidRequest, NotFound
from memlane.domain.model import Commit, CommitInfo, Node
from memlane.domain.visibility import Viewer, Visibility, visibility_of
from memlane.rules.evaluate import RULE_STATES, Evaluation, RuleCountsView, RuleMatch, evaluate, rule_state
from memlane.rules.governance import rule_rights_of
from memlane.rules.lifecycle import TRANSITIONS, allowed_targets, definition_errors, with_transition
from memlane.rules.promotion import PromotionCheck, PromotionThresholds, check_promotion
from memlane.rules.tool_select import Selection, select_tools
from memlane.rules.visibility import is_unowned_private
from memlane.services.writing import WriteService
from memlane.store.base import NodePatch
from memlane.store.contracts.history import CommitReadOps
from memlane.store.contracts.maintenance import ScopeScanOps, scan_all_nodes

Outcome = Literal["positive", "negative", "neutral"]
OUTCOMES: Final = ("positive", "negative", "neutral")
MAX_RUN_IDS: Final = 100
MAX_NOTE_CHARS: Final = 2000
CACHE_SCOPES: Final = 256


def record_feedback(
    slots: dict[str, Any], outcome: str, *, run_id: str | None, now: datetime, source: str
) -> dict[str, Any]:
    """New slots with one feedback outcome counted in ``slots.stats`` (see module docstring)."""
    out = dict(slots)
    raw = slots.get("stats")
    stats: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    for key in OUTCOMES:
        value = stats.get(key)
        stats[key] = value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
    stats[outcome] += 1
    runs_raw = stats.get("positive_run_ids")
    runs = [r for r in runs_raw if isinstance(r, str) and r] if isinstance(runs_raw, list) else []
    if outcome == "positive" and run_id:
        runs = [r for r in runs if r != run_id] + [run_id]
    stats["positive_run_ids"] = runs[-MAX_RUN_IDS:]
    stats.update(
        last_outcome=outcome,
        last_run_id=run_id,
        last_feedback_at=iso(now),
        last_source=source,
    )
    out["stats"] = stats
    return out


@dataclass(slots=True)
class ToolSelection:
    evaluation: Evaluation
    selection: Selection
    shadow_selection: dict[str, Any] | None = None
    shadow_tool_conflicts_summary: list[str] | None = None


@dataclass(slots=True)
class FeedbackResult:
    rule_node_ids: list[str]
    commit: Commit | None
    stats: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass(slots=True)
class StateChange:
    rule_node_id: str
    previous_state: str
    state: str
    commit: Commit | None

    @property
    def changed(self) -> bool:
        return self.commit is not None


@dataclass(slots=True)
class _CachedRules:
    head: str | None
    rules: list[Node]


class RulesStore(CommitReadOps, ScopeScanOps, Protocol):
    """What the rules cache reads: a scope's head, to know it changed, and its rule nodes."""


class RulesBlockView(RuleCountsView):
    """The ``rules`` block of a recall that sent a ``rules_context`` (api/graph/responses.py)."""

    scope: str


class RulesService:
    def __init__(self, store: RulesStore, writes: WriteService, *, clock: Clock):
        self.store = store
        self.writes = writes
        self.clock = clock
        self._cache: OrderedDict[tuple[str, str], _CachedRules] = OrderedDict()
        self._lock = asyncio.Lock()

    def forget(self, tenant_id: str) -> None:
        """Drop the tenant's cached rules (an erasure: they may hold erased text)."""
        for key in [k for k in self._cache if k[0] == tenant_id]:
            del self._cache[key]

    # --- reading ------------------------------------------------------------------------
    async def load_rules(self, tenant_id: str, scope: str) -> list[Node]:
        """Every rule node of the scope, fresh as of the scope's head commit."""
        head = await self.store.head_commit_id(tenant_id, scope)
        key = (tenant_id, scope)
        cached = self._cache.get(key)
        if cached is not None and cached.head == head:
            self._cache.move_to_end(key)
            return cached.rules
        rules = await scan_all_nodes(self.store, tenant_id, scope, types=("rule",))
        async with self._lock:
            self._cache[key] = _CachedRules(head, rules)
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_SCOPES:
                self._cache.popitem(last=False)
        return rules

    async def evaluate(
        self, viewer: Viewer, scope: str, context: object, *, include_shadow: bool, limit: int
    ) -> Evaluation:
        """Rules of the scope the viewer may see (the one visibility rule), against ``context``."""
        rules = await self.load_rules(viewer.tenant_id, scope)
        return evaluate(rules, context, include_shadow=include_shadow, limit=limit, reach=visibility_of(viewer))

    async def recall_block(
        self, viewer: Viewer, scope: str, context: object, *, include_shadow: bool, limit: int
    ) -> RulesBlockView:
        """The ``rules`` block a recall with a ``rules_context`` returns: the scope's rules the
        viewer may see, evaluated against that context (docs/api-graph.md)."""
        ev = await self.evaluate(viewer, scope, context, include_shadow=include_shadow, limit=limit)
        return {
            "scope": scope,
            "considered": ev.considered,
            "matched": ev.matched,
            "skipped_invalid_then": ev.skipped_invalid_then,
            "invalid_then_sample": ev.invalid_then_sample,
            "applied": ev.applied,
        }

    async def select_tools(
        self,
        viewer: Viewer,
        scope: str,
        context: object,
        candidates: Sequence[str],
        *,
        include_shadow: bool,
        rules_limit: int,
        strict: bool,
    ) -> ToolSelection:
        """ACTIVE policy decides; with ``include_shadow`` a non-enforcing shadow decision too."""
        ev = await self.evaluate(viewer, scope, context, include_shadow=include_shadow, limit=rules_limit)
        selection = select_tools(candidates, ev.tool_policy, strict, tool_explain=ev.applied.get("tool_explain"))
        out = ToolSelection(ev, selection)
        if include_shadow:
            shadow_explain = ev.applied.get("shadow_tool_explain")
            try:
                shadow = select_tools(candidates, ev.shadow_tool_policy, strict, tool_explain=shadow_explain)
                out.shadow_selection = shadow.as_dict()
                out.shadow_tool_conflicts_summary = shadow.tool_conflicts_summary
            except InvalidRequest as exc:  # the shadow decision never enforces: report, do not fail
                details = exc.details or {}
                out.shadow_selection = {
                    "candidates": list(dict.fromkeys(candidates)),
                    "allowed": [],
                    "denied": list(details.get("denied") or []),
                    "preferred": [],
                    "ordered": [],
                    "selected": None,
                    "fallback": {"applied": False, "reason": details.get("reason"), "mode": "none", "error": exc.code},
                }
                out.shadow_tool_conflicts_summary = list(details.get("tool_conflicts_summary") or [])
        return out

    # --- feedback -----------------------------------------------------------------------
    async def rule_feedback(
        self,
        viewer: Viewer,
        scope: str,
        rule_node_id: str,
        outcome: str,
        *,
        run_id: str | None,
        note: str | None,
        actor: str | None,
        input_sha256: str,
    ) -> FeedbackResult:
        """Count one outcome on one rule (any state: draft rules earn promotion this way)."""
        result = FeedbackResult([], None)
        now = self.clock.now()
        reach = visibility_of(viewer)

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            node = self._visible_rule(found, rule_node_id, reach)
            slots = record_feedback(node.slots, outcome, run_id=run_id, now=now, source="feedback")
            result.rule_node_ids = [node.id]
            result.stats[node.id] = _counts(slots)
            diff = {
                "feedback": [
                    {"rule_node_id": node.id, "outcome": outcome, "run_id": run_id, "note": _note(note)},
                ]
            }
            return [NodePatch(id=node.id, slots=slots)], diff

        info = CommitInfo(actor=actor, input_sha256=input_sha256, kind="rule_feedback")
        result.commit = await self.writes.mutate(viewer.tenant_id, scope, [rule_node_id], mutate, info)
        return result

    async def tools_feedback(
        self,
        viewer: Viewer,
        scope: str,
        context: object,
        candidates: Sequence[str],
        selected_tool: str,
        outcome: str,
        *,
        target: str,
        include_shadow: bool,
        rules_limit: int,
        run_id: str | None,
        note: str | None,
        actor: str | None,
        input_sha256: str,
    ) -> FeedbackResult:
        """Attribute a tool decision's outcome to the rules that shaped it.

        The rules are re-evaluated against the same context: the matched ACTIVE rules (and,
        with ``include_shadow``, the matched SHADOW rules) that set any ``tool.*`` list, or
        every matched rule with ``target="all"``.
        """
        unique = _candidates_with(candidates, selected_tool)
        ids = await self._attributed(
            viewer, scope, context, target=target, include_shadow=include_shadow, rules_limit=rules_limit
        )
        result = FeedbackResult([], None)
        if not ids:
            return result
        now = self.clock.now()
        decision = {
            "selected_tool": selected_tool,
            "candidates": unique,
            "outcome": outcome,
            "target": target,
            "include_shadow": include_shadow,
            "run_id": run_id,
            "note": _note(note),
        }

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            patches: list[NodePatch] = []
            by_id = {n.id: n for n in found if n.type == "rule"}
            for rid in ids:
                node = by_id.get(rid)
                if node is None:  # deleted since it was evaluated
                    continue
                slots = record_feedback(node.slots, outcome, run_id=run_id, now=now, source="tools_feedback")
                patches.append(NodePatch(id=rid, slots=slots))
                result.rule_node_ids.append(rid)
                result.stats[rid] = _counts(slots)
            return patches, {"tools_feedback": {**decision, "rule_node_ids": list(result.rule_node_ids)}}

        info = CommitInfo(actor=actor, input_sha256=input_sha256, kind="tools_feedback")
        result.commit = await self.writes.mutate(viewer.tenant_id, scope, ids, mutate, info)
        return result

    async def _attributed(
        self, viewer: Viewer, scope: str, context: object, *, target: str, include_shadow: bool, rules_limit: int
    ) -> list[str]:
        """The rules a tool decision's outcome counts for: those that match ``context`` now
        (ACTIVE, and SHADOW with ``include_shadow``) and, with ``target="tool"``, set a
        ``tool.*`` list."""
        ev = await self.evaluate(viewer, scope, context, include_shadow=include_shadow, limit=rules_limit)
        matches: list[RuleMatch] = list(ev.active) + (list(ev.shadow) if include_shadow else [])
        if target == "tool":
            matches = [m for m in matches if any(p.startswith("tool.") for p in m.patch.paths())]
        return [m.rule_node_id for m in matches]

    # --- lifecycle ----------------------------------------------------------------------
    async def set_state(
        self,
        viewer: Viewer,
        scope: str,
        rule_node_id: str,
        state: str,
        *,
        actor: str | None,
        input_sha256: str,
    ) -> StateChange:
        if state not in RULE_STATES:
            raise InvalidRequest(
                f"state must be one of {', '.join(RULE_STATES)}", code="invalid_request", details={"field": "state"}
            )
        now = self.clock.now()
        change = StateChange(rule_node_id, state, state, None)
        reach = visibility_of(viewer)
        rights = rule_rights_of(viewer)

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            node = self._visible_rule(found, rule_node_id, reach)
            rights.require(node, field="rule_node_id", action=f"move it to {state}")
            current = rule_state(node)
            change.previous_state = current
            if current == state:
                return [], {}
            if state != "disabled" and (current, state) not in TRANSITIONS:
                allowed = allowed_targets(current)
                raise Conflict(
                    f"rule {node.id} is {current}; it cannot move to {state} "
                    f"(allowed: {', '.join(allowed) if allowed else 'none, disabled is final'})",
                    code="invalid_rule_state_transition",
                    details={"field": "state", "from": current, "to": state, "allowed": allowed},
                )
            if state in ("shadow", "active"):
                if is_unowned_private(node):
                    raise InvalidRequest(
                        f"rule {node.id} is in the private lane without owner_agent_id or owner_team_id; "
                        f"it cannot enter {state}",
                        code="invalid_private_rule_owner",
                        details={"field": "rule_node_id", "rule_node_id": node.id},
                    )
                problems = definition_errors(node)
                if problems:
                    where, reason = problems[0]
                    raise InvalidRequest(
                        f"rule {node.id} cannot enter {state}: {where}: {reason}",
                        code="invalid_rule_definition",
                        details={"field": where, "problems": [{"field": f, "reason": r} for f, r in problems[:10]]},
                    )
            slots = with_transition(node.slots, current, state, now=now, actor=actor)
            diff = {"rule_state": {"rule_node_id": node.id, "from": current, "to": state}}
            return [NodePatch(id=node.id, slots=slots)], diff

        info = CommitInfo(actor=actor, input_sha256=input_sha256, kind="rule_state")
        change.commit = await self.writes.mutate(viewer.tenant_id, scope, [rule_node_id], mutate, info)
        return change

    async def suggest_promotions(
        self, tenant_id: str, scope: str, thresholds: PromotionThresholds, *, include_ineligible: bool = False
    ) -> list[PromotionCheck]:
        """Read-only: which draft/shadow rules have earned their next state."""
        rules = await self.load_rules(tenant_id, scope)
        checks = [check_promotion(n, None, thresholds) for n in rules if rule_state(n) in ("draft", "shadow")]
        if not include_ineligible:
            checks = [c for c in checks if c.eligible]
        return sorted(checks, key=lambda c: c.rule_node_id)

    @staticmethod
    def _visible_rule(found: list[Node], rule_node_id: str, reach: Visibility) -> Node:
        node = next((n for n in found if n.id == rule_node_id), None)
        if node is None or not reach.can_see(node):
            raise NotFound(
                f"no rule {rule_node_id} in this scope", code="rule_not_found", details={"field": "rule_node_id"}
            )
        if node.type != "rule":
            raise InvalidRequest(
                f"node {rule_node_id} is a {node.type}, not a rule",
                code="not_a_rule",
                details={"field": "rule_node_id"},
            )
        return node


def _candidates_with(candidates: Sequence[str], selected_tool: str) -> list[str]:
    """The distinct candidates, once ``selected_tool`` is one of them (400 otherwise)."""
    unique = list(dict.fromkeys(candidates))
    if selected_tool not in unique:
        raise InvalidRequest(
            f"selected_tool {selected_tool!r} is not one of the candidates",
            code="selected_tool_not_in_candidates",
            details={"field": "selected_tool", "candidates": unique[:20]},
        )
    return unique


def _counts(slots: dict[str, Any]) -> dict[str, int]:
    stats = slots.get("stats") or {}
    return {k: int(stats.get(k, 0)) for k in OUTCOMES}


def _note(note: str | None) -> str | None:
    return note[:MAX_NOTE_CHARS] if note else None
