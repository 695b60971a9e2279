"""The pure ranking pieces: fusion, query words, dates, graph blending, settings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from memlane.config import Settings
from memlane.domain.model import Edge
from memlane.services.container import from_settings
from memlane.services.ranking.activation import spread
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.fusion import (
    Candidates,
    fuse,
    reciprocal_rank_fusion,
    relative_score_fusion,
    tied_ranks,
)
from memlane.services.ranking.query_text import keyword_query, mentions, words
from memlane.services.ranking.temporal import Period, memory_day, parse_event_time, query_period


def edge(src: str, dst: str, type_: str = "related_to", weight: float = 1.0) -> Edge:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Edge(
        tenant_id="t",
        id=f"{src}-{dst}",
        scope="s",
        type=type_,
        src_id=src,
        dst_id=dst,
        weight=weight,
        confidence=1.0,
        decay_rate=0.0,
        created_at=now,
        updated_at=now,
        commit_id="c",
    )


# --- fusion -----------------------------------------------------------------------------------
def test_rank_fusion_scores_one_for_first_everywhere_and_weights_the_lists() -> None:
    lists = [Candidates(1.0, [("a", 0.9), ("b", 0.5)]), Candidates(2.0, [("a", 12.0), ("c", 3.0)])]
    fused = reciprocal_rank_fusion(lists, k=10)
    assert fused["a"] == pytest.approx(1.0)
    assert fused["c"] > fused["b"], "the heavier list's second place beats the lighter list's"


def test_a_document_found_by_both_lists_beats_one_found_by_either() -> None:
    lists = [
        Candidates(1.0, [("x", 0.9), ("both", 0.85), ("low", 0.1)]),
        Candidates(1.0, [("y", 9.0), ("both", 8.5), ("low2", 1.0)]),
    ]
    for method in ("relative", "rrf"):
        fused = fuse(method, lists, rrf_k=10)
        assert max(fused, key=lambda d: fused[d]) == "both", method


def test_relative_fusion_keeps_how_far_ahead_the_best_hit_is() -> None:
    close = relative_score_fusion([Candidates(1.0, [("a", 0.90), ("b", 0.89), ("z", 0.10)])])
    apart = relative_score_fusion([Candidates(1.0, [("a", 0.90), ("b", 0.20), ("z", 0.10)])])
    assert close["a"] == apart["a"] == 1.0 and close["z"] == apart["z"] == 0.0
    assert close["b"] > 0.95 > 0.2 > apart["b"]
    rrf = reciprocal_rank_fusion([Candidates(1.0, [("a", 0.90), ("b", 0.20), ("z", 0.10)])], k=10)
    assert rrf["b"] > 0.9, "rank fusion cannot tell the two cases apart"


def test_relative_fusion_anchors_at_the_floor_and_mixes_by_weight() -> None:
    fused = relative_score_fusion(
        [Candidates(0.4, [("a", 0.6), ("b", 0.3)], floor=0.0), Candidates(0.6, [("b", 8.0), ("c", 2.0)], floor=0.0)]
    )
    assert fused == pytest.approx({"a": 0.4, "b": 0.4 * 0.5 + 0.6, "c": 0.6 * 0.25})
    lone = relative_score_fusion([Candidates(1.0, [("only", 3.0)])])
    assert lone == {"only": 1.0}, "a list of one (or of ties) gives its documents full marks"


def test_equal_scores_share_a_rank_and_fuse_to_equal_scores_whatever_order_they_came_in() -> None:
    assert tied_ranks([("b", 0.5), ("a", 0.5), ("c", 0.4)]) == {"a": 1, "b": 1, "c": 3}
    for method in ("relative", "rrf"):
        one = fuse(method, [Candidates(1.0, [("b", 0.5), ("a", 0.5), ("c", 0.1)])], rrf_k=10)
        two = fuse(method, [Candidates(1.0, [("c", 0.1), ("a", 0.5), ("b", 0.5)])], rrf_k=10)
        assert one == two and one["a"] == one["b"], method


def test_a_list_with_zero_weight_is_ignored_and_bad_methods_are_refused() -> None:
    lists = [Candidates(1.0, [("a", 1.0)]), Candidates(0.0, [("b", 1.0)])]
    assert fuse("rrf", lists, rrf_k=10) == {"a": 1.0}
    assert fuse("relative", lists, rrf_k=10) == {"a": 1.0}
    assert fuse("relative", [Candidates(0.0, [("a", 1.0)])], rrf_k=10) == {}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion(lists, k=-1)
    with pytest.raises(ValueError):
        fuse("borda", lists, rrf_k=10)


# --- query text -------------------------------------------------------------------------------
def test_keyword_query_keeps_content_words_and_drops_question_words() -> None:
    assert keyword_query("When did Caroline go to the LGBTQ support group?") == "caroline go lgbtq support group"
    assert keyword_query("What's Melanie's favourite book?") == "melanie favourite book"
    assert keyword_query("what did they do?") is None
    assert keyword_query("") is None


def test_names_match_whole_words_and_need_every_part() -> None:
    q = frozenset(words("Where did Mary Ann travel with Johnson?"))
    assert mentions(q, "Mary Ann") and mentions(q, "mary")
    assert not mentions(q, "Ann Smith")
    assert not mentions(q, "John"), "a name is a word, not a prefix"
    assert not mentions(q, "  ")


# --- time -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,start,end",
    [
        ("What did Nate make on 9 November, 2022?", date(2022, 11, 9), date(2022, 11, 9)),
        ("What book did Tim finish on 8th December, 2023?", date(2023, 12, 8), date(2023, 12, 8)),
        ("Which team did John sign with on May 21, 2023?", date(2023, 5, 21), date(2023, 5, 21)),
        ("What happened on 2024-02-29?", date(2024, 2, 29), date(2024, 2, 29)),
        ("What is Joanna working on in August 2022?", date(2022, 8, 1), date(2022, 8, 31)),
        ("Where was he in Feb. 2024?", date(2024, 2, 1), date(2024, 2, 29)),
        ("Which performances did John achieve in 2023?", date(2023, 1, 1), date(2023, 12, 31)),
    ],
)
def test_a_question_naming_a_date_names_a_period(text: str, start: date, end: date) -> None:
    assert query_period(text) == Period(start, end)


def test_questions_without_a_date_name_no_period() -> None:
    assert query_period("When did Caroline go to the support group?") is None
    assert query_period("How many of the 30 guests came?") is None
    assert query_period("on 31 February, 2023") == Period(date(2023, 2, 1), date(2023, 2, 28)), (
        "an impossible day falls back to its month"
    )


def test_closeness_is_one_inside_the_period_and_fades_outside() -> None:
    p = Period(date(2023, 5, 1), date(2023, 5, 31))
    assert p.closeness(date(2023, 5, 15), 3.0) == 1.0
    near, far = p.closeness(date(2023, 6, 2), 3.0), p.closeness(date(2023, 7, 30), 3.0)
    assert 1.0 > near > far > 0.0
    assert p.closeness(date(2023, 6, 1), 0.0) == 0.0


def test_event_time_parses_iso_dates_and_date_times_and_ignores_anything_else() -> None:
    assert parse_event_time("2023-05-08") == date(2023, 5, 8)
    assert parse_event_time("2023-05-08T13:56:00") == date(2023, 5, 8)
    assert parse_event_time("2023-05-08T23:30:00-05:00") == date(2023, 5, 9), "compared in UTC"
    assert parse_event_time("2023-05-08T10:00:00Z") == date(2023, 5, 8)
    for bad in ("8 May 2023", "", None, 20230508, "2023-13-01"):
        assert parse_event_time(bad) is None


def test_a_memory_without_a_usable_event_time_is_dated_by_its_creation() -> None:
    created = datetime(2024, 1, 1, 23, 0, tzinfo=timezone(timedelta(hours=-3)))
    assert memory_day({"event_time": "2020-02-02"}, created) == date(2020, 2, 2)
    assert memory_day({"event_time": "yesterday"}, created) == date(2024, 1, 2)
    assert memory_day({}, None) is None


# --- graph ------------------------------------------------------------------------------------
def test_a_hub_linked_to_many_seeds_stays_below_the_best_direct_hit() -> None:
    base = {f"m{i}": 0.5 for i in range(10)} | {"direct": 0.6}
    known = {**dict.fromkeys(base), "hub": None}
    edges = [edge(f"m{i}", "hub", "part_of") for i in range(10)]
    act = spread(base, edges, known, hops=2, config=RankingConfig(graph_weight=1.0))
    assert act["hub"] < act["direct"]
    assert act["hub"] == pytest.approx(0.5 * 0.9 * 0.5)


def test_activation_passes_along_edges_and_fades_with_each_hop() -> None:
    act = spread(
        {"a": 1.0},
        [edge("a", "b"), edge("b", "c")],
        dict.fromkeys("abc"),
        hops=2,
        config=RankingConfig(graph_weight=1.0),
    )
    assert act["b"] == pytest.approx(0.3)
    assert act["c"] == pytest.approx(0.09)
    assert act["a"] == pytest.approx(1.0 + 0.09), "what comes back to a seed is faded twice"


def test_graph_weight_scales_what_neighbours_receive_and_unknown_nodes_get_nothing() -> None:
    edges = [edge("a", "b"), edge("a", "gone")]
    act = spread({"a": 1.0}, edges, dict.fromkeys("ab"), hops=1, config=RankingConfig(graph_weight=0.5))
    assert act == {"a": 1.0, "b": pytest.approx(0.15)}
    assert spread({"a": 1.0}, edges, dict.fromkeys("ab"), hops=1, config=RankingConfig(graph_weight=0.0))["b"] == 0.0


# --- settings ---------------------------------------------------------------------------------
def test_each_signal_is_switched_by_its_own_setting() -> None:
    cfg = from_settings(
        RankingConfig,
        Settings(
            MEMLANE_RECALL_KEYWORD="false",
            MEMLANE_RECALL_GRAPH="false",
            MEMLANE_RECALL_TIME="false",
            MEMLANE_RECALL_ENTITY="false",
            MEMLANE_RECALL_FUSION="rrf",
            MEMLANE_RECALL_RRF_K=60,
            MEMLANE_RECALL_CANDIDATES=40,
        ).recall,
    )
    assert (cfg.keyword, cfg.graph, cfg.time, cfg.entity) == (False, False, False, False)
    assert (cfg.fusion, cfg.rrf_k, cfg.candidates) == ("rrf", 60, 40)
    assert from_settings(RankingConfig, Settings().recall) == RankingConfig()


def test_out_of_range_ranking_settings_are_refused_at_startup() -> None:
    with pytest.raises(ValueError):
        Settings(MEMLANE_RECALL_CANDIDATES=0)
    with pytest.raises(ValueError):
        Settings(MEMLANE_RECALL_ENTITY_BOOST=-1)
    with pytest.raises(ValueError):
        Settings(MEMLANE_RECALL_FUSION="borda")
