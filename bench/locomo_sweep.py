"""Ranking variants on LoCoMo in seconds: recall in-process over memories already written.

``bench/locomo_retrieval.py`` is the protocol (a real server, every turn through
``/v1/memory/write``, every question through ``/v1/memory/recall_text``); a run of several
configurations takes minutes. Choosing a weight takes many runs, so this script asks the very
same questions of the very same stored memories (the data dir a ``locomo_retrieval.py
--data-dir DIR`` run left behind) through ``RecallService`` directly, once per variant of
``RankingConfig``, and prints tuning and untouched figures: turn-level R@5 / R@10, session-level
R@5 / R@10 (``s``, distinct sessions in rank order), turn-level per category, and the recall's
in-process latency (no embedding; p50 / p95). Its ``default``
row reproduces the protocol's ``full`` row to the last digit (BENCHMARKS.md); the figures
that are recorded come from the protocol.

Usage:
  .venv/bin/python bench/locomo_retrieval.py --configs full --no-baselines --data-dir /tmp/locomo
  .venv/bin/python bench/locomo_sweep.py --data-dir /tmp/locomo \\
      'episode-0.5={"episode_weight": 0.5}' 'no-time-statement={"time_statement_boost": 0}'
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import CATEGORIES, DEFAULT_DATA, Scored, load_conversation, score

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.embed.local import LocalMiniLMEmbedder
from memlane.services.container import build_store, from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService
from memlane.store.contracts import Store

TENANT = "default"


def summary(rows: Sequence[Scored]) -> str:
    """Turn-level R@5/R@10, session-level R@5/R@10 (distinct sessions in rank order), then turn-level per category."""

    def cell(sel: Sequence[Scored]) -> str:
        return f"{np.mean([r.recalls[5] for r in sel]):.3f}/{np.mean([r.recalls[10] for r in sel]):.3f}" if sel else "-"

    sessions = "/".join(f"{np.mean([r.session_recalls[k] for r in rows]):.3f}" for k in (5, 10)) if rows else "-"
    cats = " ".join(f"c{c}:{cell([r for r in rows if r.category == c])}" for c in CATEGORIES)
    return f"{cell(rows)} s{sessions} [{cats}]"


async def open_data_dir(data_dir: Path) -> tuple[Settings, LocalMiniLMEmbedder, Store]:
    """The stored memories a ``locomo_retrieval.py --data-dir`` run left behind, opened, with the
    settings of that data dir and the embedder that wrote them."""
    settings = Settings(MEMLANE_DATA_DIR=str(data_dir))
    embedder = LocalMiniLMEmbedder.load()
    store = build_store(settings, dimension=embedder.dimension)
    await store.open()
    return settings, embedder, store


async def sweep(args: argparse.Namespace, variants: list[tuple[str, dict[str, Any]]]) -> None:
    settings, embedder, store = await open_data_dir(args.data_dir)
    clock = Clock()
    reader = MemoryReader(store, clock)
    convs = [load_conversation(args.data / f"{c}.json") for c in args.conversations.split(",")]
    tune = set(args.tune.split(","))
    vectors = {c.conv_id: await embedder.embed([q.question for q in c.questions]) for c in convs}
    try:
        for name, change in variants:
            ranking = dataclasses.replace(from_settings(RankingConfig, settings.recall), **change)
            recall = RecallService(store, reader, clock=clock, dimension=embedder.dimension, ranking=ranking)
            rows: dict[bool, list[Scored]] = {True: [], False: []}
            latencies: list[float] = []
            for c in convs:
                for q, vec in zip(c.questions, vectors[c.conv_id], strict=True):
                    p = RecallParams(
                        viewer=Viewer(TENANT), scope=f"locomo-{c.conv_id}", query_text=q.question, limit=30
                    )
                    started = time.perf_counter()
                    out = await recall.recall(vec, p)
                    latencies.append(time.perf_counter() - started)
                    dia = {s.node.id: s.node.client_id for s in out.seeds}
                    ranked = [d for r in out.ranked if (d := dia.get(r.id))]
                    rows[c.conv_id in tune].append(score(c, q, ranked))
            await recall.drain_audit()
            ms = np.percentile(np.array(latencies) * 1000, [50, 95])
            print(
                f"{name:24s} tune {summary(rows[True])} | untouched {summary(rows[False])}"
                f" | recall p50/p95 {ms[0]:.1f}/{ms[1]:.1f} ms",
                flush=True,
            )
    finally:
        await store.close()


def data_arguments(ap: argparse.ArgumentParser, conversations: str) -> None:
    """The stored memories and the conversations to ask, as every in-process LoCoMo script reads them."""
    ap.add_argument("--data-dir", type=Path, required=True, help="the server data dir of a locomo_retrieval.py run")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default=conversations)
    ap.add_argument("--tune", default="26,30")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    data_arguments(ap, "26,30,41,42,43")
    ap.add_argument("variants", nargs="*", metavar="NAME=JSON", help="RankingConfig fields to change")
    args = ap.parse_args(argv)
    variants: list[tuple[str, dict[str, Any]]] = [("default", {})]
    for v in args.variants:
        name, _, change = v.partition("=")
        variants.append((name, json.loads(change)))
    asyncio.run(sweep(args, variants))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
