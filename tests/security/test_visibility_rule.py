"""The one visibility rule (domain/visibility.py), case by case: every negative next to the
positive control that shows the same reader does see what it should."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memlane.domain.visibility import (
    EVERYTHING,
    SYSTEM_AGENTS_TEAM,
    VISIBILITY_COLUMNS,
    Attribution,
    Viewer,
    visibility_of,
)


@dataclass(frozen=True)
class Row:
    memory_lane: str = "shared"
    owner_agent_id: str | None = None
    owner_team_id: str | None = None
    layer: str | None = None
    user_id: str | None = None
    session_id: str | None = None


SHARED = Row()
ALICE_PRIVATE = Row(memory_lane="private", owner_agent_id="alice")
RED_PRIVATE = Row(memory_lane="private", owner_team_id="red")
WORKSPACE = Row(memory_lane="private", owner_team_id=SYSTEM_AGENTS_TEAM, layer="workspace")
U1 = Row(layer="user", user_id="u1")
U2_IN_S1 = Row(layer="user", user_id="u2", session_id="s1")
S1 = Row(layer="session", session_id="s1")
S2 = Row(layer="session", session_id="s2")
PROJECT_IN_S1 = Row(layer="project", session_id="s1")
#: shared memories attributed to a user (conversation notes; writes of a caller acting for one)
NOTE_U1 = Row(user_id="u1")
NOTE_U2 = Row(user_id="u2")
ALICE_PRIVATE_U1 = Row(memory_lane="private", owner_agent_id="alice", user_id="u1")


def sees(viewer: Viewer, row: Row) -> bool:
    return visibility_of(viewer).can_see(row)


@pytest.mark.parametrize(
    ("viewer", "seen", "hidden"),
    [
        (Viewer("t", agent_id="alice"), [SHARED, ALICE_PRIVATE], [RED_PRIVATE, WORKSPACE]),
        (Viewer("t", agent_id="bob", team_id="red"), [SHARED, RED_PRIVATE], [ALICE_PRIVATE, WORKSPACE]),
        (Viewer("t", authenticated=True), [SHARED], [ALICE_PRIVATE, RED_PRIVATE, WORKSPACE]),
        # auth off and no identity named: the whole tenant, but still no workspace
        (Viewer("t"), [SHARED, ALICE_PRIVATE, RED_PRIVATE], [WORKSPACE]),
        # system agents read workspace memory as members of the system team
        (Viewer("t", agent_id="p1", role="planner", authenticated=True), [SHARED, WORKSPACE], [ALICE_PRIVATE]),
        (Viewer("t", role="admin", authenticated=True), [SHARED, ALICE_PRIVATE, RED_PRIVATE, WORKSPACE], []),
    ],
)
def test_lanes_and_layers(viewer: Viewer, seen: list[Row], hidden: list[Row]) -> None:
    assert [r for r in seen if not sees(viewer, r)] == []
    assert [r for r in hidden if sees(viewer, r)] == []


def test_personal_memory_is_its_user_and_session_only() -> None:
    me = Viewer("t", agent_id="a", user_id="u1", session_id="s1")
    assert sees(me, U1) and sees(me, S1) and sees(me, PROJECT_IN_S1)
    assert not sees(me, S2)
    assert not sees(me, U2_IN_S1), "another user's memory, even one made in my session"
    assert not sees(Viewer("t", agent_id="a"), U1), "no user named: no user memory"
    assert not sees(Viewer("t", agent_id="a", user_id="u1"), S1), "no session named: no session memory"
    assert EVERYTHING.can_see(U2_IN_S1) and EVERYTHING.can_see(WORKSPACE)


def test_a_viewer_travels_with_a_job_and_reads_the_same_after() -> None:
    planner = Viewer("t", agent_id="p1", team_id="red", user_id="u1", session_id="s1", role="planner")
    back = Viewer.from_payload("t", planner.to_payload())
    assert back == Viewer("t", agent_id="p1", team_id="red", user_id="u1", session_id="s1", role="planner")
    assert visibility_of(back) == visibility_of(planner)
    # rows from before viewers were kept, or with junk in them, read shared memory only
    legacy = Viewer.from_payload("t", None)
    assert legacy == Viewer("t", authenticated=True)
    junk = Viewer.from_payload("t", {"agent_id": 7, "team_id": "", "role": 3, "user_id": ["x"]})
    assert (junk.agent_id, junk.team_id, junk.user_id, junk.role, junk.authenticated) == (
        None,
        None,
        None,
        "user_agent",
        True,
    )
    assert Viewer.from_payload("t", {"authenticated": False}).authenticated is False


@pytest.mark.parametrize(
    ("viewer", "seen", "hidden"),
    [
        # a credential bound to a user: its user's memories and no user's, whatever the lane
        (
            Viewer("t", agent_id="alice", user_id="u1", authenticated=True),
            [SHARED, NOTE_U1, ALICE_PRIVATE_U1],
            [NOTE_U2],
        ),
        (Viewer("t", agent_id="bob", user_id="u1", authenticated=True), [NOTE_U1], [NOTE_U2, ALICE_PRIVATE_U1]),
        (Viewer("t", agent_id="bob", user_id="u2", authenticated=True), [SHARED, NOTE_U2], [NOTE_U1]),
        # another agent's key, a tenant-wide key, a manager acting for nobody: no user's memories
        (Viewer("t", agent_id="carol", authenticated=True), [SHARED], [NOTE_U1, NOTE_U2]),
        (Viewer("t", authenticated=True), [SHARED], [NOTE_U1, NOTE_U2]),
        (Viewer("t", role="manager", authenticated=True), [SHARED], [NOTE_U1, NOTE_U2]),
        (Viewer("t", role="manager", user_id="u2", authenticated=True), [SHARED, NOTE_U2], [NOTE_U1]),
        (Viewer("t", role="admin", authenticated=True), [NOTE_U1, NOTE_U2, ALICE_PRIVATE_U1], []),
        # auth off: the request is taken at its word; naming no user reads every user's notes
        (Viewer("t"), [SHARED, NOTE_U1, NOTE_U2], []),
        (Viewer("t", user_id="u2"), [SHARED, NOTE_U2], [NOTE_U1]),
    ],
)
def test_a_memory_of_a_user_is_that_users_only(viewer: Viewer, seen: list[Row], hidden: list[Row]) -> None:
    assert [r for r in seen if not sees(viewer, r)] == []
    assert [r for r in hidden if sees(viewer, r)] == []


def test_tasks_and_buffers_are_judged_on_the_same_columns_as_nodes() -> None:
    assert tuple(Attribution.__dataclass_fields__) == VISIBILITY_COLUMNS
    u1 = Viewer("t", agent_id="a1", user_id="u1", authenticated=True)
    assert visibility_of(u1).can_see(Attribution(user_id="u1"))
    assert not visibility_of(u1).can_see(Attribution(user_id="u2"))
    assert not visibility_of(u1).can_see(Attribution(memory_lane="private", owner_agent_id="a2", user_id="u1"))
