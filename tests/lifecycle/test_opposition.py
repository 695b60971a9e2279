"""The merge guard of every consolidation path (services/opposition.py): opposites and changed
values are kept apart, true paraphrases may merge."""

from __future__ import annotations

import pytest

from memlane.domain.model import Node
from memlane.services.lifecycle.compression import extractive_summary
from memlane.services.lifecycle.consolidation import contradiction
from memlane.services.opposition import opposition


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice is vegetarian", "Alice is not vegetarian"),
        ("Alice is not vegetarian. Alice does not eat meat.", "Alice is vegetarian. Alice eats meat."),
        ("The standup is at 9am", "The standup is at 10am"),
        ("Carol has two kids", "Carol has three kids"),
        ("Alice lives in Paris", "Alice lives in Rome"),
        ("Alice works at Google", "Alice works at Meta"),
        ("The deploy runs on Monday", "The deploy runs on Friday"),
        ("Bob prefers tea", "Bob avoids tea"),
        ("Dana loves early meetings", "Dana hates early meetings"),
        ("Priya is allergic to peanuts", "Priya is no longer allergic to peanuts"),
        ("Tom drives a Honda Civic", "Tom drives a Tesla Model 3"),
        ("Sam is single", "Sam is married"),
        ("Sam is expecting a baby girl", "Sam's baby girl is three weeks old"),
        ("Sam is a vegetarian", "Sam is a vegan"),
    ],
)
def test_opposites_and_changed_values_are_kept_apart(a: str, b: str) -> None:
    assert opposition(a, b) is not None
    assert opposition(b, a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice loves hiking in the Alps", "Alice enjoys hiking in the Alps"),
        ("Dave enjoys jazz music", "Dave really enjoys jazz"),
        ("The API key rotates every 30 days", "API keys are rotated every 30 days"),
        ("Alice moved to Berlin in 2020", "Alice relocated to Berlin in 2020"),
        ("Priya lives in a flat in Porto", "Priya lives in Porto, in a small flat"),
        ("Alice does not eat meat", "Alice doesn't eat any meat"),
    ],
)
def test_paraphrases_may_merge(a: str, b: str) -> None:
    assert opposition(a, b) is None


def test_a_negation_in_both_title_and_summary_does_not_cancel_out() -> None:
    yes = Node(tenant_id="t", id="a", scope="s", type="event", title="Alice is vegetarian",
               text_summary="Alice is vegetarian and eats no meat at all")  # fmt: skip
    no = Node(tenant_id="t", id="b", scope="s", type="event", title="Alice is not vegetarian",
              text_summary="Alice is not vegetarian and eats meat at all")  # fmt: skip
    assert contradiction(yes, no) is not None


def test_a_rollup_keeps_a_fact_and_its_negation() -> None:
    summary = extractive_summary(["Alice is vegetarian since last year.", "Alice is not vegetarian since last year."])
    assert "Alice is vegetarian" in summary and "Alice is not vegetarian" in summary


def test_consolidation_never_merges_single_with_married() -> None:
    single = Node(tenant_id="t", id="a", scope="s", type="fact", title="Sam's status",
                  text_summary="Sam is single and happy about it")  # fmt: skip
    married = Node(tenant_id="t", id="b", scope="s", type="fact", title="Sam's status",
                   text_summary="Sam's wife and Sam are happy about it")  # fmt: skip
    assert contradiction(single, married) is not None
