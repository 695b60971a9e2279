"""Users of one tenant are kept apart on every surface (docs/security.md, "Who sees what").

With keys bound to users u1 and u2 of one tenant, another agent's key that carries no user, a
tenant-wide key, a manager and an admin, on a real server with API-key auth, on both backends:

* the ``user_id`` a conversation body or query names is checked against the credentials:
  ``403`` naming the field; a key bound to no user needs the admin or manager role to name one;
* notes, and any memory written while acting for a user, are that user's on every surface
  (conversation query/get/evolution/delete, graph recall, layers, the browser's fragments);
* memory batcher buffers are their user's, and so is the task a flush submits, whoever's
  message filled the buffer;
* an ``Idempotency-Key`` is its caller's: another caller's same key is a task of its own, and
  a 409 never names another caller's task.

With auth off, the request is taken at its word: the user it names, or every user.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import unit
from tests.support.server import ServerFactory
from tests.support.settings import api_keys

KEYS = {
    "k-u1": {"tenant_id": "acme", "agent_id": "a1", "user_id": "u1"},
    "k-u1-other": {"tenant_id": "acme", "agent_id": "a3", "user_id": "u1"},
    "k-u2": {"tenant_id": "acme", "agent_id": "a2", "user_id": "u2"},
    "k-agent": {"tenant_id": "acme", "agent_id": "a9"},
    "k-wide": {"tenant_id": "acme"},
    "k-manager": {"tenant_id": "acme", "role": "manager"},
    "k-admin": {"tenant_id": "acme", "role": "admin"},
}
#: what u1 confides; no other user's or user-less caller's answer may hold it
SECRET = "the diagnosis is tachycardia and the card PIN is 4711"
BATCH_SIZE = 2


@pytest.fixture(scope="module", params=BACKENDS)
def c(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with (
        live_server_factory(
            fresh_url(request),
            **api_keys(KEYS),
            MEMLANE_BATCHER_BATCH_SIZE=BATCH_SIZE,
            MEMLANE_BATCHER_IDLE_TIMEOUT_SEC=1,
        ) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        yield client


def key(name: str, **headers: str) -> dict[str, str]:
    return {"X-Api-Key": name, **headers}


def new_app() -> str:
    return f"app-{uuid.uuid4().hex[:8]}"


def wait_task(c: httpx.Client, task_id: str, who: str, **params: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = c.get(f"/api/v1/tasks/{task_id}", headers=key(who), params=params)
        assert r.status_code == 200, r.text
        if r.json()["status"] in ("completed", "failed"):
            assert r.json()["status"] == "completed", r.text
            return dict(r.json())
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} did not finish")


def confide(c: httpx.Client, app: str) -> str:
    """u1 tells the secret through ``POST /api/v1/memories``; returns the note's id."""
    body = {"app_id": app, "user_id": "u1", "messages": [{"role": "user", "content": SECRET}]}
    r = c.post("/api/v1/memories", headers=key("k-u1"), json=body)
    assert r.status_code == 202, r.text
    notes = wait_task(c, r.json()["task_id"], "k-u1")["result"]["memories"]
    assert notes, "the secret made no note"
    return str(notes[0]["memory_id"])


def query(c: httpx.Client, who: str, app: str, **params: str) -> httpx.Response:
    return c.get("/api/v1/memories/query", headers=key(who), params={"app_id": app, "query": "diagnosis PIN", **params})


def refused_naming(r: httpx.Response, field: str = "user_id") -> bool:
    return r.status_code == 403 and r.json()["detail"].startswith(field)


def test_a_key_bound_to_a_user_cannot_act_for_another_user_anywhere_on_the_conversation_surface(
    c: httpx.Client,
) -> None:
    app = new_app()
    message = [{"role": "user", "content": "I moved to Lyon"}]
    body = {"app_id": app, "user_id": "u1", "messages": message}
    attempts = [
        c.post("/api/v1/memories", headers=key("k-u2"), json=body),
        c.post("/api/v1/agent/memories", headers=key("k-u2"), json=body),
        c.post("/api/v1/agent/summaries", headers=key("k-u2"), json=body),
        c.post("/api/v1/memory-batcher/messages", headers=key("k-u2"), json=body),
        c.get("/api/v1/memory-batcher/buffers", headers=key("k-u2"), params={"app_id": app, "user_id": "u1"}),
        query(c, "k-u2", app, user_id="u1"),
    ]
    for r in attempts:
        assert refused_naming(r), (r.request.url, r.status_code, r.text)
        assert set(r.json()) == {"detail"}, "the conversation surface's envelope"
    # its own user is fine, also repeated in X-User-Id
    own = {**body, "user_id": "u2"}
    r = c.post("/api/v1/agent/memories", headers=key("k-u2", **{"X-User-Id": "u2"}), json=own)
    assert r.status_code == 202, r.text
    # a body and a header naming two users say nothing about whom the request acts for
    r = c.post("/api/v1/agent/memories", headers=key("k-manager", **{"X-User-Id": "u2"}), json=body)
    assert refused_naming(r, "X-User-Id"), r.text


def test_a_key_bound_to_no_user_needs_the_admin_or_manager_role_to_act_for_a_user(c: httpx.Client) -> None:
    body = {"app_id": new_app(), "user_id": "u1", "messages": "u1 prefers aisle seats"}
    for who in ("k-agent", "k-wide"):
        r = c.post("/api/v1/agent/memories", headers=key(who), json=body)
        assert refused_naming(r), (who, r.text)
        assert "admin or manager" in r.json()["detail"]
    for who in ("k-manager", "k-admin"):
        r = c.post("/api/v1/agent/memories", headers=key(who), json=body)
        assert r.status_code == 202, (who, r.text)
        assert r.json()["user_id"] == "u1"


def test_a_users_notes_are_hidden_from_other_users_other_agents_and_tenant_wide_keys(c: httpx.Client) -> None:
    app = new_app()
    note = confide(c, app)
    for who, params in (
        ("k-u1", {}),
        ("k-u1-other", {}),  # another agent acting for the same user
        ("k-manager", {"user_id": "u1"}),
        ("k-admin", {}),
    ):
        r = query(c, who, app, **params)
        assert r.status_code == 200 and note in r.text, (who, r.text)
    for who in ("k-u2", "k-agent", "k-wide", "k-manager"):
        r = query(c, who, app)
        assert r.status_code == 200 and r.json()["memories"] == [], (who, r.text)
        got = c.get(f"/api/v1/memories/{note}", headers=key(who), params={"app_id": app})
        assert got.status_code == 404 and "4711" not in got.text, (who, got.text)
        chain = c.get(f"/api/v1/memories/{note}/evolution", headers=key(who), params={"app_id": app})
        assert chain.status_code == 200 and chain.json()["memories"] == [], (who, chain.text)
        gone = c.delete(f"/api/v1/memories/{note}", headers=key(who), params={"app_id": app})
        assert gone.status_code == 404, (who, gone.text)
    r = c.get(f"/api/v1/memories/{note}", headers=key("k-u1"), params={"app_id": app})
    assert r.status_code == 200 and "4711" in r.text, "the refused deletes left the note"


def test_a_users_memories_are_hidden_on_every_surface_not_only_the_conversation_one(c: httpx.Client) -> None:
    app = new_app()
    note = confide(c, app)
    graph = c.post(
        "/v1/memory/write",
        headers=key("k-u1"),
        json={
            "scope": app,
            "input_text": "x",
            "memory_lane": "shared",
            "nodes": [
                {"type": "event", "title": "u1 banking", "text_summary": "u1 banks with Zeta", "embedding": unit(7)}
            ],
        },
    )
    assert graph.status_code == 200, graph.text
    shared = graph.json()["nodes"][0]["id"]

    def reads(who: str) -> list[httpx.Response]:
        return [
            c.post(
                "/v1/memory/recall_text", headers=key(who), json={"scope": app, "query_text": "diagnosis PIN banks"}
            ),
            c.post("/v1/memory/recall", headers=key(who), json={"scope": app, "query_embedding": unit(7)}),
            c.post("/v1/layers/search", headers=key(who), json={"scope": app, "query": "diagnosis PIN banks"}),
            c.get("/ui/part/notes", headers=key(who), params={"scope": app}),
            c.get("/ui/part/search", headers=key(who), params={"scope": app, "q": "diagnosis PIN banks"}),
            c.get(f"/ui/part/memory/{shared}", headers=key(who), params={"scope": app}),
        ]

    mine = reads("k-u1-other")
    assert all(r.status_code == 200 for r in mine), [r.text for r in mine]
    assert note in mine[0].text and shared in mine[1].text and "Zeta" in mine[5].text
    for who in ("k-u2", "k-agent", "k-wide"):
        for r in reads(who):
            assert r.status_code in (200, 404), (who, r.request.url, r.text)
            assert "4711" not in r.text and "Zeta" not in r.text, (who, r.request.url, r.text)
            if shared not in str(r.request.url):  # a refusal may repeat the id it was asked
                assert note not in r.text and shared not in r.text, (who, r.request.url, r.text)


def test_editing_a_node_keeps_the_user_it_belongs_to(c: httpx.Client) -> None:
    app = new_app()
    r = c.post(
        "/v1/memory/write",
        headers=key("k-wide"),
        json={
            "scope": app,
            "input_text": "x",
            "memory_lane": "shared",
            "nodes": [{"type": "event", "title": "office wifi", "embedding": unit(9)}],
        },
    )
    assert r.status_code == 200, r.text
    node = r.json()["nodes"][0]["id"]
    edit = c.post(
        "/v1/memory/write",
        headers=key("k-u2"),
        json={"scope": app, "input_text": "x", "nodes": [{"id": node, "type": "event", "importance": 0.9}]},
    )
    assert edit.status_code == 200, edit.text
    seen = c.post("/v1/memory/recall", headers=key("k-u1"), json={"scope": app, "query_embedding": unit(9)})
    assert node in {s["id"] for s in seen.json()["seeds"]}, "u2's edit handed the tenant's node to u2"


def test_a_buffer_is_read_and_filled_only_by_callers_acting_for_its_user(c: httpx.Client) -> None:
    app = new_app()
    said = [{"role": "user", "content": "my PIN is 4711"}]
    first = c.post(
        "/api/v1/memory-batcher/messages", headers=key("k-u1"), json={"app_id": app, "user_id": "u1", "messages": said}
    )
    assert first.status_code == 200, first.text
    for who in ("k-u2", "k-agent", "k-wide"):
        look = c.get("/api/v1/memory-batcher/buffers", headers=key(who), params={"app_id": app, "user_id": "u1"})
        add = c.post(
            "/api/v1/memory-batcher/messages",
            headers=key(who),
            json={"app_id": app, "user_id": "u1", "messages": [{"role": "user", "content": "injected"}] * BATCH_SIZE},
        )
        assert refused_naming(look) and refused_naming(add), (who, look.text, add.text)
    state = c.get("/api/v1/memory-batcher/buffers", headers=key("k-u1"), params={"app_id": app, "user_id": "u1"})
    # whether or not the idle flush ran meanwhile, the buffer holds u1's one message only
    assert state.json()["pending_messages"] + state.json()["flushed_messages"] == 1, state.text
    # u2's buffer of the same app is its own
    other = c.get("/api/v1/memory-batcher/buffers", headers=key("k-u2"), params={"app_id": app, "user_id": "u2"})
    assert other.status_code == 200 and other.json()["status"] == "empty", other.text


def test_a_flush_task_belongs_to_the_buffers_user_whoever_filled_it(c: httpx.Client) -> None:
    # a size flush triggered by another agent acting for u1
    app = new_app()
    batch = [{"role": "user", "content": f"u1 said {i}"} for i in range(BATCH_SIZE)]
    full = c.post(
        "/api/v1/memory-batcher/messages",
        headers=key("k-u1-other"),
        json={"app_id": app, "user_id": "u1", "messages": batch},
    )
    assert full.status_code == 200 and full.json()["status"] == "flushed", full.text
    # an idle flush of a buffer another agent of u1 appended to
    idle_app = new_app()
    one = [{"role": "user", "content": "u1 said it once"}]
    r = c.post(
        "/api/v1/memory-batcher/messages",
        headers=key("k-u1-other"),
        json={"app_id": idle_app, "user_id": "u1", "messages": one},
    )
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 60
    state: dict[str, Any] = {}
    while time.monotonic() < deadline and not state.get("last_task_id"):
        state = c.get(
            "/api/v1/memory-batcher/buffers", headers=key("k-u1"), params={"app_id": idle_app, "user_id": "u1"}
        ).json()
        time.sleep(0.1)
    assert state.get("last_flush_reason") == "idle_timeout", state
    for task in (full.json()["last_task_id"], state["last_task_id"]):
        assert wait_task(c, task, "k-u1")["user_id"] == "u1"
        assert c.get(f"/api/v1/tasks/{task}", headers=key("k-admin")).status_code == 200
        assert c.get(f"/api/v1/tasks/{task}", headers=key("k-manager"), params={"user_id": "u1"}).status_code == 200
        for who in ("k-u2", "k-agent", "k-wide", "k-manager"):
            r = c.get(f"/api/v1/tasks/{task}", headers=key(who))
            assert r.status_code == 404, (who, r.text)


def test_an_idempotency_key_is_its_callers_own(c: httpx.Client) -> None:
    app = new_app()
    idem = {"Idempotency-Key": f"retry-{uuid.uuid4().hex[:6]}"}

    def submit(who: str, user: str, text: str) -> httpx.Response:
        body = {"app_id": app, "user_id": user, "messages": text}
        return c.post("/api/v1/agent/memories", headers=key(who, **idem), json=body)

    first = submit("k-u1", "u1", "u1 takes warfarin")
    assert first.status_code == 202, first.text
    task = first.json()["task_id"]
    # the same key from other callers: tasks of their own, never u1's, and no 409 naming it
    others = [
        submit("k-u2", "u2", "u2 takes aspirin"),
        submit("k-u1-other", "u1", "u1 takes warfarin"),
        submit("k-admin", "u1", "u1 takes warfarin"),
    ]
    for r in others:
        assert r.status_code == 202 and r.json()["task_id"] != task and task not in r.text, r.text
    again = submit("k-u2", "u2", "u2 takes ibuprofen now")
    assert again.status_code == 409 and task not in again.text, again.text
    assert others[0].json()["task_id"] in again.text, "the 409 names the caller's own task"
    # u1's own retry is the first task; u1 reusing it for another body is the 409
    assert submit("k-u1", "u1", "u1 takes warfarin").json()["task_id"] == task
    reused = submit("k-u1", "u1", "u1 stopped warfarin")
    assert reused.status_code == 409 and task in reused.text
    # and u2 cannot read u1's task at all
    assert c.get(f"/api/v1/tasks/{task}", headers=key("k-u2")).status_code == 404


@pytest.fixture(scope="module", params=BACKENDS)
def open_server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    with live_server_factory(fresh_url(request)) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def test_with_auth_off_a_request_is_taken_at_its_word(open_server: httpx.Client) -> None:
    c = open_server
    app = new_app()
    notes = {}
    for user, fact in (("u1", "u1 keeps bees"), ("u2", "u2 keeps goats")):
        r = c.post("/api/v1/agent/memories", json={"app_id": app, "user_id": user, "messages": fact})
        assert r.status_code == 202, r.text
        task = c.get(f"/api/v1/tasks/{r.json()['task_id']}")
        deadline = time.monotonic() + 60
        while task.json()["status"] not in ("completed", "failed") and time.monotonic() < deadline:
            time.sleep(0.05)
            task = c.get(f"/api/v1/tasks/{r.json()['task_id']}")
        notes[user] = task.json()["result"]["memories"][0]["memory_id"]

    def found(**params: str) -> set[str]:
        r = c.get("/api/v1/memories/query", params={"app_id": app, "query": "keeps", **params})
        assert r.status_code == 200, r.text
        return {m["memory_id"] for m in r.json()["memories"]}

    assert found() == set(notes.values()), "naming no user, the request reads every user's notes"
    assert found(user_id="u2") == {notes["u2"]}
    r = c.get("/api/v1/memories/query", params={"app_id": app, "query": "keeps"}, headers={"X-User-Id": "u2"})
    assert {m["memory_id"] for m in r.json()["memories"]} == {notes["u2"]}, "acting for u2 through the header"
    other = c.get(f"/api/v1/memories/{notes['u1']}", params={"app_id": app, "user_id": "u2"})
    assert other.status_code == 404
