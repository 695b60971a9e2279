"""The relevance scale (services/ranking/calibration.py): the absolute curve, the background
a memory is judged against, and when that background counts."""

from __future__ import annotations

import math

import pytest

from memlane.config import Settings
from memlane.services.container import from_settings
from memlane.services.ranking.calibration import BACKGROUND_PRIOR, CONVERSATION_CUT, Background, RelevanceScale


def test_the_median_of_the_others_leaves_the_memory_itself_out() -> None:
    bg = Background.of([0.1, 0.5, 0.3, 0.9], whole=True)
    assert bg.median_without(0.9, member=True) == (0.3, 3)
    assert bg.median_without(0.1, member=True) == (0.5, 3)
    # a memory that is not a candidate (a keyword-only seed) is judged against all of them
    median, count = bg.median_without(0.7, member=False)
    assert median == pytest.approx(0.4) and count == 4
    # one memory alone has no others
    assert Background.of([0.4], whole=True).median_without(0.4, member=True) == (None, 0)


def test_a_lone_memory_and_a_search_cut_at_its_depth_keep_the_absolute_scale() -> None:
    scale = RelevanceScale()
    assert scale(0.385) == pytest.approx(1 / (1 + math.exp(-(0.385 - 0.22) / 0.123)))
    assert scale(0.385, Background.of([0.385], whole=True)) == scale.absolute(0.385)
    cut = Background.of([0.385, 0.6, 0.62, 0.64], whole=False)
    assert scale(0.385, cut) == scale.absolute(0.385)
    assert RelevanceScale(background=False)(0.385, Background.of([0.385, 0.6], whole=True)) == scale.absolute(0.385)


def test_a_memory_that_only_shares_the_subject_of_many_falls_below_the_cut_and_the_answer_stays() -> None:
    # twenty facts about one person: all alike (0.55-0.65), the answer stands out (0.76)
    cosines = [0.76] + [0.55 + 0.005 * i for i in range(19)]
    scale = RelevanceScale()
    bg = Background.of(cosines, whole=True)
    assert all(scale.absolute(c) > 0.9 for c in cosines), "the absolute scale passes them all"
    relevance = [scale(c, bg) for c in cosines]
    assert relevance[0] >= 0.7
    assert all(r < 0.7 for r in relevance[1:])


def test_within_one_query_relevance_grows_with_cosine_so_ranking_is_unchanged() -> None:
    cosines = [0.05, 0.2, 0.21, 0.33, 0.5, 0.51, 0.52, 0.7, 0.71]
    scale = RelevanceScale()
    bg = Background.of(cosines, whole=True)
    relevance = [scale(c, bg) for c in cosines]
    assert relevance == sorted(relevance)


def test_the_background_weighs_more_the_more_memories_it_is_measured_on() -> None:
    scale = RelevanceScale()
    few = Background.of([0.5, 0.3], whole=True)
    many = Background.of([0.5, *([0.3] * 40)], whole=True)
    # the same memory, the same median of the others: with 40 others the background decides more
    excess = (0.5 - 0.3 - scale.excess_midpoint) / scale.excess_scale
    absolute = (0.5 - scale.midpoint) / scale.scale
    for bg, k in ((few, 1), (many, 40)):
        w = k / (k + BACKGROUND_PRIOR)
        expected = 1 / (1 + math.exp(-((1 - w) * absolute + w * excess)))
        assert scale(0.5, bg) == pytest.approx(expected)


def test_the_scale_comes_from_the_settings_and_refuses_a_zero_scale() -> None:
    settings = Settings(
        MEMLANE_RELEVANCE_EXCESS_MIDPOINT=0.1, MEMLANE_RELEVANCE_EXCESS_SCALE=0.2, MEMLANE_RELEVANCE_BACKGROUND=False
    )
    scale = from_settings(RelevanceScale, settings.recall, prefix="relevance_")
    assert (scale.excess_midpoint, scale.excess_scale, scale.background) == (0.1, 0.2, False)
    assert Settings().conversation.similarity_threshold == CONVERSATION_CUT == 0.3
    with pytest.raises(ValueError):
        RelevanceScale(excess_scale=0.0)
