"""Read replicas (``MEMLANE_DATABASE_READ_URLS``): a real PostgreSQL primary and hot standbys
streaming from it (tests/support/pg_topology.py), memlane serving HTTP in front of them.

A standby whose replay is paused (``pg_wal_replay_pause()``) keeps receiving WAL but shows
the data as it was: a read it serves cannot see a write made since, which is how these tests
tell which database answered, and how the read-after paths (wait, fall back) are exercised.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from memlane.client import MemlaneClient, NotFoundError
from memlane.config import Settings
from memlane.store import migrate
from memlane.store.read_routing import format_position, lsn_value, parse_position
from tests.support.pg_topology import PgNode, Topology, topology
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import make_settings
from tests.support.waiting import wait_for

READ_AFTER = "X-Memlane-Read-After"
SOURCE = "X-Memlane-Read-Source"
POSITION = "X-Memlane-Position"
#: the poll of a read that waits for a replica to replay its position (store/postgres/replicas.py)
REPLAY_POLL = "SELECT pg_last_wal_replay_lsn()::text"


@dataclass
class Cluster:
    topo: Topology
    primary: PgNode
    replica: PgNode

    @property
    def url(self) -> str:
        return self.primary.url("memlane")

    def standby(self, name: str) -> PgNode:
        node = self.topo.standby(self.primary, name)
        wait_streaming(self.primary, name)
        return node


def wait_streaming(primary: PgNode, name: str) -> None:
    wait_for(
        lambda: primary.fetch("SELECT 1 FROM pg_stat_replication WHERE application_name = $1", name),
        what=f"{name} streaming from the primary",
        timeout=30,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with topology() as topo:
        primary = topo.primary()
        primary.execute("CREATE DATABASE memlane")
        migrate.upgrade(primary.url("memlane"))
        replica = topo.standby(primary, "replica1")
        wait_streaming(primary, "replica1")
        yield Cluster(topo, primary, replica)


def replica_settings(cluster: Cluster, *replicas: PgNode, **env: Any) -> Settings:
    urls = ",".join(r.url("memlane") for r in replicas or (cluster.replica,))
    values: dict[str, Any] = {"MEMLANE_REPLICA_CHECK_INTERVAL_MS": 100, **env}
    return make_settings(cluster.url, MEMLANE_DATABASE_READ_URLS=urls, **values)


def layers_write(client: httpx.Client, content: str) -> httpx.Response:
    r = client.post(
        "/v1/layers/write",
        json={"layer": "project", "title": content, "content": content, "user_instruction": True},
    )
    assert r.status_code == 200, r.text
    return r


def layers_get(client: httpx.Client, memory_id: str, **headers: str) -> httpx.Response:
    """A read by id: 200 with the memory, or 404 where it is not (yet)."""
    r = client.post("/v1/layers/read", json={"layer": "project", "id": memory_id}, headers=headers)
    assert r.status_code in (200, 404), r.text
    return r


def found(r: httpx.Response, memory_id: str) -> bool:
    return r.status_code == 200 and any(item["id"] == memory_id for item in r.json()["results"])


def metric(client: httpx.Client, name: str, **labels: str) -> float:
    text = client.get("/metrics").text
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    match = re.search(rf"^{re.escape(name)}\{{{re.escape(wanted)}\}} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def replicas_of(client: httpx.Client) -> list[dict[str, Any]]:
    body = client.get("/health").json()
    return list(body["replicas"])


def wait_state(client: httpx.Client, state: str, *, timeout: float = 30) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        replicas = replicas_of(client)
        return replicas[0] if replicas[0]["state"] == state else None

    seen = wait_for(check, what=f"the replica {state}", timeout=timeout, diagnose=lambda: str(replicas_of(client)))
    assert seen is not None
    return seen


@pytest.fixture
def paused(cluster: Cluster) -> Iterator[PgNode]:
    cluster.replica.pause_replay()
    try:
        yield cluster.replica
    finally:
        cluster.replica.resume_replay()


# --- positions ------------------------------------------------------------------------------
def test_positions_compare_as_wal_positions_and_as_strings() -> None:
    low, high = lsn_value("0/FFFFFFFF"), lsn_value("1/0")
    assert high > low
    assert format_position(high) > format_position(low)
    assert parse_position(format_position(high)) == high
    for bad in ("", "0/16B3748", "lsn:16B3748", "lsn:00000000016B374G"):
        with pytest.raises(ValueError):
            parse_position(bad)


# --- routing ----------------------------------------------------------------------------------
@pytest.mark.postgres
def test_reads_are_served_by_the_replica_and_writes_answer_their_position(cluster: Cluster) -> None:
    with LiveServer.start(replica_settings(cluster)) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        wait_state(c, "in_rotation")
        write = layers_write(c, "routing check")
        assert POSITION in write.headers and SOURCE not in write.headers
        parse_position(write.headers[POSITION])
        reads = {
            "graph recall": c.post("/v1/memory/recall_text", json={"query_text": "routing check"}),
            "conversation query": c.get("/api/v1/memories/query", params={"app_id": "default", "query": "routing"}),
            "layers search": c.post("/v1/layers/search", json={"query": "routing check"}),
            "tools memory_search": c.post("/v1/tools/memory_search", json={"query": "routing check"}),
            "ui browse": c.get("/ui/part/browse"),
        }
        for what, r in reads.items():
            assert r.status_code == 200, (what, r.text)
            assert r.headers[SOURCE] == "replica", what
            assert POSITION not in r.headers, what
        assert SOURCE not in c.get("/health").headers
        assert metric(c, "memlane_reads_total", source="replica") >= len(reads)
        [replica] = replicas_of(c)
        assert replica["name"] == f"127.0.0.1:{cluster.replica.port}" and "postgres@" not in str(replica)
        assert metric(c, "memlane_replica_in_rotation", replica=replica["name"]) == 1


@pytest.mark.postgres
def test_a_server_secret_made_during_a_replica_read_is_read_back_from_the_primary(cluster: Cluster) -> None:
    """The UI's page cursors are sealed with a secret made on first use, in the middle of a
    read a replica serves: a replica that has not replayed the new secret must not fail it."""
    cluster.primary.execute("DELETE FROM server_secrets WHERE name = 'page_cursor_key'", database="memlane")
    wait_for(
        lambda: (
            not cluster.replica.fetch("SELECT 1 FROM server_secrets WHERE name = 'page_cursor_key'", database="memlane")
        ),
        what="the replica without the secret",
        timeout=30,
    )
    cluster.replica.pause_replay()
    try:
        with LiveServer.start(replica_settings(cluster)) as server, httpx.Client(base_url=server.url, timeout=30) as c:
            wait_state(c, "in_rotation")
            first = c.get("/ui/part/browse")
            assert first.status_code == 200, first.text
            assert first.headers[SOURCE] == "replica"
    finally:
        cluster.replica.resume_replay()
    assert cluster.primary.fetch("SELECT 1 FROM server_secrets WHERE name = 'page_cursor_key'", database="memlane")


@pytest.mark.postgres
def test_a_read_after_a_write_falls_back_to_the_primary_while_the_replica_is_behind(
    cluster: Cluster, paused: PgNode
) -> None:
    with LiveServer.start(replica_settings(cluster)) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        wait_state(c, "in_rotation")
        before = metric(c, "memlane_read_after_total", outcome="primary_fallback")
        write = layers_write(c, "written while the replica is paused")
        memory_id = write.json()["id"]
        stale = layers_get(c, memory_id)
        assert stale.headers[SOURCE] == "replica" and not found(stale, memory_id)
        mine = layers_get(c, memory_id, **{READ_AFTER: write.headers[POSITION]})
        assert mine.headers[SOURCE] == "primary" and found(mine, memory_id)
        assert metric(c, "memlane_read_after_total", outcome="primary_fallback") == before + 1
        beyond = layers_get(c, memory_id, **{READ_AFTER: format_position(1 << 62)})
        assert beyond.headers[SOURCE] == "primary" and found(beyond, memory_id)


@pytest.mark.postgres
def test_a_read_after_a_write_waits_for_the_replica_to_replay_it(cluster: Cluster, paused: PgNode) -> None:
    settings = replica_settings(cluster, MEMLANE_READ_AFTER_WAIT_MS=60_000, MEMLANE_REPLICA_MAX_LAG_MS=600_000)
    with (
        LiveServer.start(settings) as server,
        httpx.Client(base_url=server.url, timeout=90) as c,
        concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool,
    ):
        wait_state(c, "in_rotation")
        before = metric(c, "memlane_read_after_total", outcome="replica_after_wait")
        write = layers_write(c, "replayed while the read waits")
        memory_id = write.json()["id"]
        read = pool.submit(layers_get, c, memory_id, **{READ_AFTER: write.headers[POSITION]})
        wait_for(
            lambda: paused.fetch("SELECT 1 FROM pg_stat_activity WHERE query = $1", REPLAY_POLL, database="memlane"),
            what="the read polling the replica's replay position",
        )
        paused.resume_replay()
        r = read.result(timeout=90)
        assert r.headers[SOURCE] == "replica" and found(r, memory_id)
        assert metric(c, "memlane_read_after_total", outcome="replica_after_wait") == before + 1


@pytest.mark.postgres
def test_the_sdk_reads_its_own_writes_through_a_paused_replica(cluster: Cluster, paused: PgNode) -> None:
    with (
        LiveServer.start(replica_settings(cluster)) as server,
        MemlaneClient(server.url) as mine,
        MemlaneClient(server.url, read_your_writes=False) as careless,
        httpx.Client(base_url=server.url, timeout=30) as c,
    ):
        wait_state(c, "in_rotation")
        written = mine.layers.write(title="sdk note", content="the sdk wrote", layer="project", user_instruction=True)
        assert [item.id for item in mine.layers.read(layer="project", id=written.id).results] == [written.id]
        with pytest.raises(NotFoundError):
            careless.layers.read(layer="project", id=written.id)


@pytest.mark.postgres
def test_a_lagging_replica_leaves_the_rotation_and_comes_back_when_it_catches_up(cluster: Cluster) -> None:
    settings = replica_settings(cluster, MEMLANE_REPLICA_MAX_LAG_MS=300)
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        wait_state(c, "in_rotation")
        assert replicas_of(c)[0]["lag_ms"] == 0
        cluster.replica.pause_replay()
        try:
            write = layers_write(c, "left behind")
            lagging = wait_state(c, "lagging")
            assert lagging["lag_ms"] > 300
            r = layers_get(c, write.json()["id"])
            assert r.headers[SOURCE] == "primary" and found(r, write.json()["id"])
        finally:
            cluster.replica.resume_replay()
        assert wait_state(c, "in_rotation")["lag_ms"] == 0


@pytest.mark.postgres
def test_a_promoted_replica_leaves_the_rotation_for_good(cluster: Cluster) -> None:
    standby = cluster.standby("promoted1")
    with LiveServer.start(replica_settings(cluster, standby)) as server, httpx.Client(base_url=server.url) as c:
        wait_state(c, "in_rotation")
        standby.promote()
        assert wait_state(c, "promoted")["lag_ms"] is None
        write = layers_write(c, "after the promotion")
        r = layers_get(c, write.json()["id"], **{READ_AFTER: write.headers[POSITION]})
        assert r.headers[SOURCE] == "primary" and found(r, write.json()["id"])
        name = replicas_of(c)[0]["name"]
        assert metric(c, "memlane_replica_in_rotation", replica=name) == 0


@pytest.mark.postgres
def test_a_stopped_replica_costs_no_read_and_rejoins_after_its_restart(cluster: Cluster) -> None:
    standby = cluster.standby("stopped1")
    # checks far apart: the first read after the stop meets the dead replica itself
    settings = replica_settings(cluster, standby, MEMLANE_REPLICA_CHECK_INTERVAL_MS=1500)
    with LiveServer.start(settings) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        wait_state(c, "in_rotation")
        write = layers_write(c, "read while the replica is down")
        wait_for(lambda: found(layers_get(c, write.json()["id"]), write.json()["id"]), what="the replica replaying")
        standby.stop()
        for _ in range(3):
            r = layers_get(c, write.json()["id"])
            assert r.headers[SOURCE] == "primary" and found(r, write.json()["id"])
        assert replicas_of(c)[0]["state"] == "unreachable"
        standby.start()
        wait_state(c, "in_rotation")
        assert layers_get(c, write.json()["id"]).headers[SOURCE] == "replica"


# --- without replicas ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sqlite_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory() as server:
        yield server


def test_sqlite_answers_no_position_and_routes_nothing(sqlite_server: LiveServer) -> None:
    with httpx.Client(base_url=sqlite_server.url, timeout=30) as c:
        write = layers_write(c, "sqlite note")
        assert POSITION not in write.headers
        r = layers_get(c, write.json()["id"], **{READ_AFTER: format_position(1 << 40)})
        assert SOURCE not in r.headers and found(r, write.json()["id"])
        assert "replicas" not in c.get("/health").json()


def test_read_replicas_are_refused_on_sqlite() -> None:
    with pytest.raises(ValueError, match="MEMLANE_DATABASE_READ_URLS needs MEMLANE_DATABASE_URL to be PostgreSQL"):
        Settings(MEMLANE_DATABASE_READ_URLS="postgresql://u@127.0.0.1:5433/memlane")


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/memory/recall_text", {"query_text": "x"}),
        ("GET", "/api/v1/memories/query?app_id=default&query=x", None),
        ("POST", "/v1/layers/search", {"query": "x"}),
        ("POST", "/v1/tools/memory_search", {"query": "x"}),
    ],
)
def test_a_read_after_header_that_is_no_position_is_a_400_naming_it(
    sqlite_server: LiveServer, method: str, path: str, body: Any
) -> None:
    with httpx.Client(base_url=sqlite_server.url, timeout=30) as c:
        r = c.request(method, path, json=body, headers={READ_AFTER: "0/16B3748"})
        assert r.status_code == 400 and READ_AFTER in r.text, r.text
