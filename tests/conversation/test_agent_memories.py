"""POST /api/v1/agent/memories: the fast path stores one note directly, from a string or a
message array, with no conflict resolution."""

from __future__ import annotations

import httpx

from tests.conversation.helpers import get_memory, msg, new_app, query, wait_task
from tests.support.llm_server import ChatScript


def post_agent(api: httpx.Client, app: str, messages: object) -> dict[str, object]:
    r = api.post("/api/v1/agent/memories", json={"app_id": app, "user_id": "u1", "messages": messages})
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["status"] == "accepted" and body["message"] == "Agent memory creation task submitted successfully"
    return wait_task(api, str(body["task_id"]))


def test_a_string_is_stored_as_one_note_citing_the_request(api: httpx.Client) -> None:
    app = new_app()
    task = post_agent(api, app, "User completed onboarding and selected premium plan")
    assert task["status"] == "completed" and task["kind"] == "agent_memory_creation"
    result = task["result"]
    assert isinstance(result, dict) and result["llm_calls"] == 0
    note = get_memory(api, app, result["memories"][0]["memory_id"])
    assert note["document"] == "User completed onboarding and selected premium plan"
    assert note["metadata"]["memory_kind"] == "agent_note"
    assert note["metadata"]["source_messages"][0]["id"] == f"{task['task_id']}:0"
    assert query(api, app, "premium plan onboarding")[0]["memory_id"] == note["memory_id"]


def test_a_message_array_keeps_every_message_as_evidence(api: httpx.Client) -> None:
    app = new_app()
    task = post_agent(
        api,
        app,
        [
            {"role": "agent", "content": "User asked about pricing", "timestamp": "2024-01-01T00:00:00Z"},
            {"role": "user", "content": "What are your plans?", "id": "u-7"},
        ],
    )
    result = task["result"]
    assert isinstance(result, dict)
    note = get_memory(api, app, result["memories"][0]["memory_id"])
    assert [s["id"] for s in note["metadata"]["source_messages"]] == [f"{task['task_id']}:0", "u-7"]
    assert "pricing" in note["document"]


def test_the_fast_path_does_not_resolve_conflicts(api: httpx.Client) -> None:
    app = new_app()
    post_agent(api, app, "The user prefers email over phone calls.")
    post_agent(api, app, "The user prefers email over phone calls.")
    assert len(query(api, app, "prefers email phone")) == 2


def test_with_an_llm_the_fast_path_costs_one_call(llm_api: tuple[httpx.Client, ChatScript]) -> None:
    api, script = llm_api
    app = new_app()
    task = post_agent(api, app, [msg("Deployed version 2.3 to production.", role="agent")])
    result = task["result"]
    assert isinstance(result, dict) and result["llm_calls"] == 1
    assert dict(script.calls_by_agent) == {"agent-memory": 1}
    note = get_memory(api, app, result["memories"][0]["memory_id"])
    assert note["document"].startswith("Agent note:")


def test_agent_memories_validate_their_input(api: httpx.Client) -> None:
    for body in (
        {"app_id": "a", "user_id": "u", "messages": ""},
        {"app_id": "a", "user_id": "u", "messages": [{"role": "agent"}]},
        {"app_id": "", "user_id": "u", "messages": "x"},
        {"app_id": "a", "user_id": "u", "messages": [msg(f"m{i}") for i in range(31)]},
    ):
        r = api.post("/api/v1/agent/memories", json=body)
        assert r.status_code == 400, (body, r.text)
        assert set(r.json()) == {"detail"}
