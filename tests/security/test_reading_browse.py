"""``MemoryReader.browse``, the browser's paging through a scope, on both backends: it returns
what ``find`` with the same filter returns, page by page, so the caller's reach, validity and
expiry hide the same memories everywhere; and its next-page cursor names only a memory the
page showed, sealed to the caller, scope and filter that asked (domain/cursors.py)."""

from __future__ import annotations

import base64
from datetime import timedelta
from typing import Any

import pytest

from memlane.domain.cursors import INVALID_CURSOR
from memlane.domain.errors import InvalidRequest
from memlane.domain.validity import HISTORY, ValidTime
from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from tests.security.test_reading import put

ALICE = Viewer("t1", agent_id="alice")


async def every_page(services: Services, viewer: Viewer, size: int = 2, **attrs: Any) -> tuple[list[str], list[str]]:
    """Every id ``viewer`` is shown, page by page, and every cursor it was handed."""
    out: list[str] = []
    cursors: list[str] = []
    cursor: str | None = None
    while True:
        page, cursor = await services.reader.browse(viewer, "s1", cursor=cursor, limit=size, **attrs)
        out += [n.id for n in page]
        if cursor is None:
            return out, cursors
        cursors.append(cursor)


def carried(cursor: str) -> str:
    """What a cursor's readable part holds (the rest is its MAC)."""
    body = cursor.partition(".")[0]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()


async def test_browse_pages_through_what_find_returns(services: Services) -> None:
    now = services.clock.now()
    shown = [await put(services, "t1", "s1", f"shown {i}") for i in range(5)]
    archived = await put(services, "t1", "s1", "archived", tier="archive")
    ended = await put(services, "t1", "s1", "ended", invalid_at=now - timedelta(days=1))
    expired = await put(services, "t1", "s1", "expired", expires_at=now - timedelta(seconds=1))
    hidden = await put(services, "t1", "s1", "bob's", memory_lane="private", owner_agent_id="bob")

    current, _ = await every_page(services, ALICE, tiers=())
    assert current == sorted([*shown, archived]), "ended, expired and others' private memories hidden, in id order"
    assert sorted(current) == sorted(n.id for n in await services.reader.find(ALICE, "s1", limit=50, tiers=()))
    assert sorted((await every_page(services, ALICE))[0]) == sorted(shown), "active tiers by default, as find"
    assert set((await every_page(services, ALICE, tiers=(), when=HISTORY))[0]) == {*shown, archived, ended, expired}
    before = ValidTime(as_of=now - timedelta(days=2))
    assert ended in (await every_page(services, ALICE, tiers=(), when=before))[0], "valid two days ago"
    assert hidden not in (await every_page(services, ALICE, tiers=(), when=HISTORY))[0]
    bobs, _ = await every_page(services, Viewer("t1", agent_id="bob"), size=50, tiers=())
    assert hidden in bobs, "the owner's control"
    since = await services.reader.node(ALICE, "s1", shown[3])
    assert since is not None and since.created_at is not None
    later, _ = await every_page(services, ALICE, written_from=since.created_at, tiers=())
    assert shown[3] in later and shown[0] not in later, "written from the fourth memory on"


async def test_a_cursor_names_only_a_memory_the_page_showed(services: Services) -> None:
    """Pages of one memory among runs of another agent's private ones: before, a page ended on
    the last row it read, and its link named that row, a memory the caller could not read."""
    seen: list[str] = []
    hidden: list[str] = []
    for i in range(4):
        seen.append(await put(services, "t1", "s1", f"alice may read {i}"))
        for j in range(3):
            hidden.append(await put(services, "t1", "s1", f"bob's {i}.{j}", memory_lane="private",
                                    owner_agent_id="bob"))  # fmt: skip
    shown, cursors = await every_page(services, ALICE, size=1, tiers=())
    assert shown == seen and len(cursors) == len(seen) - 1
    for cursor in cursors:
        assert not any(h in cursor or h in carried(cursor) for h in hidden), "a cursor names a hidden memory"
        assert carried(cursor).strip('[]"') in seen


@pytest.mark.parametrize(
    "who,scope,attrs",
    [
        (Viewer("t1", agent_id="bob"), "s1", {}),  # another agent
        (Viewer("t2", agent_id="alice"), "s1", {}),  # the same agent name in another tenant
        (Viewer("t1", agent_id="alice", user_id="u1"), "s1", {}),  # the same agent acting for a user
        (ALICE, "s2", {}),  # another scope
        (ALICE, "s1", {"types": ("entity",)}),  # another filter
        (ALICE, "s1", {"when": HISTORY}),
    ],
)
async def test_a_cursor_works_only_for_the_caller_scope_and_filter_it_was_issued_to(
    services: Services, who: Viewer, scope: str, attrs: dict[str, Any]
) -> None:
    for i in range(3):
        await put(services, "t1", "s1", f"shared {i}")
    _, cursor = await services.reader.browse(ALICE, "s1", cursor=None, limit=1)
    assert cursor is not None
    page, _ = await services.reader.browse(ALICE, "s1", cursor=cursor, limit=1)
    assert len(page) == 1, "its own caller continues"
    with pytest.raises(InvalidRequest) as refused:
        await services.reader.browse(who, scope, cursor=cursor, limit=1, **attrs)
    assert refused.value.code == INVALID_CURSOR and refused.value.details == {"field": "cursor"}


@pytest.mark.parametrize(
    "forge",
    [
        lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # one character of the MAC
        lambda c: base64.urlsafe_b64encode(b'["0"]').decode().rstrip("=") + "." + c.partition(".")[2],  # the position
        lambda c: "not a cursor",
        lambda c: c.partition(".")[0],  # no MAC
        lambda c: "é." + c.partition(".")[2],
        lambda c: c + "." * 600,
    ],
)
async def test_a_forged_cursor_is_refused_naming_the_field(services: Services, forge: Any) -> None:
    for i in range(3):
        await put(services, "t1", "s1", f"shared {i}")
    _, cursor = await services.reader.browse(ALICE, "s1", cursor=None, limit=1)
    assert cursor is not None
    with pytest.raises(InvalidRequest) as refused:
        await services.reader.browse(ALICE, "s1", cursor=forge(cursor), limit=1, field="after")
    assert refused.value.code == INVALID_CURSOR and refused.value.details == {"field": "after"}
    assert refused.value.message.startswith("after: ")
