"""Composite ranking: relevance x (1 + recency_boost + importance_boost), relevance first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.services.conversation.ranking import MAX_BOOST, composite, recency_boost

NOW = datetime(2024, 6, 1, tzinfo=UTC)
unit = st.floats(0.0, 1.0, allow_nan=False)
ages = st.floats(0.0, 5000.0, allow_nan=False)


def score(sim: float, age_days: float, importance: float) -> float:
    return composite(
        sim, occurred_at=NOW - timedelta(days=age_days), importance=importance, now=NOW, half_life_days=30.0
    ).composite


@settings(max_examples=200, deadline=None)
@given(s1=unit, s2=unit, a1=ages, a2=ages, i1=unit, i2=unit)
def test_a_clearly_more_relevant_note_always_ranks_first(
    s1: float, s2: float, a1: float, a2: float, i1: float, i2: float
) -> None:
    if s1 > s2 * (1 + MAX_BOOST) + 1e-9:
        assert score(s1, a1, i1) > score(s2, a2, i2)


@settings(max_examples=100, deadline=None)
@given(sim=unit, young=ages, extra=st.floats(0.01, 1000.0), imp=unit)
def test_fresher_and_more_important_never_ranks_lower(sim: float, young: float, extra: float, imp: float) -> None:
    assert score(sim, young, imp) >= score(sim, young + extra, imp)
    assert score(sim, young, imp) >= score(sim, young, imp / 2)


def test_the_boosts_follow_the_documented_formulas() -> None:
    s = composite(0.8, occurred_at=NOW - timedelta(days=30), importance=0.5, now=NOW, half_life_days=30.0)
    assert s.recency_boost == pytest.approx(0.05)
    assert s.importance_boost == pytest.approx(0.05)
    assert s.composite == pytest.approx(0.8 * 1.10)


def test_negative_similarity_is_clamped_and_future_times_count_as_now() -> None:
    assert composite(-0.3, occurred_at=NOW, importance=1.0, now=NOW, half_life_days=30.0).composite == 0.0
    assert recency_boost(NOW + timedelta(days=3), NOW, 30.0) == pytest.approx(0.1)
    assert recency_boost(None, NOW, 30.0) == 0.0
