"""Conflict resolution (offline rules) and evolution chains: status-driven lineage linked by
``next_id``, traversed oldest -> newest, safe against cycles and missing links."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conversation.helpers import get_memory, ingest, msg, new_app, query


def evolution(api: httpx.Client, app: str, memory_id: str) -> dict[str, Any]:
    r = api.get(f"/api/v1/memories/{memory_id}/evolution", params={"app_id": app})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_contradiction_marks_the_old_note_contradicted_and_links_it_to_the_new(api: httpx.Client) -> None:
    app = new_app()
    first = ingest(api, app, [msg("I eat meat and I love steak dinners with friends.", ts="2024-01-01T10:00:00Z")])
    old_id = first["result"]["memories"][0]["memory_id"]
    second = ingest(
        api, app, [msg("I don't eat meat and I love steak dinners with friends no more.", ts="2024-02-01T10:00:00Z")]
    )
    new = second["result"]["memories"][0]
    assert new["operation"] == "DELETE" and new["targets"] == [old_id]
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] == "contradicted" and old["next_id"] == new["memory_id"]
    assert old["status_reason"] and "contradicted" in old["status_reason"]
    chain = evolution(api, app, old_id)
    assert [m["memory_id"] for m in chain["memories"]] == [old_id, new["memory_id"]]
    assert chain["count"] == 2 and chain["cycle_detected"] is False
    ids = [m["memory_id"] for m in query(api, app, "eat meat steak dinners")]
    assert new["memory_id"] in ids and old_id not in ids, "only active notes are queried"


def test_a_repeated_fact_is_skipped_and_adds_its_evidence_to_the_known_note(api: httpx.Client) -> None:
    app = new_app()
    first = ingest(api, app, [msg("I drive a red Toyota Corolla to work.", mid="d1")])
    note_id = first["result"]["memories"][0]["memory_id"]
    second = ingest(api, app, [msg("I drive a red Toyota Corolla to work.", mid="d2", ts="2024-03-02T10:00:00Z")])
    assert second["result"]["memories"] == [] and second["result"]["skipped"] == 1
    note = get_memory(api, app, note_id)["metadata"]
    assert [s["id"] for s in note["source_messages"]] == ["d1", "d2"]
    assert note["status"] == "active"
    assert len(query(api, app, "red Toyota Corolla")) == 1


def test_a_change_supersedes_the_old_value(api: httpx.Client) -> None:
    app = new_app()
    first = ingest(api, app, [msg("I live in a small flat in Denver near the river.", ts="2024-01-01T10:00:00Z")])
    old_id = first["result"]["memories"][0]["memory_id"]
    second = ingest(
        api, app, [msg("I moved and now I live in a small flat in Seattle near the river.", ts="2024-05-01T10:00:00Z")]
    )
    new = second["result"]["memories"][0]
    assert new["operation"] == "UPDATE"
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] == "superseded" and old["next_id"] == new["memory_id"]


def test_contradictions_inside_one_request_are_resolved_in_order(api: httpx.Client) -> None:
    app = new_app()
    task = ingest(
        api,
        app,
        [
            msg("I like the new jazz club downtown a lot.", mid="j1"),
            msg("Actually I don't like the new jazz club downtown a lot.", mid="j2"),
        ],
    )
    first, second = task["result"]["memories"]
    assert first["status"] == "contradicted" and second["operation"] == "DELETE"
    assert get_memory(api, app, first["memory_id"])["metadata"]["next_id"] == second["memory_id"]


def test_evolution_of_an_unknown_memory_is_an_empty_list(api: httpx.Client) -> None:
    chain = evolution(api, new_app(), "no-such-memory")
    assert chain["memories"] == [] and chain["count"] == 0


def _graph_write(api: httpx.Client, app: str, nodes: list[dict[str, object]]) -> list[str]:
    r = api.post(
        "/v1/memory/write", json={"scope": app, "input_text": "chain", "memory_lane": "shared", "nodes": nodes}
    )
    assert r.status_code == 200, r.text
    return [n["id"] for n in r.json()["nodes"]]


def test_evolution_stops_at_a_cycle_instead_of_looping(api: httpx.Client) -> None:
    app = new_app()
    a, b = _graph_write(api, app, [{"type": "event", "title": "a"}, {"type": "event", "title": "b"}])
    # Link a -> b -> a through the graph surface (same store, same scope).
    _graph_write(
        api,
        app,
        [
            {"type": "event", "id": a, "title": "a", "slots": {"next_id": b}},
            {"type": "event", "id": b, "title": "b", "slots": {"next_id": a}},
        ],
    )
    chain = evolution(api, app, a)
    assert [m["memory_id"] for m in chain["memories"]] == [a, b]
    assert chain["cycle_detected"] is True


def test_evolution_stops_gracefully_at_a_link_to_a_missing_note(api: httpx.Client) -> None:
    app = new_app()
    (a,) = _graph_write(api, app, [{"type": "event", "title": "a", "slots": {"next_id": "gone-forever"}}])
    chain = evolution(api, app, a)
    assert [m["memory_id"] for m in chain["memories"]] == [a]
    assert chain["missing_link"] == "gone-forever"


def test_deleting_a_note_in_the_middle_of_a_chain_relinks_it(api: httpx.Client) -> None:
    app = new_app()
    t1 = ingest(api, app, [msg("I like green tea with honey every morning.", ts="2024-01-01T10:00:00Z")])
    t2 = ingest(api, app, [msg("I don't like green tea with honey every morning.", ts="2024-02-01T10:00:00Z")])
    t3 = ingest(api, app, [msg("I like green tea with honey every morning again.", ts="2024-03-01T10:00:00Z")])
    ids = [t["result"]["memories"][0]["memory_id"] for t in (t1, t2, t3)]
    assert [m["memory_id"] for m in evolution(api, app, ids[0])["memories"]] == ids
    assert api.delete(f"/api/v1/memories/{ids[1]}", params={"app_id": app}).status_code == 200
    chain = evolution(api, app, ids[0])
    assert [m["memory_id"] for m in chain["memories"]] == [ids[0], ids[2]]
    assert chain["missing_link"] is None


def test_a_refinement_consolidates_the_old_note_into_one_carrying_both_evidences(api: httpx.Client) -> None:
    app = new_app()
    t1 = ingest(api, app, [msg("I play tennis on weekends at the riverside club.", mid="t1")])
    old_id = t1["result"]["memories"][0]["memory_id"]
    t2 = ingest(api, app, [msg("I play tennis on weekends at the riverside club with Mark.", mid="t2")])
    new = t2["result"]["memories"][0]
    assert new["operation"] == "UPDATE" and new["targets"] == [old_id]
    old = get_memory(api, app, old_id)["metadata"]
    assert old["status"] == "consolidated" and old["next_id"] == new["memory_id"]
    merged = get_memory(api, app, new["memory_id"])
    assert [s["id"] for s in merged["metadata"]["source_messages"]] == ["t1", "t2"]
    assert "Mark" in merged["document"]
