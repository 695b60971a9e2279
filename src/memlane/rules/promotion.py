"""Read-only promotion suggestions for the rule lifecycle (draft -> shadow -> active).

The helper only *suggests*; a person or an explicit ``rules/state`` call applies. Defaults come
from docs/api-graph.md and are configurable through ``PromotionThresholds``:

* draft -> shadow: at least 3 positive outcomes from *distinct* ``run_id`` s and no negative.
  Distinct runs keep one chatty run from promoting a rule on its own; positive feedback
  without a ``run_id`` counts toward ``positive`` but not toward distinct runs, since it cannot
  be shown to come from another run. Without an explicit ``RuleEvidence`` the counts come from
  ``slots.stats.positive`` / ``negative`` and the runs from ``slots.stats.positive_run_ids``
  (a list of run ids the feedback writer may keep).
* shadow -> active: at least 10 positives and ``negative / positive < 0.1``.

A rule that meets the numbers but could not legally enter the next state is reported with
``blockers`` instead of being suggested: a private rule without an owner (the contract forbids
it in shadow/active) or a ``then`` that fails the PolicyPatch schema (it would never apply).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.domain.model import Node
from memlane.rules.evaluate import rule_state
from memlane.rules.policy import parse_policy_patch, read_stats
from memlane.rules.visibility import is_unowned_private


@dataclass(frozen=True, slots=True)
class PromotionThresholds:
    shadow_min_distinct_positive_runs: int = 3
    shadow_max_negative: int = 0
    active_min_positive: int = 10
    #: promotion to active needs negative / positive strictly below this
    active_max_negative_ratio: float = 0.1


@dataclass(frozen=True, slots=True)
class RuleEvidence:
    """Feedback behind a suggestion: counts plus the runs that produced positive outcomes."""

    positive: int = 0
    negative: int = 0
    positive_run_ids: frozenset[str] = frozenset()

    @classmethod
    def from_slots(cls, slots: Mapping[str, Any]) -> RuleEvidence:
        """Counts from ``slots.stats`` plus ``slots.stats.positive_run_ids`` when the writer keeps them."""
        positive, negative = read_stats(slots)
        stats = slots.get("stats")
        raw = stats.get("positive_run_ids") if isinstance(stats, dict) else None
        runs = frozenset(r for r in raw if isinstance(r, str) and r) if isinstance(raw, list) else frozenset()
        return cls(positive, negative, runs)

    @classmethod
    def from_events(cls, events: Iterable[Mapping[str, Any]]) -> RuleEvidence:
        """Fold feedback events (``{"outcome": ..., "run_id"?: ...}``) into evidence."""
        positive = negative = 0
        runs: set[str] = set()
        for event in events:
            outcome = event.get("outcome")
            if outcome == "positive":
                positive += 1
                run_id = event.get("run_id")
                if isinstance(run_id, str) and run_id:
                    runs.add(run_id)
            elif outcome == "negative":
                negative += 1
        return cls(positive, negative, frozenset(runs))


@dataclass(frozen=True, slots=True)
class PromotionCheck:
    rule_node_id: str
    state: str
    to_state: str | None
    eligible: bool
    reasons: tuple[str, ...]
    blockers: tuple[str, ...] = ()
    evidence: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule_node_id": self.rule_node_id,
            "from_state": self.state,
            "to_state": self.to_state,
            "eligible": self.eligible,
            "reasons": list(self.reasons),
            "blockers": list(self.blockers),
            "evidence": dict(self.evidence),
        }


def _negative_ratio(evidence: RuleEvidence) -> float:
    """negative / positive; with no positive at all (possible with ``active_min_positive=0``)
    any negative is an infinite ratio and no feedback is a ratio of 0."""
    if evidence.positive == 0:
        return math.inf if evidence.negative else 0.0
    return evidence.negative / evidence.positive


def check_promotion(
    node: Node, evidence: RuleEvidence | None = None, thresholds: PromotionThresholds | None = None
) -> PromotionCheck:
    """Whether one rule has earned its next state; never changes anything."""
    t = thresholds or PromotionThresholds()
    if evidence is None:
        evidence = RuleEvidence.from_slots(node.slots)
    state = rule_state(node)
    runs = len(evidence.positive_run_ids)
    facts = {"positive": evidence.positive, "negative": evidence.negative, "distinct_positive_runs": runs}
    reasons: list[str] = []
    if state == "draft":
        to_state: str | None = "shadow"
        if runs < t.shadow_min_distinct_positive_runs:
            reasons.append(f"needs {t.shadow_min_distinct_positive_runs} positive runs, has {runs}")
        if evidence.negative > t.shadow_max_negative:
            reasons.append(f"has {evidence.negative} negative outcomes, at most {t.shadow_max_negative} allowed")
    elif state == "shadow":
        to_state = "active"
        if evidence.positive < t.active_min_positive:
            reasons.append(f"needs {t.active_min_positive} positives, has {evidence.positive}")
        elif _negative_ratio(evidence) >= t.active_max_negative_ratio:
            ratio = f"{evidence.negative}/{evidence.positive}"
            reasons.append(f"negative/positive {ratio} is not below {t.active_max_negative_ratio:g}")
    else:
        return PromotionCheck(node.id, state, None, False, (f"no promotion from {state}",), evidence=facts)
    met = not reasons
    blockers: list[str] = []
    if met:
        if node.type != "rule":
            blockers.append("not a rule node")
        if is_unowned_private(node):
            blockers.append("private rule without owner_agent_id or owner_team_id (invalid_private_rule_owner)")
        check = parse_policy_patch(node.slots.get("then"))
        if check.patch is None:
            blockers.append(f"invalid then: {check.error}")
        reasons.append(f"{state} -> {to_state}: thresholds met")
    return PromotionCheck(node.id, state, to_state, met and not blockers, tuple(reasons), tuple(blockers), facts)


def suggest_promotions(
    rules: Sequence[Node],
    evidence: Mapping[str, RuleEvidence] | None = None,
    thresholds: PromotionThresholds | None = None,
) -> list[PromotionCheck]:
    """Eligible promotions among ``rules``, by rule id; evidence defaults to ``slots.stats``."""
    checks = [check_promotion(node, (evidence or {}).get(node.id), thresholds) for node in rules]
    return sorted((c for c in checks if c.eligible), key=lambda c: c.rule_node_id)
