"""The embedded keyword search leaves out words too common to be worth their cost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from memlane.domain.model import ACTIVE_TIERS, SeedFilter
from memlane.domain.visibility import EVERYTHING
from memlane.store import migrate
from memlane.store.sqlite.store import SqliteStore
from tests.store.helpers import NOW, info, up
from tests.support.settings import DIM

EVERYONE = SeedFilter(valid_at=None, tiers=ACTIVE_TIERS, visibility=EVERYTHING)


async def _store(path: Path, max_docs: int) -> SqliteStore:
    url = f"sqlite:///{path}"
    await asyncio.to_thread(migrate.upgrade, url)
    store = SqliteStore(url, vector_dim=DIM, keyword_term_max_docs=max_docs)
    await store.open()
    nodes = [up(f"weekly groceries list {i}", client_id=f"g{i}") for i in range(12)]
    nodes += [up("groceries and a saxophone lesson", client_id="sax"), up("tuba practice", client_id="tuba")]
    await store.apply_write("t1", "s1", nodes, [], info(), now=NOW)
    return store


async def test_a_word_in_too_many_documents_is_left_out_while_a_rarer_word_remains(tmp_path: Path) -> None:
    store = await _store(tmp_path / "m.db", max_docs=5)
    try:
        ids = await store.resolve_client_ids("t1", "s1", ["sax"])
        hits = await store.keyword_search("t1", "s1", "groceries saxophone", 20, EVERYONE)
        assert [h.id for h in hits] == [ids["sax"]]
    finally:
        await store.close()


async def test_when_every_word_is_common_the_rarest_still_ranks(tmp_path: Path) -> None:
    store = await _store(tmp_path / "m.db", max_docs=5)
    try:
        hits = await store.keyword_search("t1", "s1", "groceries weekly", 20, EVERYONE)
        assert len(hits) == 12  # "weekly" (12 documents) is rarer than "groceries" (13)
    finally:
        await store.close()


async def test_with_no_bound_every_word_ranks(tmp_path: Path) -> None:
    store = await _store(tmp_path / "m.db", max_docs=0)
    try:
        hits = await store.keyword_search("t1", "s1", "groceries saxophone", 20, EVERYONE)
        assert len(hits) == 13
    finally:
        await store.close()


async def test_matches_crowded_out_by_other_scopes_are_still_found(tmp_path: Path) -> None:
    """The index is shared: a scope's hits may rank below hundreds of another scope's."""
    store = await _store(tmp_path / "m.db", max_docs=0)
    try:
        busy = [up("apple apple apple", client_id=f"b{i}", scope="busy") for i in range(260)]
        await store.apply_write("t1", "busy", busy, [], info(), now=NOW)
        await store.apply_write("t2", "s1", [up("an apple a day", client_id="mine")], [], info(), now=NOW)
        hits = await store.keyword_search("t2", "s1", "apple", 5, EVERYONE)
        assert [h.id for h in hits] == list((await store.resolve_client_ids("t2", "s1", ["mine"])).values())
    finally:
        await store.close()
