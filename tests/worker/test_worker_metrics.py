"""A separate ``memlane worker`` serves its own ``/metrics``: the job runs and webhook
deliveries that happen in it, scraped over HTTP from the real process, on the admin channel.

Real processes: an API server with no worker of its own takes the writes; ``memlane worker``
runs as a subprocess on the same SQLite file and does the work."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.conversation.helpers import msg, wait_task
from tests.support.memory_api import new_scope, wait_until_recallable, write
from tests.support.server import LiveServer, free_port
from tests.support.settings import make_settings
from tests.support.webhook_receiver import webhook_receiver

ADMIN = "admin-token-for-worker-metrics-0123456789"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@contextmanager
def worker_process(db_url: str, args: list[str], **env: str) -> Iterator[subprocess.Popen[bytes]]:
    environ = {
        **os.environ,
        "MEMLANE_DATABASE_URL": db_url,
        "MEMLANE_EMBEDDER": "hashing",
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": "0.05",
        "MEMLANE_LOG_LEVEL": "warning",
        **env,
    }
    command = [sys.executable, "-m", "memlane.cli.main", "worker", *args]
    # leaving the Popen block closes the stderr pipe
    with subprocess.Popen(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        try:
            yield proc
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def scrape(url: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{url}/metrics", headers=headers, timeout=10)


def listening(proc: subprocess.Popen[bytes], url: str, **headers: str) -> None:
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
        try:
            scrape(url, **headers)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the worker's metrics port never answered"
            time.sleep(0.1)


def samples(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_a_separate_worker_serves_its_job_runs_and_webhook_deliveries(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    port = free_port()
    metrics_url = f"http://127.0.0.1:{port}"
    settings = make_settings(db_url, MEMLANE_WORKER_IN_PROCESS=False, MEMLANE_WEBHOOK_ALLOWED_HOSTS="127.0.0.1")
    with (
        LiveServer.start(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as api,
        worker_process(db_url, ["--metrics-port", str(port)], MEMLANE_WEBHOOK_ALLOWED_HOSTS="127.0.0.1") as proc,
        webhook_receiver() as (hook_base, receiver),
    ):
        listening(proc, metrics_url)
        write(api, new_scope(), [{"type": "event", "title": "queued", "text_summary": "a memory to embed"}])
        r = api.post(
            "/api/v1/agent/summaries",
            json={"app_id": "a", "user_id": "u", "messages": [msg("Remind me to water the plants.")],
                  "callback_url": f"{hook_base}/hook"},
        )  # fmt: skip
        assert r.status_code == 202, r.text
        assert wait_task(api, r.json()["task_id"], timeout=90)["status"] == "completed"

        def counted() -> Samples:
            page = scrape(metrics_url)
            assert page.status_code == 200, page.text
            assert page.headers["content-type"].startswith("text/plain")
            return samples(page.text)

        deadline = time.monotonic() + 60
        found = counted()
        while not (
            found.get(("memlane_job_runs_total", frozenset({("kind", "embed_nodes"), ("outcome", "completed")})))
            and found.get(("memlane_webhook_deliveries_total", frozenset({("outcome", "delivered")})))
        ):
            assert time.monotonic() < deadline, f"not counted: {sorted(k for k in found if 'memlane' in k[0])}"
            time.sleep(0.2)
            found = counted()
        assert receiver.for_path("/hook"), "the worker delivered the webhook"


def test_the_worker_metrics_port_is_on_the_admin_channel(tmp_path: Path) -> None:
    port = free_port()
    metrics_url = f"http://127.0.0.1:{port}"
    env = {"MEMLANE_WORKER_METRICS_PORT": str(port), "ADMIN_TOKEN": ADMIN}
    with worker_process(f"sqlite:///{tmp_path / 'token.db'}", [], **env) as proc:
        listening(proc, metrics_url)
        for headers in ({}, {"X-Admin-Token": "wrong"}):
            refused = scrape(metrics_url, **headers)
            assert refused.status_code == 403, headers
            assert refused.json()["error"] == "metrics_forbidden"
        page = scrape(metrics_url, **{"X-Admin-Token": ADMIN})
        assert page.status_code == 200
        assert "process_cpu_seconds_total" in page.text and "memlane_webhook_deliveries_total" in page.text
    with worker_process(f"sqlite:///{tmp_path / 'open.db'}", ["--metrics-port", str(port)]) as proc:
        listening(proc, metrics_url)
        assert scrape(metrics_url).status_code == 200, "auth off, no token: loopback is the admin channel"
        assert scrape(metrics_url, Origin="http://evil.example").status_code == 403


def test_without_a_metrics_port_the_worker_listens_on_none(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'memlane.db'}"
    port = free_port()
    settings = make_settings(db_url, MEMLANE_WORKER_IN_PROCESS=False)
    with (
        LiveServer.start(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as api,
        worker_process(db_url, []) as proc,
    ):
        scope = new_scope()
        out = write(api, scope, [{"type": "event", "title": "queued", "text_summary": "a memory to embed"}])
        wait_until_recallable(api, scope, "a memory to embed", {out["nodes"][0]["id"]}, timeout=90)
        assert proc.poll() is None, "the worker runs"
        try:
            scrape(f"http://127.0.0.1:{port}")
            raise AssertionError("something answered on the port")
        except httpx.TransportError:
            pass
