"""The embedded keyword search ranks by BM25 over the scope's own rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from memlane.domain.model import ACTIVE_TIERS, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.store import migrate
from memlane.store.sqlite.keyword_rank import bm25_top, parse_rowids
from memlane.store.sqlite.store import SqliteStore
from tests.store.helpers import NOW, info, up
from tests.support.settings import DIM

EVERYONE = SeedFilter(valid_at=None, tiers=ACTIVE_TIERS, visibility=EVERYTHING)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    s = SqliteStore(url, vector_dim=DIM, keyword_term_max_docs=0)
    await s.open()
    yield s
    await s.close()


def _titled(title: str, client_id: str, summary: str = "") -> NodeUpsert:
    u = up(title, client_id=client_id)
    u.node.text_summary = summary
    return u


async def _ranked(store: SqliteStore, tenant: str, query: str) -> list[str]:
    hits = await store.keyword_search(tenant, "s1", query, 10, EVERYONE)
    by_id = {v: k for k, v in (await store.resolve_client_ids(tenant, "s1", [f"n{i}" for i in range(20)])).items()}
    return [by_id[h.id] for h in hits]


async def test_a_match_on_a_rare_word_outranks_a_match_on_a_common_one(store: SqliteStore) -> None:
    nodes = [_titled(f"coffee order {i}", f"n{i}") for i in range(6)]
    nodes.append(_titled("bought a saxophone", "n6"))
    await store.apply_write("t1", "s1", nodes, [], info(), now=NOW)
    assert (await _ranked(store, "t1", "coffee saxophone"))[0] == "n6"


async def test_matching_more_query_words_ranks_higher(store: SqliteStore) -> None:
    nodes = [
        _titled("hiking trip planned", "n0"),
        _titled("hiking trip with Maria to the Alps", "n1"),
        _titled("Maria likes tea", "n2"),
    ]
    await store.apply_write("t1", "s1", nodes, [], info(), now=NOW)
    assert (await _ranked(store, "t1", "Maria hiking Alps"))[0] == "n1"


async def test_a_short_note_outranks_a_long_one_for_the_same_word(store: SqliteStore) -> None:
    long_text = "a long note about the garden, the weather, neighbours, tools and plans " * 4
    nodes = [_titled("roses", "n0", long_text), _titled("roses bloom", "n1"), _titled("tulips", "n2")]
    await store.apply_write("t1", "s1", nodes, [], info(), now=NOW)
    assert await _ranked(store, "t1", "roses") == ["n1", "n0"]


async def test_another_tenants_data_does_not_change_a_scopes_scores(store: SqliteStore) -> None:
    mine = [_titled("violin lesson", "n0"), _titled("violin repair", "n1"), _titled("piano", "n2")]
    await store.apply_write("t1", "s1", mine, [], info(), now=NOW)
    before = await store.keyword_search("t1", "s1", "violin repair", 10, EVERYONE)
    others = [_titled("violin violin repair", f"x{i}") for i in range(40)]
    await store.apply_write("t2", "s1", others, [], info(), now=NOW)
    after = await store.keyword_search("t1", "s1", "violin repair", 10, EVERYONE)
    assert [(h.id, round(h.score, 6)) for h in after] == [(h.id, round(h.score, 6)) for h in before]


async def test_edited_text_is_ranked_by_its_new_words(store: SqliteStore) -> None:
    await store.apply_write("t1", "s1", [_titled("kayak rental", "n0"), _titled("kayak", "n1")], [], info(), now=NOW)
    assert await _ranked(store, "t1", "kayak") == ["n1", "n0"]
    edit = _titled("canoe rental", "n1")
    edit.fields_set = frozenset({"title"})
    await store.apply_write("t1", "s1", [edit], [], info("b" * 64), now=NOW)
    assert await _ranked(store, "t1", "kayak") == ["n0"]
    assert await _ranked(store, "t1", "canoe") == ["n1"]


def test_scores_follow_the_rows_given_and_respect_the_allowed_mask() -> None:
    lengths = np.array([10, 10, 40, 10], np.float32)
    allowed = np.array([True, True, True, False])
    rows, scores = bm25_top([np.array([0, 2, 3]), np.array([0])], lengths, float(lengths.mean()), allowed, 10)
    assert rows.tolist() == [0, 2]  # row 0 matches both words; row 3 is not allowed
    assert scores[0] > scores[1] > 0
    assert bm25_top([], lengths, 17.5, allowed, 10)[0].size == 0


def test_rowid_lists_parse_from_group_concat_text() -> None:
    assert parse_rowids("3,17,250").tolist() == [3, 17, 250]
    assert parse_rowids(None).size == 0
    assert parse_rowids("").size == 0
