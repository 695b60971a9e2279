"""GET /metrics: Prometheus text with memlane_ metrics, for the admin channel only.

Counters are per process and every server of the test process shares them, so tests compare
a scrape before and after what they do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conversation.helpers import msg, wait_task
from tests.support.backends import BACKENDS, fresh_url
from tests.support.llm_server import Reply, chat_server
from tests.support.memory_api import new_scope, wait_until_recallable, write
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import webhook_receiver

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
ADMIN = "admin-token-for-metrics-0123456789"
KEY = "key-metrics-reader"


def scrape(client: httpx.Client, **headers: str) -> Samples:
    r = client.get("/metrics", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_requests_are_counted_per_route_template_and_status(client: httpx.Client) -> None:
    before = scrape(client)
    missing = "00000000-0000-0000-0000-000000000000"
    for _ in range(2):
        assert client.get(f"/api/v1/memories/{missing}", params={"app_id": "a"}).status_code == 404
    assert client.get("/no/such/path").status_code == 404
    after = scrape(client)
    route = {"method": "GET", "route": "/api/v1/memories/{memory_id}", "status": "404"}
    assert (
        value(after, "memlane_http_requests_total", **route) - value(before, "memlane_http_requests_total", **route)
        == 2
    )
    hist = "memlane_http_request_duration_seconds_count"
    assert value(after, hist, **route) - value(before, hist, **route) == 2
    unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
    assert value(after, "memlane_http_requests_total", **unmatched) > value(
        before, "memlane_http_requests_total", **unmatched
    )
    assert not any(missing in str(labels) for _, labels in after), "raw paths never become labels"


def test_recall_text_times_every_stage(client: httpx.Client) -> None:
    scope = new_scope()
    out = write(client, scope, [{"type": "event", "title": "Paris", "text_summary": "Paris is the capital of France"}])
    wait_until_recallable(client, scope, "capital of France", {n["id"] for n in out["nodes"]})
    before = scrape(client)
    r = client.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "capital of France"})
    assert r.status_code == 200
    after = scrape(client)
    name = "memlane_recall_stage_duration_seconds_count"
    for stage in ("embed", "vector", "keyword", "graph", "rank"):
        assert value(after, name, stage=stage) - value(before, name, stage=stage) >= 1, stage


def test_job_queue_depth_comes_from_the_store(client: httpx.Client) -> None:
    scope = new_scope()
    write(client, scope, [{"type": "event", "title": "queued", "text_summary": "a memory to embed"}])

    def counted() -> bool:
        samples = scrape(client)
        return (
            sum(v for (n, labels), v in samples.items() if n == "memlane_jobs" and ("kind", "embed_nodes") in labels)
            >= 1
        )

    wait_for(counted, what="an embedding job in the metrics", interval=0.1)
    samples = scrape(client)
    assert ("memlane_embedding_backlog", frozenset({("state", "pending")})) in samples


@pytest.fixture(params=BACKENDS)
def idle_server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """No worker in the process: what is written stays queued."""
    with live_server_factory(fresh_url(request), MEMLANE_WORKER_IN_PROCESS=False) as server:
        yield server


def test_the_embedding_backlog_and_queued_jobs_are_what_waits(idle_server: LiveServer) -> None:
    with httpx.Client(base_url=idle_server.url, timeout=30) as c:
        scope = new_scope()
        write(c, scope, [{"type": "event", "title": f"n{i}", "text_summary": f"note {i}"} for i in range(3)])
        samples = scrape(c)
    assert value(samples, "memlane_embedding_backlog", state="pending") == 3
    assert value(samples, "memlane_embedding_backlog", state="failed") == 0
    assert value(samples, "memlane_jobs", kind="embed_nodes", state="queued") == 1


def test_with_an_admin_token_only_its_holder_may_scrape(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    with (
        live_server_factory(
            f"sqlite:///{tmp_path / 'm.db'}",
            ADMIN_TOKEN=ADMIN,
            **api_keys({KEY: {"tenant_id": "acme", "agent_id": "reader"}}),
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        for headers in ({}, {"X-API-Key": KEY}, {"X-Admin-Token": "wrong"}):
            r = c.get("/metrics", headers=headers)
            assert r.status_code == 403, headers
            assert r.json()["error"] == "metrics_forbidden"
        assert "memlane_jobs" in c.get("/metrics", headers={"X-Admin-Token": ADMIN}).text


def test_with_auth_on_and_no_admin_token_loopback_is_not_enough(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    with (
        live_server_factory(
            f"sqlite:///{tmp_path / 'm.db'}", **api_keys({KEY: {"tenant_id": "acme", "agent_id": "reader"}})
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        assert c.get("/metrics", headers={"X-API-Key": KEY}).status_code == 403


def test_quota_rejections_are_counted_per_bucket(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    with (
        live_server_factory(
            f"sqlite:///{tmp_path / 'm.db'}",
            TENANT_QUOTA_ENABLED=True,
            TENANT_RECALL_RATE_LIMIT_RPS=0.01,
            TENANT_RECALL_RATE_LIMIT_BURST=1,
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        before = scrape(c)
        body = {"scope": "q", "query_text": "anything"}
        statuses = [c.post("/v1/memory/recall_text", json=body).status_code for _ in range(3)]
        after = scrape(c)
    assert statuses == [200, 429, 429]
    name = "memlane_quota_rejections_total"
    assert value(after, name, bucket="recall") - value(before, name, bucket="recall") == 2
    assert value(after, name, bucket="write") == value(before, name, bucket="write")


def test_llm_calls_tokens_and_failures_are_counted(tmp_path: Path, live_server_factory: ServerFactory) -> None:
    with (
        chat_server() as (base_url, script),
        live_server_factory(
            f"sqlite:///{tmp_path / 'm.db'}",
            MEMLANE_LLM_BASE_URL=base_url,
            MEMLANE_LLM_MODEL="scripted-model",
            MEMLANE_LLM_RATE_LIMIT_RPS=1000,
            MEMLANE_LLM_RATE_LIMIT_BURST=1000,
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        conversation = [msg("I moved to Lisbon last spring."), msg("Nice!", role="assistant")]
        before = scrape(c)
        ok = c.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": conversation})
        script.push("summarizer", Reply(status=503), Reply(status=503))
        failed = c.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": conversation})
        after = scrape(c)
    assert ok.status_code == 200 and failed.status_code >= 500

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("memlane_llm_calls_total", outcome="ok") == 1
    assert delta("memlane_llm_calls_total", outcome="unavailable") >= 1
    assert delta("memlane_llm_tokens_total", kind="prompt") > 0
    assert delta("memlane_llm_tokens_total", kind="completion") > 0


def test_webhook_deliveries_are_counted_by_outcome(client: httpx.Client) -> None:
    with webhook_receiver() as (base, receiver):
        receiver.statuses = [503]
        before = scrape(client)
        r = client.post(
            "/api/v1/agent/summaries",
            json={
                "app_id": "a",
                "user_id": "u",
                "messages": [msg("Remind me to water the plants.")],
                "callback_url": f"{base}/hook",
            },
        )
        assert r.status_code == 202, r.text
        assert wait_task(client, r.json()["task_id"], timeout=60)["status"] == "completed"
        after = scrape(client)
    name = "memlane_webhook_deliveries_total"
    assert value(after, name, outcome="retryable") - value(before, name, outcome="retryable") == 1
    assert value(after, name, outcome="delivered") - value(before, name, outcome="delivered") == 1
