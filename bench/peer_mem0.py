"""memlane and mem0 on mem0's own kind of work, one after the other in one run, with the ratio.

Runs the shared peer scripts unchanged (``../shared/peers``, see its README): a fresh
``memlane serve`` (defaults, local MiniLM) gets ``memlane_same_work.py`` (one HTTP write per
record, timed until every record is searchable, then the searches), and mem0 (OSS ``Memory``,
Qdrant on disk, the same MiniLM, offline) gets ``mem0/bench_mem0.py``. Both see the same
machine within minutes of each other, so the ratio is the figure to compare across runs.

    .venv/bin/python bench/peer_mem0.py --out bench/results/peer-mem0.json
    .venv/bin/python bench/peer_mem0.py --skip-mem0      # memlane only (no mem0 venv)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import REPO_ROOT, MemlaneServer, free_port, machine_facts, machine_line

PEERS = REPO_ROOT.parent / "shared" / "peers"
MEM0_PYTHON = Path(os.environ.get("PEER_VENV", "/tmp/peer-mem0-venv")) / "bin" / "python"


def one_json_line(cmd: list[str]) -> dict[str, Any]:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--m", type=int, default=200)
    ap.add_argument("--skip-mem0", action="store_true")
    ap.add_argument("--env", default="", help="extra memlane server env, K=V,K=V")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="memlane-peer-"))
    records, queries = tmp / "records.jsonl", tmp / "queries.jsonl"
    subprocess.run(
        [
            sys.executable,
            str(PEERS / "mem0" / "make_data.py"),
            "--n",
            str(args.n),
            "--m",
            str(args.m),
            "--seed",
            "42",
            "--records",
            str(records),
            "--queries",
            str(queries),
        ],
        check=True,
        capture_output=True,
    )
    env = {"MEMLANE_DATA_DIR": str(tmp / "data"), "MEMLANE_LOG_LEVEL": "warning"}
    env.update(kv.split("=", 1) for kv in args.env.split(",") if kv)  # type: ignore[misc]
    server = MemlaneServer(port=free_port(), env=env, log_path=tmp / "server.log")
    server.start()
    try:
        server.wait_healthy(120)
        memlane = one_json_line(
            [sys.executable, str(PEERS / "memlane_same_work.py"), server.base_url, str(records), str(queries)]
        )
    finally:
        server.stop()
    print(json.dumps(memlane), flush=True)
    mem0 = None
    if not args.skip_mem0:
        mem0 = one_json_line(
            [
                str(MEM0_PYTHON),
                str(PEERS / "mem0" / "bench_mem0.py"),
                str(records),
                str(queries),
                "--store",
                "qdrant-disk",
                "--workdir",
                str(tmp / "mem0"),
            ]
        )
        print(json.dumps(mem0), flush=True)
    row = {
        "memlane_records_per_s": memlane["add_records_per_s"],
        "memlane_search_p95_ms": memlane["search_p95_ms"],
        "memlane_loadavg_1m": memlane["loadavg_1m"],
    }
    if mem0 is not None:
        row |= {
            "mem0_records_per_s": mem0["add_records_per_s"],
            "mem0_search_p95_ms": mem0["search_p95_ms"],
            "mem0_loadavg_1m_start_end": mem0.get("loadavg_1m_start_end"),
            "write_ratio_memlane_over_mem0": round(memlane["add_records_per_s"] / mem0["add_records_per_s"], 2),
            "search_p95_ratio_mem0_over_memlane": round(mem0["search_p95_ms"] / memlane["search_p95_ms"], 1),
        }
    print(json.dumps(row))
    print(machine_line(machine_facts()))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"row": row, "memlane": memlane, "mem0": mem0, "machine": machine_facts()}))


if __name__ == "__main__":
    main()
