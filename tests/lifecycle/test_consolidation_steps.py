"""Consolidation's named steps on their own: grouping candidates, and planning the merge
against the nodes as they are stored when it is applied."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memlane.domain.model import Node
from memlane.services.lifecycle.consolidation import (
    CandidatePair,
    ConsolidationOptions,
    MergeGroup,
    build_merge_group,
    canonical_slots,
    connected_groups,
    existing_aliases,
    merge_diff,
    plan_merges,
    screen_candidates,
)

NOW = datetime(2026, 5, 1, tzinfo=UTC)
TEA = "Alice prefers green tea in the morning"


def node(node_id: str, title: str = TEA, importance: float = 0.5, **slots: Any) -> Node:
    return Node(tenant_id="t", id=node_id, scope="s", type="event", title=title, importance=importance, slots=slots)


def pair(a: str, b: str) -> CandidatePair:
    return CandidatePair(a, b, 0.95, 0.8)


# --------------------------------------------------------------------------- grouping


def test_a_contradictory_pair_is_skipped_with_its_reason_unless_overridden() -> None:
    by_id = {"a": node("a"), "b": node("b", "Alice does not prefer green tea in the morning")}
    accepted, skipped = screen_candidates([pair("a", "b")], by_id, ConsolidationOptions())
    assert accepted == {} and [p.contradiction for p in skipped] == ["negation"]
    accepted, skipped = screen_candidates([pair("a", "b")], by_id, ConsolidationOptions(allow_contradictory=True))
    assert list(accepted) == [("a", "b")] and skipped == []


def test_duplicates_of_duplicates_form_one_group() -> None:
    accepted = {(p.a, p.b): p for p in (pair("a", "b"), pair("x", "y"), pair("b", "c"))}
    assert connected_groups(accepted) == [["a", "b", "c"], ["x", "y"]]


def test_an_already_canonical_node_stays_canonical_over_a_more_important_one() -> None:
    by_id = {"a": node("a", importance=0.9), "b": node("b", importance=0.1, merged_from=["old"])}
    accepted = {("a", "b"): pair("a", "b")}
    group, skipped = build_merge_group(["a", "b"], by_id, accepted, ConsolidationOptions())
    assert group is not None and (group.canonical_id, group.duplicate_ids) == ("b", ["a"])
    assert group.similarity == {"a": (0.95, 0.8)} and skipped == []


def test_a_member_that_contradicts_the_canonical_node_only_transitively_is_skipped() -> None:
    # a~b and b~c are accepted pairs, but c would alias a, which it contradicts.
    by_id = {
        "a": node("a", importance=0.9, polarity="positive"),
        "b": node("b"),
        "c": node("c", polarity="negative"),
    }
    accepted = {("a", "b"): pair("a", "b"), ("b", "c"): pair("b", "c")}
    group, skipped = build_merge_group(["a", "b", "c"], by_id, accepted, ConsolidationOptions())
    assert group is not None and group.duplicate_ids == ["b"]
    assert [(p.a, p.b, p.contradiction, p.embedding_similarity) for p in skipped] == [
        ("a", "c", "slots.polarity differs", 0.0)
    ]
    forced, _ = build_merge_group(["a", "b", "c"], by_id, accepted, ConsolidationOptions(allow_contradictory=True))
    assert forced is not None and forced.overrides == {"c": "slots.polarity differs"}


def test_a_group_left_without_duplicates_is_no_group() -> None:
    by_id = {"a": node("a", importance=0.9, polarity="positive"), "c": node("c", polarity="negative")}
    group, skipped = build_merge_group(["a", "c"], by_id, {}, ConsolidationOptions())
    assert group is None and len(skipped) == 1


def test_existing_aliases_are_those_whose_canonical_node_was_scanned() -> None:
    nodes = [node("a"), node("b", alias_of="a"), node("c", alias_of="elsewhere"), node("d", alias_of=7)]
    assert existing_aliases(nodes) == {"b": "a"}


# --------------------------------------------------------------------------- merge plan


def test_a_group_whose_canonical_node_was_aliased_since_the_plan_is_left_to_the_next_run() -> None:
    groups = [MergeGroup("event", "a", ["b"]), MergeGroup("event", "x", ["y"])]
    found = [node("a", alias_of="z"), node("b"), node("x"), node("y")]
    plan = plan_merges(groups, found, "run1", NOW)
    assert plan.aliased == {"y": "x"}
    assert [p.id for p in plan.patches] == ["y", "x"]


def test_duplicates_gone_or_aliased_since_the_plan_are_dropped_and_an_empty_group_is_skipped() -> None:
    groups = [MergeGroup("event", "a", ["b", "c", "d"]), MergeGroup("event", "x", ["y"])]
    found = [node("a"), node("b"), node("c", alias_of="q"), node("x"), node("y", alias_of="q")]
    plan = plan_merges(groups, found, "run1", NOW)
    assert plan.aliased == {"b": "a"}
    assert plan.groups == [{"canonical_id": "a", "duplicate_ids": ["b"], "overrides": {}}]


def test_merged_from_accumulates_over_runs_without_repeating_an_id() -> None:
    slots = canonical_slots(node("a", merged_from=["old", "b"], keep=1), [node("b"), node("c")], NOW)
    assert slots["merged_from"] == ["old", "b", "c"] and slots["merged_count"] == 3
    assert slots["keep"] == 1


def test_an_overridden_contradiction_is_marked_on_the_duplicate_and_in_the_diff() -> None:
    group = MergeGroup("event", "a", ["b", "c"], overrides={"c": "negation"}, similarity={"b": (0.93333, 0.61)})
    plan = plan_merges([group], [node("a"), node("b"), node("c")], "run1", NOW)
    slots = {p.id: p.slots or {} for p in plan.patches}
    assert slots["b"]["consolidation_similarity"] == {"embedding": 0.9333, "text": 0.61}
    assert "consolidation_override" not in slots["b"]
    assert slots["c"]["consolidation_override"] == "allow_contradictory"
    assert slots["c"]["contradiction_reason"] == "negation"
    assert slots["c"]["consolidation_similarity"] == {"embedding": 0.0, "text": 0.0}
    diff = merge_diff("run1", ConsolidationOptions(allow_contradictory=True), plan.groups)["consolidation"]
    assert diff["allow_contradictory"] is True and diff["groups"][0]["overrides"] == {"c": "negation"}
