"""MemlaneClient (sync) against a real server on both backends: every surface through typed
methods, errors as exceptions carrying the surface's envelope."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from memlane.client import BadRequestError, MemlaneClient, NotFoundError, PermissionDeniedError
from memlane.client import models as m
from tests.knowledge.helpers import ADR_DIR
from tests.support.backends import BACKENDS, fresh_url
from tests.support.server import LiveServer, ServerFactory


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)) as s:
        yield s


@pytest.fixture
def client(server: LiveServer) -> Iterator[MemlaneClient]:
    with MemlaneClient(server.url, tenant_id=f"sdk-{uuid.uuid4().hex[:8]}") as c:
        yield c


def recall_until_seeded(client: MemlaneClient, text: str, scope: str) -> m.RecallResult:
    """Written nodes are embedded by a background job; recall once they are."""
    deadline = time.monotonic() + 30
    while True:
        out = client.recall_text(query_text=text, scope=scope)
        if out.seeds or time.monotonic() > deadline:
            return out
        time.sleep(0.05)


def test_graph_write_and_recall_text_return_typed_results(client: MemlaneClient) -> None:
    written = client.write(
        scope="climbing",
        input_text="onboarding chat",
        memory_lane="shared",
        nodes=[
            {"client_id": "alice", "type": "entity", "title": "Alice", "text_summary": "Alice is a rock climber"},
            {
                "client_id": "trip",
                "type": "event",
                "title": "Yosemite trip",
                "text_summary": "Alice climbed El Capitan",
            },
        ],
        edges=[{"type": "part_of", "src": {"client_id": "trip"}, "dst": {"client_id": "alice"}}],
    )
    assert isinstance(written, m.WriteResult) and len(written.commit_hash) == 64
    ids = {n.client_id: n.id for n in written.nodes}
    recalled = recall_until_seeded(client, "Alice climbed El Capitan", "climbing")
    assert isinstance(recalled, m.RecallResult) and isinstance(recalled.seeds[0], m.Seed)
    assert recalled.seeds[0].id == ids["trip"] and recalled.scope == "climbing"
    assert {n.id for n in recalled.subgraph.nodes} >= set(ids.values())
    activated = client.activate(
        scope="climbing", node_ids=[ids["trip"]], outcome="positive", input_text="the answer used it"
    )
    assert isinstance(activated, m.LifecycleResult)


def test_rules_and_tool_selection(client: MemlaneClient) -> None:
    rule = {"client_id": "no-shell", "type": "rule", "text_summary": "never the shell",
            "slots": {"then": {"tool": {"deny": ["shell"]}}}}  # fmt: skip
    rule_id = client.write(scope="rules", input_text="policy", memory_lane="shared", nodes=[rule]).nodes[0].id
    for state in ("shadow", "active"):  # a write makes a draft; the lifecycle makes it live
        client.set_rule_state(scope="rules", rule_node_id=rule_id, state=state, input_text="review")
    selected = client.select_tools(scope="rules", context={"task": "x"}, candidates=["shell", "calculator"])
    assert selected.selection.allowed == ["calculator"] and selected.selection.selected == "calculator"
    evaluated = client.evaluate_rules(scope="rules", context={"task": "x"})
    assert rule_id in str(evaluated.model_dump())
    disabled = client.set_rule_state(scope="rules", rule_node_id=rule_id, state="disabled", input_text="off")
    assert isinstance(disabled, m.FeedbackResult)
    with pytest.raises(NotFoundError) as missing:
        client.set_rule_state(scope="rules", rule_node_id=str(uuid.uuid4()), state="active", input_text="on")
    assert missing.value.envelope["error"] == missing.value.code == "rule_not_found"


def test_conversation_surface_from_messages_to_memories(client: MemlaneClient) -> None:
    app = "sdk-app"
    accepted = client.add_memories(
        app_id=app,
        user_id="dana",
        messages=[{"role": "user", "content": "I moved to Lisbon in 2019 for a new job"}],
    )
    assert isinstance(accepted, m.TaskAccepted) and accepted.status == "accepted"
    task = client.wait_for_task(accepted.task_id)
    assert task.status == "completed" and task.kind == "memory_creation"
    found = client.query_memories(app_id=app, query="Where does Dana live?", user_id="dana")
    assert found.count == len(found.memories) >= 1 and isinstance(found.memories[0], m.QueriedMemory)
    memory_id = found.memories[0].memory_id
    assert client.get_memory(memory_id, app_id=app).document == found.memories[0].document
    assert client.memory_evolution(memory_id, app_id=app).count >= 1
    assert client.delete_memory(memory_id, app_id=app).success is True
    with pytest.raises(NotFoundError) as gone:
        client.get_memory(memory_id, app_id=app)
    assert set(gone.value.envelope) == {"detail"} and gone.value.code == "not_found"

    agent = client.add_agent_memory(app_id=app, user_id="dana", messages="Dana prefers window seats")
    assert client.wait_for_task(agent.task_id).status == "completed"
    summary = client.summarize(app_id=app, user_id="dana", messages="Dana asked about rate limits twice.")
    assert isinstance(summary, m.Summary) and summary.summary
    state = client.batch_add_messages(app_id=app, user_id="dana", messages=[{"role": "user", "content": "hi"}])
    assert isinstance(state, m.BatcherState) and state.pending_messages == 1 and state.status == "pending"
    assert client.batcher_buffer(app_id=app, user_id="dana").pending_messages == 1
    assert client.pool_stats().initialized is True and client.health().status == "healthy"


def test_a_repeated_idempotency_key_returns_the_first_task(client: MemlaneClient) -> None:
    messages = [{"role": "user", "content": "My sister Ana is a nurse"}]
    first = client.add_memories(app_id="idem", user_id="u", messages=messages, idempotency_key="k-1")
    again = client.add_memories(app_id="idem", user_id="u", messages=messages, idempotency_key="k-1")
    assert again.task_id == first.task_id


def test_layered_surface(client: MemlaneClient) -> None:
    written = client.layers.write(
        layer="project", title="Build", content="The project builds with uv and ruff", user_instruction=True
    )
    assert isinstance(written, m.LayerWriteResult) and written.layer == "project"
    read = client.layers.read(layer="project", id=written.id)
    assert read.results[0].content == "The project builds with uv and ruff"
    found = client.layers.search(query="how is the project built", layer="project")
    assert any(r.id == written.id for r in found.results)
    assert (
        client.layers.update(id=written.id, new_content="The project builds with uv", user_instruction=True).success
        is True
    )
    assert client.layers.delete(id=written.id, user_instruction=True).success is True
    with pytest.raises(BadRequestError) as bad:
        client.layers.read(layer="nowhere")
    assert bad.value.envelope["success"] is False and bad.value.code == bad.value.envelope["error_type"]


def test_agent_tools_and_the_identity_they_acted_for(client: MemlaneClient) -> None:
    added = client.tools.memory_add("The user prefers tabs over spaces", tags=["style"])
    assert isinstance(added, m.MemoryAddResult) and added.memory_id.startswith("mem_")
    assert added.identity is not None and added.identity.source == "defaults" and added.identity.user == "default"
    found = client.tools.memory_search("tabs over spaces", threshold=0.3, filter={"tags": ["style"]})
    assert [r.memory_id for r in found.results] == [added.memory_id] and found.total_count == 1
    assert client.tools.memory_search("tabs over spaces", threshold=0.3, filter={"tags": ["other"]}).results == []
    assert client.tools.memory_delete(added.memory_id).success is True
    with pytest.raises(NotFoundError) as missing:
        client.tools.memory_delete(added.memory_id)
    assert missing.value.envelope["errorCode"] == "NOT_FOUND" and missing.value.envelope["retryable"] is False

    query = client.tools.knowledge_query("database selection", type="adr")
    assert query.items[0].id == "adr-042-database-selection" and query.items[0].has_constraints
    check = client.tools.knowledge_check(dependencies=[{"name": "mysql2", "version": "3.0.0"}])
    assert check.passed is False and check.violations[0].knowledge_item_id == "adr-042-database-selection"
    shown = client.tools.knowledge_show("adr-042-database-selection", include_history=True)
    assert shown.item is not None and shown.item.severity == "block" and shown.history
    synced = client.tools.sync_now()
    assert synced.success and synced.result.added >= 1
    assert client.tools.sync_status().healthy is True
    assert client.tools.list_tools().tools[0]["name"] == "memory_add"
    with pytest.raises(BadRequestError) as bad:
        client.tools.memory_search("x", filter={"colour": "red"})
    assert bad.value.code == "INVALID_INPUT"


def test_knowledge_repository_crud(client: MemlaneClient) -> None:
    created = client.knowledge.create_item(
        id="policy-sdk", type="policy", layer="team", title="Small pull requests", status="accepted"
    )
    assert created.item.id == "policy-sdk"
    updated = client.knowledge.update_item("policy-sdk", summary="Keep PRs under 400 lines", message="why")
    assert updated.item.summary == "Keep PRs under 400 lines"
    assert client.knowledge.get_item("policy-sdk").item.title == "Small pull requests"
    assert len(client.knowledge.history("policy-sdk").history) == 2
    assert "policy-sdk" in [i.id for i in client.knowledge.list_items(type=["policy"]).items]
    doc = "---\nid: pattern-sdk\ntype: pattern\nlayer: project\ntitle: Retries\nstatus: accepted\n---\nBack off.\n"
    imported = client.knowledge.import_documents([{"path": "pattern-sdk.md", "content": doc}])
    assert imported.items[0]["id"] == "pattern-sdk"
    assert client.knowledge.delete_item("policy-sdk").success is True
    with pytest.raises(NotFoundError):
        client.knowledge.get_item("policy-sdk")


def test_the_credentials_tenant_cannot_be_left(server: LiveServer) -> None:
    """With auth off a client may name any tenant; what the server refuses raises typed."""
    with MemlaneClient(server.url, tenant_id="_memlane-reserved") as c, pytest.raises(BadRequestError) as bad:
        c.recall_text(query_text="anything")
    assert bad.value.code == "reserved_tenant"
    assert not isinstance(bad.value, PermissionDeniedError)
