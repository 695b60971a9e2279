"""A memory's commit history shows a caller only the changes it may see (docs/security.md,
"Commit history"): a commit that wrote a memory hidden from the caller, linked to one it sees,
is not listed on that memory's page, so neither the hidden memory nor its author shows; a
commit that also changed something visible is listed with its diff cut to what the caller may
see. On a real server with API-key auth, and through ``MemoryReader.history``, on both backends.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from memlane.domain.commit_view import named_ids, visible_diff
from memlane.domain.model import CommitInfo, EdgeRef
from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec
from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import write
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys

ALICE, BOB, ADMIN = "key-alice-history", "key-bob-history", "key-admin-history"
KEYS = {
    ALICE: {"tenant_id": "acme", "agent_id": "alice"},
    BOB: {"tenant_id": "acme", "agent_id": "bob"},
    ADMIN: {"tenant_id": "acme", "agent_id": "ops", "role": "admin"},
}
ROW = re.compile(r'<tr data-commit-id="([0-9a-f-]+)">')


def ids(n: int) -> list[str]:
    return [str(uuid.uuid4()) for _ in range(n)]


# --- the rule, on diffs as the store writes them ----------------------------------------------
def test_an_edge_to_a_hidden_memory_is_dropped_with_the_hidden_node() -> None:
    shown, hidden, edge = ids(3)
    diff = {
        "nodes": [{"op": "create", "id": hidden, "client_id": "locker", "type": "event"}],
        "edges": [{"op": "create", "id": edge, "type": "related_to", "src_id": hidden, "dst_id": shown}],
    }
    assert named_ids(diff) == {shown, hidden}, "an edge's own id is judged by its ends"
    kept = visible_diff(diff, {shown}.__contains__)
    assert kept == {"nodes": [], "edges": []} and shown not in named_ids(kept)
    assert visible_diff(diff, {shown, hidden}.__contains__) == diff, "the owner sees it whole"


def test_a_mapping_keyed_by_a_hidden_id_loses_that_pair_only() -> None:
    shown, hidden, other = ids(3)
    diff = {"redirects": {hidden: shown, other: shown}, "rule_state": {"rule_node_id": hidden, "to": "active"}}
    kept = visible_diff(diff, {shown, other}.__contains__)
    assert kept == {"redirects": {other: shown}}, "a record naming a hidden id in a field goes whole"


def test_ids_of_runs_operations_and_clients_are_not_memories() -> None:
    shown, run, op = ids(3)
    diff = {"rehydrate": {"operation_id": op, "run_id": run, "moves": [{"id": shown, "from": "cold", "to": "hot"}]}}
    assert named_ids(diff) == {shown}
    assert visible_diff(diff, {shown}.__contains__) == diff


def test_an_id_no_one_can_be_shown_to_see_counts_as_hidden() -> None:
    shown, original = ids(2)
    diff = {"imported": {"id": original, "actor": "a1", "diff": {"nodes": [{"id": shown}]}}}
    assert visible_diff(diff, {shown}.__contains__) == {}, "another store's commit id: not a memory one may see"


# --- MemoryReader.history, on both backends ---------------------------------------------------
def spec(cid: str, title: str, lane: str, owner: str | None = None) -> WriteNodeSpec:
    fields = {"type", "title", "client_id", "memory_lane", *(("owner_agent_id",) if owner else ())}
    return WriteNodeSpec(
        type="event", title=title, client_id=cid, memory_lane=lane, owner_agent_id=owner, fields_set=frozenset(fields)
    )


def link(src: str, dst: str) -> WriteEdgeSpec:
    return WriteEdgeSpec(type="related_to", src=EdgeRef(client_id=src), dst=EdgeRef(id=dst))


async def write_as_alice(
    svc: Services, nodes: list[WriteNodeSpec], edges: list[WriteEdgeSpec]
) -> tuple[str, list[str]]:
    cmd = WriteCommand(tenant_id="t1", scope="s1", input_sha256="0" * 64, actor="alice", nodes=nodes, edges=edges)
    out = (await svc.writes.write(cmd)).result
    return out.commit.id, [n.id for n in out.nodes]


async def test_history_lists_only_the_changes_the_reader_may_see(services: Services) -> None:
    made, [harbour] = await write_as_alice(services, [spec("harbour", "Harbour", "shared")], [])
    hidden, [locker] = await write_as_alice(
        services, [spec("locker", "Locker", "private", owner="alice")], [link("locker", harbour)]
    )
    mixed, [crane, vault] = await write_as_alice(
        services,
        [spec("crane", "Crane", "shared"), spec("vault", "Vault", "private", owner="alice")],
        [link("crane", harbour), link("vault", harbour)],
    )
    alice, bob, admin = Viewer("t1", agent_id="alice"), Viewer("t1", agent_id="bob"), Viewer("t1", role="admin")

    seen = await services.reader.history(bob, "s1", harbour, scan=50)
    assert [c.id for c in seen] == [mixed, made], "newest first; the commit that only wrote the locker is gone"
    assert named_ids(seen[0].diff) == {harbour, crane}, "the vault and its edge are cut from the mixed commit"
    assert [c.id for c in await services.reader.history(alice, "s1", harbour, scan=50)] == [mixed, hidden, made]
    whole = await services.reader.history(admin, "s1", harbour, scan=50)
    assert named_ids(whole[0].diff) == {harbour, crane, vault}, "an unrestricted reader sees every commit whole"

    await services.writes.delete("t1", "s1", [locker], CommitInfo(actor="alice", input_sha256="0" * 64))
    after = await services.reader.history(alice, "s1", harbour, scan=50)
    assert hidden not in [c.id for c in after], "a memory gone since cannot be shown visible: its entries drop"
    assert vault in named_ids(after[0].diff)


# --- the memory's page, on a real server ------------------------------------------------------
@pytest.fixture(scope="module", params=BACKENDS)
def secured(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), **api_keys(KEYS)) as server:
        yield server


def listed(server: LiveServer, key: str, scope: str, node_id: str) -> list[str]:
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-API-Key": key}) as c:
        r = c.get(f"/ui/part/memory/{node_id}", params={"scope": scope})
        assert r.status_code == 200, r.text
        return ROW.findall(r.text)


def test_a_memorys_page_hides_commits_of_hidden_memories_linked_to_it(secured: LiveServer) -> None:
    scope = f"history-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=secured.url, timeout=30, headers={"X-API-Key": ALICE}) as c:
        shared = write(c, scope, [{"client_id": "harbour", "type": "event", "title": "Harbour"}])
        harbour = shared["nodes"][0]["id"]
        private = write(
            c,
            scope,
            [{"client_id": "locker", "type": "event", "title": "Locker"}],
            [{"type": "related_to", "src": {"client_id": "locker"}, "dst": {"id": harbour}}],
            memory_lane="private",
        )
    assert listed(secured, BOB, scope, harbour) == [shared["commit_id"]], "bob: the harbour's own write only"
    assert listed(secured, ALICE, scope, harbour) == [private["commit_id"], shared["commit_id"]], "the owner: both"
    assert listed(secured, ADMIN, scope, harbour) == [private["commit_id"], shared["commit_id"]]
