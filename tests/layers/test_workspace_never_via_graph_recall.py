"""Workspace memory stays with system agents on every surface, graph recall included."""

from __future__ import annotations

import time

import httpx

from memlane.services.layers.service import workspace_scope


def test_user_facing_agent_gets_no_workspace_memory_from_graph_recall(client: httpx.Client) -> None:
    scope = "graph-ws-check"
    w = client.post(
        "/v1/layers/write",
        headers={"X-Agent-Role": "planner"},
        json={
            "scope": scope,
            "layer": "workspace",
            "title": "plan",
            "content": "quartz migration step three",
            "metadata": {"task_id": "t-1"},
        },
    )
    assert w.status_code == 200, w.text
    for target in (scope, workspace_scope(scope)):
        body = {"scope": target, "query_text": "quartz migration", "limit": 50}
        for headers in ({}, {"X-Agent-Role": "user_agent"}):
            r = client.post("/v1/memory/recall_text", json=body, headers=headers)
            assert r.status_code == 200, r.text
            assert "step three" not in r.text, (target, headers)
    planner_saw = False
    for _ in range(100):
        r = client.post(
            "/v1/memory/recall_text",
            headers={"X-Agent-Role": "planner"},
            json={"scope": workspace_scope(scope), "query_text": "quartz migration"},
        )
        if "step three" in r.text:
            planner_saw = True
            break
        time.sleep(0.1)
    assert planner_saw, "a system agent naming the workspace scope sees its own workspace memory"
