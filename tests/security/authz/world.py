"""The world the authorization suite attacks: callers with credentials, and memories their
owners wrote through the surfaces they would use, on a real server with auth on.

Two tenants. In ``acme``: agents on two teams, a key bound to a team only, tenant-wide keys
with and without a system role, an admin key, keys and JWTs carrying users and a session,
and every role. In ``globex``: the same agent, team and user names, so a check that forgets
the tenant shows. Every memory carries a marker word that only its content holds and a few
topic words that queries use, so a response can be searched for what it must not contain.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Coroutine, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

import httpx
import jwt

from memlane.config import Settings
from memlane.domain.model import Node
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import build_store
from memlane.store.batcher import BatcherStore, BufferKey, BufferState
from memlane.store.contracts import Store
from tests.security.authz.model import Audience, RuleOwners, Who, resolve
from tests.support.server import LiveServer
from tests.support.settings import DIM

T = TypeVar("T")
JWT_SECRET = "authz-suite-secret-0123456789abcdef0123456789"
ACME, GLOBEX = "acme", "globex"
GRAPH, CONV, LAYERS = "g", "c", "l"
#: the conversation apps of tasks and memory batcher buffers
TASKS_APP, BUFFER_APP = "c-tasks", "c-buf"
#: every task target is submitted with this one key: each caller's key is its own
IDEMPOTENCY_KEY = "idem-shared"
#: a buffer flushes when it holds this many messages (MEMLANE_BATCHER_BATCH_SIZE)
BATCH_SIZE = 10
#: the agent tools keep their memories in the server's default scope
TOOLS_SCOPE = "default"
PROJECT = "p1"


@dataclass(frozen=True)
class Caller:
    name: str
    who: Who
    via_jwt: bool = False

    @cached_property
    def credential(self) -> str:
        if not self.via_jwt:
            return f"key-{self.name}"
        claims: dict[str, Any] = {"tenant_id": self.who.tenant, "exp": int(time.time()) + 86_400}
        for claim, value in (
            ("sub", self.who.agent),
            ("team_id", self.who.team),
            ("user_id", self.who.user),
            ("session_id", self.who.session),
            ("role", self.who.role),
        ):
            if value is not None:
                claims[claim] = value
        return jwt.encode(claims, JWT_SECRET, algorithm="HS256")

    def auth(self) -> dict[str, str]:
        if self.via_jwt:
            return {"Authorization": f"Bearer {self.credential}"}
        return {"X-Api-Key": self.credential}


def _caller(name: str, tenant: str, jwt_: bool = False, **ident: str) -> Caller:
    return Caller(name, Who(tenant=tenant, **ident), via_jwt=jwt_)


CALLERS: dict[str, Caller] = {
    c.name: c
    for c in (
        _caller("a1", ACME, agent="a1", team="red", user="u1", role="user_agent"),
        _caller("a2", ACME, agent="a2", team="red", user="u2", role="analyst"),
        _caller("a3", ACME, agent="a3", team="blue", role="planner"),
        _caller("a4", ACME, agent="a4", user="u1", session="s1", role="executor"),
        _caller("red", ACME, team="red", role="guardian"),
        _caller("wide", ACME),
        _caller("mgr", ACME, role="manager"),
        _caller("admin", ACME, role="admin"),
        _caller("j5", ACME, True, agent="a5", team="blue", user="u2", role="user_agent"),
        _caller("j6", ACME, True, agent="a6", role="guardian"),
        _caller("b1", GLOBEX, agent="a1", team="red", user="u1", role="user_agent"),
        _caller("badmin", GLOBEX, role="admin"),
        _caller("jb", GLOBEX, True, agent="a3", team="blue", role="planner"),
    )
}


def key_registry() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for c in CALLERS.values():
        if c.via_jwt:
            continue
        w = c.who
        entry = {
            "tenant_id": w.tenant,
            "agent_id": w.agent,
            "team_id": w.team,
            "user_id": w.user,
            "session_id": w.session,
            "role": w.role if w.role != "user_agent" else None,
        }
        out[c.credential] = {k: v for k, v in entry.items() if v is not None}
    return out


def server_env() -> dict[str, Any]:
    return {
        "MEMORY_AUTH_MODE": "api_key_or_jwt",
        "MEMORY_API_KEYS_JSON": json.dumps(key_registry()),
        "MEMORY_JWT_HS256_SECRET": JWT_SECRET,
        "MEMLANE_BATCHER_BATCH_SIZE": BATCH_SIZE,
        # buffers flush by size only while the suite runs: a flush changes the buffer's last
        # task, which the suite follows from the answers it gets (ops.py)
        "MEMLANE_BATCHER_IDLE_TIMEOUT_SEC": 86_400,
    }


@dataclass
class Target:
    """One memory (or knowledge item, task or memory batcher buffer) and who may see it."""

    name: str
    kind: str  # graph | rule | note | layered | tool | knowledge | task | buffer
    owner: str  # the caller that writes it
    audience: Audience
    scope: str | None = None
    node_type: str | None = None
    layer: str | None = None
    tier: str = "hot"
    #: extra fields of the write: transport, task id, project...
    spec: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    #: set for graph writes: the client id the node was written with
    client_id: str | None = None
    #: set for graph writes: the commit of the write (its row on a memory page's history)
    commit_id: str | None = None
    marker: str = field(default_factory=lambda: f"zmk{secrets.token_hex(5)}")

    @property
    def tenant(self) -> str:
        return CALLERS[self.owner].who.tenant

    @property
    def words(self) -> str:
        tag = self.name.replace("_", "")
        return f"{tag}topic {tag}detail {tag}fact"

    @property
    def content(self) -> str:
        return f"{self.words} {self.marker}"

    @property
    def is_node(self) -> bool:
        return self.kind not in ("knowledge", "task", "buffer")

    @property
    def inspectable(self) -> bool:
        """Its stored state can be read back from the database (a node or a buffer)."""
        return self.is_node or self.kind == "buffer"

    @property
    def user(self) -> str | None:
        """The user the memory is attributed to (docs/security.md, "Who sees what" and
        "Erasure"): conversation notes, tasks and buffers the request's ``user_id``; graph, rule
        and layered memories the user their writer acts for; tool memories of the user and
        session layers the caller's user; other tool memories and knowledge items nobody."""
        if "user_id" in self.spec:
            return str(self.spec["user_id"])
        if self.kind in ("graph", "rule", "layered") or (self.kind == "tool" and self.layer in ("user", "session")):
            return CALLERS[self.owner].who.user
        return None

    @property
    def owners(self) -> RuleOwners:
        """Whom a node belongs to (docs/security.md, "Writes"): its writer's agent produced it;
        it is owned by the owner fields its write names, else by the writer's agent, else by
        the writer's team."""
        w = CALLERS[self.owner].who
        agent, team = self.spec.get("owner_agent_id"), self.spec.get("owner_team_id")
        if agent is None and team is None:
            agent, team = (w.agent, None) if w.agent is not None else (None, w.team)
        return RuleOwners(producer=w.agent, agent=agent, team=team)

    @property
    def submitter(self) -> Who:
        """The caller a task or buffer target was written as: its owner acting for its user."""
        who, refusals = resolve(CALLERS[self.owner].who, None, {"user": (self.user,)} if self.user else {})
        assert not refusals, (self.name, refusals)
        return who

    def conversation_body(self) -> dict[str, Any]:
        """The body a task target was submitted with (a replay sends it again)."""
        return {"app_id": TASKS_APP, "user_id": self.user, "messages": f"{self.words} task of {self.name}"}

    @property
    def public_id(self) -> str:
        """The id the layered and tool surfaces show."""
        assert self.id is not None
        return f"mem_{self.id}" if self.kind in ("layered", "tool") else self.id


def _t(name: str, kind: str, owner: str, audience: Audience, **kw: Any) -> Target:
    return Target(name, kind, owner, audience, **kw)


def make_targets() -> list[Target]:
    g = {"scope": GRAPH, "node_type": "event"}
    rule = {"scope": GRAPH, "node_type": "rule"}
    tool = {"scope": TOOLS_SCOPE, "node_type": "concept"}
    lay = {"node_type": "concept"}
    ws = {"scope": LAYERS + "#workspace", "layer": "workspace", **lay}
    return [
        _t("g_a1", "graph", "a1", ("agent", "a1"), **g),
        _t("g_a3", "graph", "a3", ("agent", "a3"), **g),
        _t("g_red", "graph", "red", ("team", "red"), **g),
        _t("g_blue", "graph", "a3", ("team", "blue"), spec={"owner_team_id": "blue"}, **g),
        _t("g_shared", "graph", "wide", ("shared",), spec={"memory_lane": "shared"}, **g),
        _t("g_unowned", "graph", "admin", ("unowned",), **g),
        # a private node linked to a shared and a team node: recall from those must not expand into it
        _t("g_link_a1", "graph", "a1", ("agent", "a1"), spec={"links": ["g_shared", "g_red"]}, **g),
        _t("g_cold_a2", "graph", "a2", ("agent", "a2"), tier="cold", **g),
        _t("g_j5", "graph", "j5", ("agent", "a5"), **g),
        # a chain around the shared node for the two-hop view (/ui/part/memory): a shared
        # neighbour, and beyond it a private node and a shared node of a user
        _t("g_mid", "graph", "wide", ("shared",), spec={"memory_lane": "shared", "links": ["g_shared"]}, **g),
        _t("g_far_a3", "graph", "a3", ("agent", "a3"), spec={"links": ["g_mid"]}, **g),
        _t("g_far_u2", "graph", "a2", ("shared",), spec={"memory_lane": "shared", "links": ["g_mid"]}, **g),
        _t("g_b1", "graph", "b1", ("agent", "a1"), **g),
        _t("g_b_shared", "graph", "jb", ("shared",), spec={"memory_lane": "shared"}, **g),
        _t("r_a1", "rule", "a1", ("agent", "a1"), **rule),
        _t("r_red", "rule", "red", ("team", "red"), **rule),
        _t("r_shared", "rule", "mgr", ("shared",), spec={"memory_lane": "shared"}, **rule),
        _t("r_blue", "rule", "j5", ("team", "blue"), spec={"owner_team_id": "blue"}, **rule),
        _t("r_b1", "rule", "b1", ("agent", "a1"), **rule),
        # a shared node of a user: the lane lets everyone in, the user rule only that user's callers
        _t("g_shared_u1", "graph", "a1", ("shared",), spec={"memory_lane": "shared"}, **g),
        _t("note_a1", "note", "a1", ("shared",), scope=CONV, node_type="event", spec={"user_id": "u1"}),
        _t("note_j5", "note", "j5", ("shared",), scope=CONV, node_type="event", spec={"user_id": "u2"}),
        # the manager acting for a user (a tenant-wide key naming user_id)
        _t("note_mgr_u2", "note", "mgr", ("shared",), scope=CONV, node_type="event", spec={"user_id": "u2"}),
        _t("note_b1", "note", "b1", ("shared",), scope=CONV, node_type="event", spec={"user_id": "u1"}),
        _t("task_a1", "task", "a1", ("task", "a1", None), spec={"user_id": "u1"}),
        _t("task_mgr_u1", "task", "mgr", ("task", None, None), spec={"user_id": "u1"}),
        _t("task_j5", "task", "j5", ("task", "a5", None), spec={"user_id": "u2"}),
        _t("task_b1", "task", "b1", ("task", "a1", None), spec={"user_id": "u1"}),
        # a buffer of u1 that a4 filled; its id is the task its flush submitted, the user's
        _t("buf_u1", "buffer", "a4", ("shared",), scope=BUFFER_APP, spec={"user_id": "u1"}),
        _t("buf_b1", "buffer", "b1", ("shared",), scope=BUFFER_APP, spec={"user_id": "u1"}),
        _t("lay_identity", "layered", "mgr", ("shared",), scope=LAYERS, layer="identity", **lay),
        _t("lay_project", "layered", "a1", ("shared",), scope=LAYERS, layer="project", **lay),
        _t("lay_ws", "layered", "a3", ("workspace",), spec={"task_id": "wtask-1"}, **ws),
        _t("lay_ws_j6", "layered", "j6", ("workspace",), spec={"task_id": "wtask-2"}, **ws),
        _t("lay_b_project", "layered", "badmin", ("shared",), scope=LAYERS, layer="project", **lay),
        _t("tm_agent_a1", "tool", "a1", ("agent", "a1"), layer="agent", **tool),
        _t("tm_team_red", "tool", "a1", ("team", "red"), layer="team", **tool),
        _t("tm_user_u1", "tool", "a1", ("user", "u1"), layer="user", **tool),
        _t("tm_session_s1", "tool", "a4", ("session", "u1", "s1"), layer="session", **tool),
        _t("tm_session_s9", "tool", "a1", ("session", "u1", "s9"), layer="session", spec={"session": "s9"}, **tool),
        _t("tm_user_u2_mcp", "tool", "a2", ("user", "u2"), layer="user", spec={"mcp": True}, **tool),
        _t("tm_project", "tool", "a2", ("shared",), layer="project", spec={"project": PROJECT}, **tool),
        _t("tm_company", "tool", "wide", ("shared",), layer="company", **tool),
        _t("tm_agent_j5_mcp", "tool", "j5", ("agent", "a5"), layer="agent", spec={"mcp": True}, **tool),
        _t("tm_b_user", "tool", "b1", ("user", "u1"), layer="user", **tool),
        _t("kn_acme", "knowledge", "mgr", ("tenant",)),
        _t("kn_globex", "knowledge", "badmin", ("tenant",)),
    ]


EMBEDDER = HashingEmbedder(DIM)


def embed(text: str) -> list[float]:
    """The server's own embedder (hashing), so a client-side vector matches server-side ones."""
    return [float(x) for x in EMBEDDER.embed_sync([text])[0]]


class Loop:
    """A private event loop on a thread, for the async clients the suite needs (the store
    inspector and the MCP client) from synchronous hypothesis tests."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T] | Awaitable[T], timeout: float = 60) -> T:
        async def wrap() -> T:
            return await coro

        return asyncio.run_coroutine_threadsafe(wrap(), self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class Inspector:
    """Reads the server's database directly, to tell whether a refused change left a memory
    exactly as it was (a response alone cannot show that)."""

    def __init__(self, url: str, loop: Loop):
        self.loop = loop
        self.store: Store = build_store(Settings(MEMLANE_DATABASE_URL=url), dimension=DIM)
        loop.run(self.store.open())

    def node(self, tenant: str, node_id: str) -> Node | None:
        found = self.loop.run(self.store.get_nodes(tenant, None, [node_id]))
        return found[0] if found else None

    def fingerprint(self, target: Target) -> Node | BufferState | None:
        """The stored node, every column (vectors aside), or the stored buffer: equal before and
        after means untouched."""
        if target.kind == "buffer":
            return self.buffer(target.tenant, str(target.scope), str(target.user))
        assert target.id is not None
        return self.node(target.tenant, target.id)

    def neighbours(self, tenant: str, scope: str, node_id: str) -> set[str]:
        """The ids at the other end of the node's stored edges, whoever may see them."""
        edges = self.loop.run(
            self.store.edges_touching(
                tenant, scope, [node_id], min_weight=float("-inf"), min_confidence=float("-inf"), limit=1000
            )
        )
        return {e.dst_id if e.src_id == node_id else e.src_id for e in edges}

    def recent_commit_names(self, tenant: str, scope: str, commit_id: str, node_id: str, *, scan: int) -> bool:
        """The commit is among the scope's newest ``scan`` and its stored diff names the node."""
        commits = self.loop.run(self.store.list_commits(tenant, scope, limit=scan))
        return any(c.id == commit_id and node_id in json.dumps(c.diff) for c in commits)

    def buffer(self, tenant: str, app: str, user: str) -> BufferState | None:
        return self.loop.run(BatcherStore(self.store).get(BufferKey(tenant, app, user, None)))

    def close(self) -> None:
        self.loop.run(self.store.close())


# --- writing the targets, as their owners would --------------------------------------------
class Writer:
    """Creates (and re-creates, after an allowed delete) each target through its surface."""

    def __init__(self, server: LiveServer, http: httpx.Client, mcp: Any, targets: dict[str, Target]):
        self.server = server
        self.http = http
        self.mcp = mcp
        self.targets = targets

    def post(self, owner: str, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        r = self.http.post(path, json=body, headers={**CALLERS[owner].auth(), **(headers or {})})
        assert r.status_code in (200, 201, 202), (path, owner, r.status_code, r.text)
        return r.json()

    def erase(self, tenant: str, scope: str | None, node_id: str) -> None:
        """Remove a node by its tenant's admin: one another tenant's write made with a target's
        id, which would otherwise answer that tenant's reads of the id, or a rule target its
        governor disabled (disabled is final: the target is then written anew)."""
        admin = next(c for c in CALLERS.values() if c.who.tenant == tenant and c.who.admin)
        r = self.http.delete(f"/api/v1/memories/{node_id}", params={"app_id": scope}, headers=admin.auth())
        assert r.status_code == 200, r.text

    def create(self, t: Target) -> None:
        getattr(self, f"_create_{t.kind}")(t)

    def _create_graph(self, t: Target, slots: dict[str, Any] | None = None) -> None:
        node: dict[str, Any] = {
            "type": t.node_type,
            "title": t.words,
            "text_summary": t.content,
            "tier": t.tier,
            "embedding": embed(f"{t.words}\n{t.content}"),
        }
        if slots is not None:
            node["slots"] = slots
        fields = {k: v for k, v in t.spec.items() if k != "links"}
        body = {"scope": t.scope, "input_text": f"write {t.name}", "nodes": [node], **fields}
        # edges to other memories the owner may see: recall expands neighbourhoods along them
        node["client_id"] = t.client_id = t.name  # activate and rehydrate also name it this way (ops.py)
        linked = [self.targets[name].id for name in t.spec.get("links", ())]
        if linked:
            body["edges"] = [
                {"type": "related_to", "src": {"client_id": t.name}, "dst": {"id": other}} for other in linked if other
            ]
        written = self.post(t.owner, "/v1/memory/write", body)
        t.id, t.commit_id = written["nodes"][0]["id"], written["commit_id"]

    def _create_rule(self, t: Target) -> None:
        """Written as a draft, then made active by its owner through rules/state: a write cannot
        set a rule's state."""
        self._create_graph(t, {"if": {}, "then": {"tool": {"prefer": [f"tool_{t.name}"]}}})
        for state in ("shadow", "active"):
            body = {"scope": t.scope, "rule_node_id": t.id, "state": state, "input_text": f"review {t.name}"}
            self.post(t.owner, "/v1/memory/rules/state", body)

    def _create_note(self, t: Target) -> None:
        body = {
            "app_id": t.scope,
            "user_id": t.user,
            "messages": [{"role": "user", "content": t.content, "timestamp": "2024-05-01T10:00:00Z"}],
        }
        task = self.post(t.owner, "/api/v1/memories", body)["task_id"]
        notes = self.wait_task(t.owner, task, t.user)["result"]["memories"]
        assert notes, f"ingestion of {t.name} made no note"
        t.id = notes[0]["memory_id"]

    def _create_task(self, t: Target) -> None:
        headers = {"Idempotency-Key": IDEMPOTENCY_KEY}
        t.id = self.post(t.owner, "/api/v1/agent/memories", t.conversation_body(), headers)["task_id"]
        self.wait_task(t.owner, t.id, t.user)

    def _create_buffer(self, t: Target) -> None:
        """``BATCH_SIZE`` messages, the first with the marker: the buffer flushes at once."""
        messages = [{"role": "user", "content": t.content}]
        messages += [{"role": "user", "content": f"{t.words} message {i}"} for i in range(1, BATCH_SIZE)]
        body = {"app_id": t.scope, "user_id": t.user, "messages": messages}
        answer = self.post(t.owner, "/api/v1/memory-batcher/messages", body)
        assert answer["status"] == "flushed", answer
        t.id = answer["last_task_id"]
        self.wait_task(t.owner, str(t.id), t.user)

    def wait_task(self, owner: str, task_id: str, user: str | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        params = {"user_id": user} if user and CALLERS[owner].who.user is None else None
        while time.monotonic() < deadline:
            r = self.http.get(f"/api/v1/tasks/{task_id}", params=params, headers=CALLERS[owner].auth())
            assert r.status_code == 200, r.text
            body: dict[str, Any] = r.json()
            if body["status"] in ("completed", "failed"):
                assert body["status"] == "completed", body
                return body
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} did not finish")

    def _create_layered(self, t: Target) -> None:
        body: dict[str, Any] = {
            "scope": LAYERS,
            "layer": t.layer,
            "title": t.words,
            "content": t.content,
            "user_instruction": True,
        }
        if "task_id" in t.spec:
            body["metadata"] = {"task_id": t.spec["task_id"]}
        t.id = self.post(t.owner, "/v1/layers/write", body)["id"].removeprefix("mem_")

    def _create_tool(self, t: Target) -> None:
        headers = {}
        if "session" in t.spec:
            headers["X-Session-Id"] = t.spec["session"]
        if "project" in t.spec:
            headers["X-Project-Id"] = t.spec["project"]
        args = {"content": t.content, "layer": t.layer}
        if t.spec.get("mcp"):
            is_error, out = self.mcp.call(CALLERS[t.owner], headers, "memory_add", args)
            assert not is_error, out
        else:
            out = self.post(t.owner, "/v1/tools/memory_add", args, headers)
        t.id = str(out["memoryId"]).removeprefix("mem_")

    def _create_knowledge(self, t: Target) -> None:
        item = {
            "id": t.name.replace("_", "-"),
            "type": "policy",
            "layer": "company",
            "title": t.words,
            "summary": t.content,
            "content": f"# {t.words}\n{t.content}",
            "status": "accepted",
        }
        t.id = self.post(t.owner, "/v1/knowledge/items", item)["item"]["id"]


@dataclass
class World:
    server: LiveServer
    http: httpx.Client
    inspector: Inspector
    writer: Writer
    mcp: Any
    targets: dict[str, Target]
    #: ids of other tenants' memories that a tenant wrote into its own store itself (a write
    #: naming a foreign id makes a node of its own, erased at once, but its commit keeps the id)
    planted: dict[str, set[str]] = field(default_factory=dict)

    def caller(self, name: str) -> Caller:
        return CALLERS[name]

    def callers(self) -> list[Caller]:
        return list(CALLERS.values())


#: shared nodes written in each tenant's graph scope before the targets: every caller's
#: listing of the scope (/ui/part/browse, 50 a page) then has a next page, so paging and
#: its cursors are part of every attempt there
FILLERS = 60


def write_fillers(writer: Writer) -> None:
    for owner in ("wide", "badmin"):
        nodes = [{"type": "event", "title": f"filler {i}", "text_summary": f"filler {i}"} for i in range(FILLERS)]
        writer.post(owner, "/v1/memory/write", {"scope": GRAPH, "input_text": "fillers", "nodes": nodes,
                                                 "memory_lane": "shared"})  # fmt: skip


def build_world(server: LiveServer, url: str, mcp: Any, loop: Loop) -> Iterator[World]:
    with httpx.Client(base_url=server.url, timeout=60) as http:
        targets = {t.name: t for t in make_targets()}
        writer = Writer(server, http, mcp, targets)
        write_fillers(writer)
        for t in targets.values():
            writer.create(t)
        inspector = Inspector(url, loop)
        try:
            yield World(server, http, inspector, writer, mcp, targets)
        finally:
            inspector.close()
