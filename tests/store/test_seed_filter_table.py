"""One table of filters and the nodes each must return, held against every renderer of terms.

A ``SeedFilter``'s meaning is its ``term()`` (domain/filters.py); the backends render it as
SQLAlchemy conditions (``find_nodes``), PostgreSQL text (vector and keyword search there) and
numpy masks (vector and keyword search on SQLite). Each row below is checked on all of them
and on the Python evaluator, so a renderer that drifts (a NULL column read three-valued, a
lane or layer rule left out) fails here by name. The nodes cover every column a filter
reads, with NULLs where a column may be NULL. A row that asks an instant (``valid_at``) also
leaves out the nodes expired by then (``expires_at <= instant``); one that asks none (a
history read) keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from memlane.domain.clock import new_id
from memlane.domain.filters import matches
from memlane.domain.model import CommitInfo, Node, NodeUpsert, SeedFilter
from memlane.domain.visibility import EVERYTHING, Visibility
from memlane.store.contracts import Store
from tests.support.settings import DIM

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
WORD = "zebra"
#: instants of the validity intervals below
Y2020 = datetime(2020, 1, 1, tzinfo=UTC)
Y2023 = datetime(2023, 1, 1, tzinfo=UTC)
LATER = NOW + timedelta(days=365)

#: label -> the node's columns other than the defaults (shared lane, hot, event, active, NULLs)
NODES: dict[str, dict[str, Any]] = {
    "shared": {},
    "alice": {"memory_lane": "private", "owner_agent_id": "alice"},
    "bob_red": {"memory_lane": "private", "owner_agent_id": "bob", "owner_team_id": "red"},
    "blue": {"memory_lane": "private", "owner_team_id": "blue"},
    "orphan": {"memory_lane": "private"},
    "warm": {"tier": "warm"},
    "cold": {"tier": "cold"},
    "archive": {"tier": "archive"},
    "draft_topic": {"type": "topic", "topic_state": "draft"},
    "topic": {"type": "topic"},
    "stable_topic": {"type": "topic", "topic_state": "stable"},
    "draft_event": {"topic_state": "draft"},
    "superseded": {"status": "superseded"},
    "rule": {"type": "rule"},
    "workspace": {"layer": "workspace"},
    "project_t1": {"layer": "project", "task_id": "t1"},
    "u1": {"layer": "user", "user_id": "u1"},
    "u2": {"layer": "user", "user_id": "u2"},
    "user_nobody": {"layer": "user"},
    "s1": {"layer": "session", "session_id": "s1", "user_id": "u1"},
    "s2": {"layer": "session", "session_id": "s2"},
    "u1_loose": {"user_id": "u1", "session_id": "s1", "task_id": "t1"},
    # a shared note of a user (conversation notes, writes of a caller acting for the user)
    "u2_note": {"user_id": "u2"},
    "alice_u1": {"memory_lane": "private", "owner_agent_id": "alice", "layer": "user", "user_id": "u1"},
    # validity intervals (domain/validity.py): begun, ended, both, not begun yet
    "since_2020": {"valid_at": Y2020},
    "until_2023": {"invalid_at": Y2023},
    "2020_to_2023": {"valid_at": Y2020, "invalid_at": Y2023},
    "from_later": {"valid_at": LATER},
    # expiry (domain/validity.py, unexpired_term): long past, at the instant itself, later
    "expired_2023": {"expires_at": Y2023},
    "expires_now": {"expires_at": NOW},
    "expires_later": {"expires_at": LATER, "layer": "project"},
    "ended_and_expiring": {"invalid_at": Y2023, "expires_at": LATER},
}
ALL = frozenset(NODES)
#: what the default tiers (hot, warm) and the draft-topic rule leave
ACTIVE = ALL - {"cold", "archive", "draft_topic"}
PRIVATE = frozenset({"alice", "bob_red", "blue", "orphan", "alice_u1"})
PERSONAL = frozenset({"u1", "u2", "user_nobody", "s1", "s2", "alice_u1"})
#: nodes attributed to a user outside the personal layers
USERS_LOOSE = frozenset({"u1_loose", "u2_note"})
#: the nodes with an interval that are not valid now
ENDED_OR_FUTURE = frozenset({"until_2023", "2020_to_2023", "from_later", "ended_and_expiring"})
#: the nodes expired at NOW (a memory expires at its expiry, so NOW itself counts)
EXPIRED_NOW = frozenset({"expired_2023", "expires_now"})
EXPIRING = EXPIRED_NOW | {"expires_later", "ended_and_expiring"}

LANES = Visibility(lanes_enforced=True, personal_enforced=False)
OPEN_LANES = Visibility(lanes_enforced=False)  # personal layers still enforced (the default)


@dataclass(frozen=True)
class Row:
    name: str
    flt: SeedFilter
    expected: frozenset[str]


def row(name: str, expected: frozenset[str] | set[str], visibility: Visibility = EVERYTHING, **fields: Any) -> Row:
    fields.setdefault("valid_at", None)  # every interval, unless the row asks an instant
    return Row(name, SeedFilter(visibility=visibility, **fields), frozenset(expected))


TABLE = [
    # SeedFilter fields, read by a reader who sees everything
    row("default: hot and warm, no draft topics", ACTIVE),
    row("every tier", ALL - {"draft_topic"}, tiers=()),
    row("cold and archive tiers", {"cold", "archive"}, tiers=("cold", "archive")),
    row("draft topics kept", ACTIVE | {"draft_topic"}, exclude_draft_topics=False),
    row("status superseded", {"superseded"}, statuses=("superseded",)),
    row("status active", ACTIVE - {"superseded"}, statuses=("active",)),
    row("type topic (a NULL topic_state is no draft)", {"topic", "stable_topic"}, types=("topic",)),
    row(
        "types topic and rule, drafts kept",
        {"draft_topic", "topic", "stable_topic", "rule"},
        types=("topic", "rule"),
        exclude_draft_topics=False,
    ),
    row("layer user", {"u1", "u2", "user_nobody", "alice_u1"}, layers=("user",)),
    row("layers workspace and project", {"workspace", "project_t1", "expires_later"}, layers=("workspace", "project")),
    row("user u1", {"u1", "s1", "u1_loose", "alice_u1"}, user_id="u1"),
    row("session s1", {"s1", "u1_loose"}, session_id="s1"),
    row("task t1", {"project_t1", "u1_loose"}, task_id="t1"),
    row("user, session and task", {"u1_loose"}, user_id="u1", session_id="s1", task_id="t1"),
    row("an unknown user", set(), user_id="nobody"),
    # validity: None reads every interval, an instant the facts valid then
    row("valid now", ACTIVE - ENDED_OR_FUTURE - EXPIRED_NOW, valid_at=NOW),
    row("valid in 2021", ACTIVE - {"from_later"}, valid_at=datetime(2021, 6, 1, tzinfo=UTC)),
    row(
        "valid before 2020",
        ACTIVE - {"since_2020", "2020_to_2023", "from_later"},
        valid_at=datetime(2019, 1, 1, tzinfo=UTC),
    ),
    row("an interval begins at valid_at", ACTIVE - {"from_later"}, valid_at=Y2020),
    row(
        "and has ended at invalid_at (and expired at expires_at)",
        ACTIVE - ENDED_OR_FUTURE - {"expired_2023"},
        valid_at=Y2023,
    ),
    row(
        "valid later: whatever has an expiry has expired",
        ACTIVE - {"until_2023", "2020_to_2023"} - EXPIRING,
        valid_at=LATER,
    ),
    row(
        "valid now, lanes for alice, user u1",
        (ACTIVE - {"bob_red", "blue", "orphan"} - PERSONAL - ENDED_OR_FUTURE - EXPIRED_NOW) | {"u1", "alice_u1"},
        Visibility(lanes_enforced=True, agent_id="alice", user_id="u1"),
        valid_at=NOW,
    ),
    # expiry: part of the same instant's term, not of a sweep
    row(
        "as_of a second before an expiry: not expired yet",
        ACTIVE - ENDED_OR_FUTURE - {"expired_2023"},
        valid_at=NOW - timedelta(seconds=1),
    ),
    row("a layer read later: its expired memory is gone", {"project_t1"}, layers=("project",), valid_at=LATER),
    row("a history read keeps expired memories", {"project_t1", "expires_later"}, layers=("project",)),
    # lanes
    row("lanes, anonymous: shared only (an orphan is no one's)", ACTIVE - PRIVATE, LANES),
    row(
        "lanes, agent alice",
        ACTIVE - {"bob_red", "blue", "orphan"},
        Visibility(lanes_enforced=True, agent_id="alice", personal_enforced=False),
    ),
    row(
        "lanes, team red",
        ACTIVE - {"alice", "blue", "orphan", "alice_u1"},
        Visibility(lanes_enforced=True, team_ids=("red",), personal_enforced=False),
    ),
    row(
        "lanes, teams red and blue",
        ACTIVE - {"alice", "orphan", "alice_u1"},
        Visibility(lanes_enforced=True, team_ids=("red", "blue"), personal_enforced=False),
    ),
    row(
        "lanes, agent bob of team blue",
        ACTIVE - {"alice", "orphan", "alice_u1"},
        Visibility(lanes_enforced=True, agent_id="bob", team_ids=("blue",), personal_enforced=False),
    ),
    row("lanes not enforced", ACTIVE, Visibility(lanes_enforced=False, personal_enforced=False, agent_id="alice")),
    # hidden layers (a NULL layer is never hidden)
    row(
        "hidden workspace layer",
        ACTIVE - {"workspace"},
        Visibility(lanes_enforced=False, personal_enforced=False, hidden_layers=("workspace",)),
    ),
    row(
        "hidden workspace and project layers, personal enforced",
        ACTIVE - {"workspace", "project_t1", "expires_later"} - PERSONAL,
        Visibility(lanes_enforced=False, hidden_layers=("workspace", "project")),
    ),
    # personal layers
    row("personal, no user or session", ACTIVE - PERSONAL, OPEN_LANES),
    row("personal, user u1", ACTIVE - PERSONAL | {"u1", "alice_u1"}, Visibility(lanes_enforced=False, user_id="u1")),
    row("personal, session s1", ACTIVE - PERSONAL | {"s1"}, Visibility(lanes_enforced=False, session_id="s1")),
    row(
        "personal, user u1 and session s2",
        ACTIVE - PERSONAL | {"u1", "alice_u1", "s2"},
        Visibility(lanes_enforced=False, user_id="u1", session_id="s2"),
    ),
    row(
        "personal, user u2 naming u1's session s1: a session narrows within the user",
        ACTIVE - PERSONAL | {"u2"},
        Visibility(lanes_enforced=False, user_id="u2", session_id="s1"),
    ),
    row("personal not enforced", ACTIVE, Visibility(lanes_enforced=False, personal_enforced=False, user_id="u9")),
    # users: a memory attributed to a user is that user's, whatever its layer and lane
    row(
        "users, no user: the memories of no user",
        ACTIVE - PERSONAL - USERS_LOOSE,
        Visibility(lanes_enforced=False, users_enforced=True),
    ),
    row(
        "users, user u2: its own and no user's",
        ACTIVE - PERSONAL - {"u1_loose"} | {"u2"},
        Visibility(lanes_enforced=False, user_id="u2", users_enforced=True),
    ),
    row(
        "users, user u1 in session s1, lanes for alice",
        (ACTIVE - PRIVATE - PERSONAL - {"u2_note"}) | {"alice", "alice_u1", "u1", "s1"},
        Visibility(lanes_enforced=True, agent_id="alice", user_id="u1", session_id="s1", users_enforced=True),
    ),
    row(
        "users without the personal rule: every memory of no user",
        ACTIVE - {"u1", "u2", "s1", "alice_u1"} - USERS_LOOSE,
        Visibility(lanes_enforced=False, personal_enforced=False, users_enforced=True),
    ),
    # all rules at once, and with attribute filters
    row(
        "alice for u1, workspace hidden",
        (ACTIVE - {"bob_red", "blue", "orphan", "workspace"} - PERSONAL) | {"u1", "alice_u1"},
        Visibility(lanes_enforced=True, agent_id="alice", user_id="u1", hidden_layers=("workspace",)),
    ),
    row(
        "team red for u2",
        (ACTIVE - PRIVATE - PERSONAL) | {"bob_red", "u2"},
        Visibility(lanes_enforced=True, team_ids=("red",), user_id="u2"),
    ),
    row(
        "alice for u1, user layer only",
        {"u1", "alice_u1"},
        Visibility(lanes_enforced=True, agent_id="alice", user_id="u1"),
        layers=("user",),
    ),
    row(
        "bob's lanes for u1 in s1, every tier, user u1",
        {"u1", "s1", "u1_loose"},
        Visibility(lanes_enforced=True, agent_id="bob", user_id="u1", session_id="s1"),
        tiers=(),
        user_id="u1",
    ),
]


def _nodes() -> list[Node]:
    out = []
    for label, columns in NODES.items():
        node = Node(tenant_id="t1", id=new_id(), scope="s1", type="event", client_id=label, title=f"{label} {WORD}")
        node.memory_lane = "shared"
        for name, value in columns.items():
            setattr(node, name, value)
        out.append(node)
    return out


def _vector(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM)
    return list(map(float, v / np.linalg.norm(v)))


def test_the_table_covers_every_seed_filter_field() -> None:
    fields = set(SeedFilter.__dataclass_fields__) - {"visibility", "valid_at"}
    used = {
        name for r in TABLE for name in fields if getattr(r.flt, name) != SeedFilter.__dataclass_fields__[name].default
    }
    assert used == fields
    assert any(r.flt.valid_at is not None for r in TABLE)
    assert any(r.flt.valid_at is not None and r.expected & EXPIRING for r in TABLE), "an unexpired one is kept"
    assert any(r.flt.valid_at is None and r.expected & EXPIRED_NOW for r in TABLE), "history keeps expired ones"


@pytest.mark.parametrize("case", TABLE, ids=[r.name for r in TABLE])
async def test_every_surface_returns_exactly_the_expected_nodes(store: Store, case: Row) -> None:
    nodes = _nodes()
    for n in nodes:
        n.embedding_model = "client"
    ups = [NodeUpsert(node=n, embedding=_vector(i)) for i, n in enumerate(nodes)]
    written = await store.apply_write("t1", "s1", ups, [], CommitInfo(actor="t", input_sha256="f" * 64), now=NOW)
    label = {n.id: n.client_id for n in written.nodes}
    assert len(label) == len(NODES)

    def labels(ids: list[str]) -> frozenset[str]:
        assert len(ids) == len(set(ids)), "an id came back twice"
        return frozenset(str(label[i]) for i in ids)

    term = case.flt.term()
    assert frozenset(str(n.client_id) for n in nodes if matches(term, n)) == case.expected, "python"
    found = await store.find_nodes("t1", "s1", case.flt, limit=100)
    assert labels([n.id for n in found]) == case.expected, "find_nodes"
    query = np.asarray(_vector(0), np.float32)
    hits = await store.vector_search("t1", "s1", query, 100, case.flt)
    assert labels([h.id for h in hits]) == case.expected, "vector_search"
    hits = await store.keyword_search("t1", "s1", WORD, 100, case.flt)
    assert labels([h.id for h in hits]) == case.expected, "keyword_search"
