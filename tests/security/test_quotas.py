"""Tenant quotas: per process by default, shared by all replicas through a real Redis server."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.memory_api import unit
from tests.support.server import LiveServer, ServerFactory, free_port

QUOTAS = {
    "TENANT_QUOTA_ENABLED": True,
    "TENANT_RECALL_RATE_LIMIT_RPS": 0.5,
    "TENANT_RECALL_RATE_LIMIT_BURST": 3,
    "TENANT_WRITE_RATE_LIMIT_RPS": 0.5,
    "TENANT_WRITE_RATE_LIMIT_BURST": 2,
    "TENANT_DEBUG_EMBED_RATE_LIMIT_RPS": 0.1,
    "TENANT_DEBUG_EMBED_RATE_LIMIT_BURST": 1,
}


def recall(c: httpx.Client, tenant: str, **extra: object) -> httpx.Response:
    return c.post("/v1/memory/recall", json={"query_embedding": unit(1), **extra}, headers={"X-Tenant-Id": tenant})


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(**QUOTAS) as s:
        yield s


def test_recall_quota_gives_429_with_retry_after_and_spares_other_tenants(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as c:
        assert [recall(c, "busy").status_code for _ in range(3)] == [200, 200, 200]
        r = recall(c, "busy")
        assert r.status_code == 429
        assert r.json()["error"] == "tenant_rate_limited_recall"
        assert 1 <= int(r.headers["retry-after"]) <= 6
        assert recall(c, "quiet").status_code == 200


def test_write_quota_is_its_own_bucket(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as c:
        body = {"input_text": "x", "nodes": [{"type": "event", "title": "w"}]}
        codes = [c.post("/v1/memory/write", json=body, headers={"X-Tenant-Id": "writer"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        last = c.post("/v1/memory/write", json=body, headers={"X-Tenant-Id": "writer"})
        assert last.json()["error"] == "tenant_rate_limited_write" and "retry-after" in last.headers
        assert recall(c, "writer").status_code == 200


def test_debug_embeddings_have_the_tightest_bucket(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as c:
        debug = {"return_debug": True, "include_embeddings": True, "limit": 5}
        assert recall(c, "debugger", **debug).status_code == 200
        r = recall(c, "debugger", **debug)
        assert r.status_code == 429 and r.json()["error"] == "tenant_rate_limited_debug_embeddings"


ADMIN = "quota-admin-token"


@pytest.fixture(scope="module")
def guarded(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """ADMIN_TOKEN set: a debug request without it is refused (403). Recall and write buckets
    are wide so that only the debug bucket can run out."""
    env = {**QUOTAS, "TENANT_RECALL_RATE_LIMIT_BURST": 100, "TENANT_WRITE_RATE_LIMIT_BURST": 100, "ADMIN_TOKEN": ADMIN}
    with live_server_factory(**env) as s:
        yield s


def test_refused_debug_requests_do_not_spend_the_debug_quota(guarded: LiveServer) -> None:
    debug = {"return_debug": True, "include_embeddings": True, "limit": 5}
    with httpx.Client(base_url=guarded.url) as c:
        for _ in range(4):
            refused = recall(c, "prober", **debug)
            assert refused.status_code == 403 and refused.json()["error"] == "debug_embeddings_forbidden"
        admitted = c.post(
            "/v1/memory/recall",
            json={"query_embedding": unit(1), **debug},
            headers={"X-Tenant-Id": "prober", "X-Admin-Token": ADMIN},
        )
        assert admitted.status_code == 200, "the refused requests left the one-request bucket whole"
        again = c.post(
            "/v1/memory/recall",
            json={"query_embedding": unit(1), **debug},
            headers={"X-Tenant-Id": "prober", "X-Admin-Token": ADMIN},
        )
        assert again.status_code == 429 and again.json()["error"] == "tenant_rate_limited_debug_embeddings"


def test_refused_layer_embedding_requests_do_not_spend_the_debug_quota(guarded: LiveServer) -> None:
    headers = {"X-Tenant-Id": "layer-prober", "X-Agent-Role": "manager"}
    body = {"layer": "project", "query": "backend", "include_embeddings": True}
    with httpx.Client(base_url=guarded.url) as c:
        w = c.post("/v1/layers/write", headers=headers, json={"layer": "project", "title": "t", "content": "backend"})
        assert w.status_code == 200, w.text
        for _ in range(4):
            refused = c.post("/v1/layers/search", headers=headers, json=body)
            assert refused.status_code == 403 and refused.json()["error_type"] == "embeddings_forbidden"
        admitted = c.post("/v1/layers/search", headers={**headers, "X-Admin-Token": ADMIN}, json=body)
        assert admitted.status_code == 200, admitted.text
        again = c.post("/v1/layers/search", headers={**headers, "X-Admin-Token": ADMIN}, json=body)
        assert again.status_code == 429


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: run scripts/setup.sh --dev")
    port = free_port()
    workdir: Path = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        import socket

        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_two_replicas_sharing_redis_share_one_bucket(
    redis_url: str, tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    env = {**QUOTAS, "MEMLANE_RATE_LIMIT_STORAGE": redis_url}
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    with (
        live_server_factory(db, **env) as a,
        live_server_factory(db, **env) as b,
        httpx.Client(base_url=a.url) as ca,
        httpx.Client(base_url=b.url) as cb,
    ):
        assert recall(ca, "shared-t").status_code == 200
        assert recall(cb, "shared-t").status_code == 200
        assert recall(ca, "shared-t").status_code == 200
        r = recall(cb, "shared-t")
        assert r.status_code == 429, "the third request on A must count against B"
        assert r.json()["error"] == "tenant_rate_limited_recall" and int(r.headers["retry-after"]) >= 1
        assert recall(ca, "other-t").status_code == 200
