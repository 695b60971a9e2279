"""Promotion suggestions: thresholds, distinct runs, blockers, and that nothing is changed."""

from __future__ import annotations

import copy

from memlane.rules.promotion import PromotionThresholds, RuleEvidence, check_promotion, suggest_promotions
from tests.rules.engine.factories import rule_node


def runs(*ids: str) -> RuleEvidence:
    return RuleEvidence.from_events([{"outcome": "positive", "run_id": i} for i in ids])


def test_draft_with_three_positive_runs_and_no_negative_is_suggested_for_shadow() -> None:
    check = check_promotion(rule_node("r", state="draft"), runs("a", "b", "c"))
    assert check.eligible and check.to_state == "shadow"
    assert check.evidence == {"positive": 3, "negative": 0, "distinct_positive_runs": 3}


def test_repeated_runs_count_once() -> None:
    check = check_promotion(rule_node("r", state="draft"), runs("a", "a", "b", "b"))
    assert not check.eligible
    assert check.reasons == ("needs 3 positive runs, has 2",)


def test_positive_feedback_without_run_id_does_not_count_as_a_run() -> None:
    evidence = RuleEvidence.from_events([{"outcome": "positive"}] * 5)
    assert evidence.positive == 5 and evidence.positive_run_ids == frozenset()
    assert not check_promotion(rule_node("r", state="draft"), evidence).eligible


def test_a_single_negative_blocks_draft_to_shadow() -> None:
    evidence = RuleEvidence.from_events(
        [{"outcome": "positive", "run_id": r} for r in "abcd"] + [{"outcome": "negative", "run_id": "e"}]
    )
    check = check_promotion(rule_node("r", state="draft"), evidence)
    assert not check.eligible
    assert check.reasons == ("has 1 negative outcomes, at most 0 allowed",)


def test_shadow_to_active_needs_ten_positives_and_a_low_negative_ratio() -> None:
    node = rule_node("r", state="shadow")
    assert check_promotion(node, RuleEvidence(10, 0)).to_state == "active"
    assert check_promotion(node, RuleEvidence(10, 0)).eligible
    assert check_promotion(node, RuleEvidence(20, 1)).eligible  # 0.05 < 0.1
    assert not check_promotion(node, RuleEvidence(9, 0)).eligible
    assert not check_promotion(node, RuleEvidence(10, 1)).eligible  # 0.1 is not below 0.1


def test_counts_and_runs_default_to_the_rule_slots() -> None:
    node = rule_node("r", state="shadow", positive=12, negative=1)
    assert check_promotion(node).eligible
    draft = rule_node("d", state="draft")
    draft.slots["stats"] = {"positive": 3, "negative": 0, "positive_run_ids": ["x", "y", "z"]}
    assert check_promotion(draft).eligible


def test_thresholds_are_configurable() -> None:
    lenient = PromotionThresholds(shadow_min_distinct_positive_runs=1, active_min_positive=2)
    assert check_promotion(rule_node("r", state="draft"), runs("a"), lenient).eligible
    assert check_promotion(rule_node("s", state="shadow"), RuleEvidence(2, 0), lenient).eligible


def test_active_and_disabled_rules_have_no_promotion() -> None:
    for state in ("active", "disabled"):
        check = check_promotion(rule_node("r", state=state), RuleEvidence(100, 0))
        assert not check.eligible and check.to_state is None


def test_unowned_private_rule_or_invalid_then_is_blocked_not_suggested() -> None:
    unowned = check_promotion(rule_node("r", state="shadow", lane="private"), RuleEvidence(10, 0))
    assert not unowned.eligible and "invalid_private_rule_owner" in unowned.blockers[0]
    broken = check_promotion(rule_node("b", state="shadow", then={"tool": "x"}), RuleEvidence(10, 0))
    assert not broken.eligible and broken.blockers[0].startswith("invalid then")


def test_suggestions_list_only_eligible_rules_and_change_nothing() -> None:
    rules = [
        rule_node("z", state="shadow", positive=15),
        rule_node("a", state="draft"),
        rule_node("m", state="shadow", positive=3),
    ]
    before = copy.deepcopy([r.slots for r in rules])
    suggestions = suggest_promotions(rules, {"a": runs("1", "2", "3")})
    assert [(s.rule_node_id, s.state, s.to_state) for s in suggestions] == [
        ("a", "draft", "shadow"),
        ("z", "shadow", "active"),
    ]
    assert [r.slots for r in rules] == before
    assert suggestions[0].as_dict()["from_state"] == "draft"


def test_a_zero_positive_threshold_never_divides_by_zero() -> None:
    lenient = PromotionThresholds(active_min_positive=0)
    assert check_promotion(rule_node("r", state="shadow"), RuleEvidence(), lenient).eligible
    blocked = check_promotion(rule_node("r", state="shadow"), RuleEvidence(negative=1), lenient)
    assert not blocked.eligible and blocked.reasons == ("negative/positive 1/0 is not below 0.1",)
