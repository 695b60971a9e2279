"""``MemoryReader.browse``, the browser's paging through a scope, on both backends: it returns
what ``find`` with the same filter returns, page by page, so the caller's reach, validity and
expiry hide the same memories everywhere."""

from __future__ import annotations

from datetime import timedelta

from memlane.domain.validity import HISTORY, ValidTime
from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from tests.security.test_reading import put


async def test_browse_pages_through_what_find_returns(services: Services) -> None:
    now = services.clock.now()
    shown = [await put(services, "t1", "s1", f"shown {i}") for i in range(5)]
    archived = await put(services, "t1", "s1", "archived", tier="archive")
    ended = await put(services, "t1", "s1", "ended", invalid_at=now - timedelta(days=1))
    expired = await put(services, "t1", "s1", "expired", expires_at=now - timedelta(seconds=1))
    hidden = await put(services, "t1", "s1", "bob's", memory_lane="private", owner_agent_id="bob")
    alice = Viewer("t1", agent_id="alice")

    async def every_page(**attrs: object) -> list[str]:
        out: list[str] = []
        after: str | None = None
        while True:
            page, after = await services.reader.browse(alice, "s1", after_id=after, limit=2, **attrs)
            out += [n.id for n in page]
            if after is None:
                return out

    current = await every_page(tiers=())
    assert sorted(current) == sorted([*shown, archived]), "ended, expired and others' private memories hidden"
    assert sorted(current) == sorted(n.id for n in await services.reader.find(alice, "s1", limit=50, tiers=()))
    assert sorted(await every_page()) == sorted(shown), "active tiers by default, as find"
    assert set(await every_page(tiers=(), when=HISTORY)) == {*shown, archived, ended, expired}
    before = ValidTime(as_of=now - timedelta(days=2))
    assert ended in await every_page(tiers=(), when=before), "valid two days ago"
    assert hidden not in await every_page(tiers=(), when=HISTORY)
    bobs, _ = await services.reader.browse(Viewer("t1", agent_id="bob"), "s1", after_id=None, limit=50, tiers=())
    assert hidden in {n.id for n in bobs}, "the owner's control"
