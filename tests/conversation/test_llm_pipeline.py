"""The LLM pipeline against a scripted OpenAI-compatible chat server on loopback: parallel
episodic + summarizer agents, one synthesis/conflict-resolution call, validated structured
outputs with one corrective retry, and bounded cost."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conversation.helpers import get_memory, ingest, msg, new_app, wait_task
from tests.support.llm_server import ChatScript, Reply

Stack = tuple[httpx.Client, ChatScript]


def synthesis(operation: str, targets: list[str], content: str, **extra: Any) -> dict[str, Any]:
    return {
        "note": {"content": content, "category": "fact", "importance": 0.9, "keywords": ["k"]},
        "operation": operation,
        "target_ids": targets,
        "reason": f"scripted {operation}",
        **extra,
    }


def test_a_conversation_becomes_one_canonical_note_in_three_calls(llm_api: Stack) -> None:
    api, script = llm_api
    app = new_app()
    task = ingest(api, app, [msg("I started learning Portuguese.", mid="p1"), msg("Nice!", role="assistant", mid="p2")])
    assert task["status"] == "completed", task
    result = task["result"]
    assert result["pipeline"] == "llm" and result["llm_calls"] == 3
    assert dict(script.calls_by_agent) == {"episodic": 1, "summarizer": 1, "synthesis": 1}
    note = get_memory(api, app, result["memories"][0]["memory_id"])
    assert note["document"].startswith("Canonical note:") and "Portuguese" in note["document"]
    assert [s["id"] for s in note["metadata"]["source_messages"]] == ["p1", "p2"]
    assert note["metadata"]["pipeline"] == "llm"
    sent = script.requests[0]
    assert sent["body"]["model"] == "scripted-model"
    assert sent["body"]["response_format"] == {"type": "json_object"}
    assert sent["headers"].get("authorization") == "Bearer test-key"


def test_the_agents_run_under_the_concurrency_cap(llm_api: Stack) -> None:
    api, script = llm_api
    script.agent_delay.update(episodic=0.2, summarizer=0.2)
    ingest(api, new_app(), [msg("I bought a sailboat called Wanda.")])
    assert script.calls_by_agent["episodic"] == script.calls_by_agent["summarizer"] == 1
    assert script.peak_in_flight == 1, "MEMLANE_LLM_MAX_CONCURRENCY=1 must hold for parallel agents"


def _first_note(api: httpx.Client, app: str, text: str) -> str:
    task = ingest(api, app, [msg(text, mid="old-1")])
    return str(task["result"]["memories"][0]["memory_id"])


def test_an_update_consolidates_the_existing_note_and_links_it(llm_api: Stack) -> None:
    api, script = llm_api
    app = new_app()
    old = _first_note(api, app, "I work at Acme as a junior engineer.")
    script.push("synthesis", Reply(synthesis("UPDATE", [old], "The user works at Acme as a senior engineer.")))
    task = ingest(api, app, [msg("I got promoted to senior engineer at Acme.")])
    new = task["result"]["memories"][0]
    assert new["operation"] == "UPDATE" and new["targets"] == [old]
    synth_prompt = script.requests[-1]["body"]["messages"][1]["content"]
    assert old in synth_prompt, "the nearest existing notes are given to the resolution agent"
    meta = get_memory(api, app, old)["metadata"]
    assert meta["status"] == "consolidated" and meta["next_id"] == new["memory_id"]
    assert meta["status_reason"] == "scripted UPDATE"
    chain = api.get(f"/api/v1/memories/{old}/evolution", params={"app_id": app}).json()
    assert [m["memory_id"] for m in chain["memories"]] == [old, new["memory_id"]]


def test_a_replace_update_supersedes_and_a_delete_contradicts(llm_api: Stack) -> None:
    api, script = llm_api
    app = new_app()
    old = _first_note(api, app, "My favourite colour is blue.")
    script.push(
        "synthesis", Reply(synthesis("UPDATE", [old], "The user's favourite colour is green.", update_mode="replace"))
    )
    newer = ingest(api, app, [msg("My favourite colour is green now.")])["result"]["memories"][0]["memory_id"]
    assert get_memory(api, app, old)["metadata"]["status"] == "superseded"
    script.push("synthesis", Reply(synthesis("DELETE", [newer], "The user has no favourite colour.")))
    ingest(api, app, [msg("Honestly I have no favourite colour.")])
    assert get_memory(api, app, newer)["metadata"]["status"] == "contradicted"


def test_the_conflict_prompt_names_every_kind_of_change_and_the_user_and_a_delete_closes_the_note(
    llm_api: Stack,
) -> None:
    api, script = llm_api
    app = new_app()
    ingest(api, app, [msg("Hi, I'm Priya!", mid="hello")])
    old = _first_note(api, app, "I'm allergic to peanuts.")
    script.requests.clear()
    script.push("synthesis", Reply(synthesis("DELETE", [old], "Priya is not allergic to peanuts.")))
    newer = ingest(api, app, [msg("I'm not allergic to peanuts after all.")])["result"]["memories"][0]
    synthesis_call = next(r for r in script.requests if r["agent"] == "synthesis")
    system, user = (m["content"] for m in synthesis_call["body"]["messages"][:2])
    for case in ("after all", "no longer", "anymore", "moved to", "switched to", "used to", "not Jen", "cancels",
                 "since I moved", "a second pet", "Never SKIP", "my new GP", "got a new car", "typo earlier",
                 "they scrapped it", "after the divorce", "since we lost", "gave up alcohol",
                 "which attribute"):  # fmt: skip
        assert case in system, f"the synthesis prompt does not cover {case!r}"
    assert "The user's name is Priya" in user and old in user
    closed = get_memory(api, app, old)["metadata"]
    assert closed["status"] == "contradicted" and closed["invalid_at"] is not None
    assert closed["next_id"] == newer["memory_id"]


def test_a_skip_adds_evidence_without_a_new_note(llm_api: Stack) -> None:
    api, script = llm_api
    app = new_app()
    old = _first_note(api, app, "I have two cats.")
    script.push("synthesis", Reply(synthesis("SKIP", [old], "The user has two cats.")))
    task = ingest(api, app, [msg("As I said, I have two cats.", mid="again-1")])
    assert task["result"]["memories"] == [] and task["result"]["skipped"] == 1
    sources = [s["id"] for s in get_memory(api, app, old)["metadata"]["source_messages"]]
    assert sources == ["old-1", "again-1"]


def test_a_malformed_answer_is_retried_once_with_the_problem_explained(llm_api: Stack) -> None:
    api, script = llm_api
    script.push("synthesis", Reply('{"note": {"content": "unterminated'))
    task = ingest(api, new_app(), [msg("I collect stamps from Peru.")])
    assert task["status"] == "completed", task
    assert task["result"]["llm_calls"] == 4 and script.calls_by_agent["synthesis"] == 2
    retry = script.requests[-1]["body"]["messages"]
    assert "That answer was invalid" in retry[-1]["content"]


def test_an_answer_citing_unknown_memory_ids_counts_as_malformed(llm_api: Stack) -> None:
    api, script = llm_api
    script.push("synthesis", Reply(synthesis("UPDATE", ["not-a-real-id"], "x")))
    task = ingest(api, new_app(), [msg("I swim at the lake on Sundays.")])
    assert task["status"] == "completed"
    assert task["result"]["memories"][0]["operation"] == "CREATE"
    assert "not among the existing memories" in script.requests[-1]["body"]["messages"][-1]["content"]


def test_two_malformed_answers_fail_the_task_with_a_clear_error_and_no_note(llm_api: Stack) -> None:
    api, script = llm_api
    script.push("episodic", Reply("this is not json"), Reply({"facts": "should be a list"}))
    app = new_app()
    r = api.post("/api/v1/memories", json={"app_id": app, "user_id": "u1", "messages": [msg("I fly drones.")]})
    task = wait_task(api, r.json()["task_id"])
    assert task["status"] == "failed"
    assert "episodic agent answered malformed output twice" in task["error"]
    assert task["attempts"] == 1, "a malformed answer is not a reason to re-run the whole task"
    assert task["result"]["llm_calls"] == 3
    assert script.calls_by_agent["synthesis"] == 0
    found = api.get("/api/v1/memories/query", params={"app_id": app, "query": "drones"}).json()
    assert found["count"] == 0


def test_a_provider_outage_is_retried_and_finished_stages_are_not_paid_twice(llm_api: Stack) -> None:
    api, script = llm_api
    script.push("episodic", Reply(status=503))
    task = ingest(api, new_app(), [msg("I am training for a triathlon in July.")])
    assert task["status"] == "completed", task
    assert task["attempts"] == 2
    assert script.calls_by_agent["summarizer"] == 1, "the summary was checkpointed and reused"
    assert script.calls_by_agent["episodic"] == 2
    assert task["result"]["llm_calls"] == 4


def test_no_request_costs_more_than_four_calls_however_many_notes_exist(llm_api: Stack) -> None:
    api, script = llm_api
    app = new_app()
    for i in range(8):
        ingest(api, app, [msg(f"Fact number {i}: I visited museum {i} in Rome.")])
    script.reset()
    script.push("synthesis", Reply("not json"), Reply("still not json"))
    r = api.post("/api/v1/memories", json={"app_id": app, "user_id": "u1", "messages": [msg("I visited Rome.")]})
    task = wait_task(api, r.json()["task_id"])
    assert task["status"] == "failed"
    assert script.calls == 4 and task["result"]["llm_calls"] == 4
    prompt = script.requests[2]["body"]["messages"][1]["content"]
    assert prompt.count('"memory_id"') <= 5, "only the nearest notes are sent for resolution"
