"""What ``next`` edges between consecutive turns would give recall on LoCoMo, measured before
building them (issue #28: a hop from the first hits to their neighbours).

The benchmark's writes (``bench/locomo_retrieval.py``, both clients) create no edges, so graph
activation adds nothing there. This script asks the same questions of the same stored memories
as ``bench/locomo_sweep.py`` (in-process, today's ``RankingConfig``), then spreads each ranked
seed's score one hop to the turn before and the turn after it in the same session, as
``services/ranking/activation.py`` spreads along an edge (``received = activation x factor``;
a ``next`` edge of weight and confidence 1 has factor 0.7 x 0.5 = 0.35 there, a node takes the
strongest activation that reaches it, added to its own), ranks the neighbours beside the seeds
and scores every ranked turn, like the protocol. Factor 0 is today's ranking.

Usage:
  .venv/bin/python bench/locomo_adjacent.py --data-dir /tmp/rh/plain --conversations 26,30 --factors 0,0.1,0.2,0.35
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import Scored, load_conversation, score
from bench.locomo_sweep import TENANT, data_arguments, open_data_dir, summary

from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService


def spread_to_neighbours(
    base: Mapping[str, float], neighbours: Mapping[str, Sequence[str]], factor: float
) -> list[str]:
    """The turns in rank order after one hop: each keeps its score and adds the strongest
    ``score x factor`` a ranked neighbour passes it."""
    received: dict[str, float] = {}
    for turn, s in base.items():
        for other in neighbours.get(turn, ()):
            received[other] = max(received.get(other, 0.0), s * factor)
    total = dict(base)
    for turn, r in received.items():
        total[turn] = total.get(turn, 0.0) + r
    return sorted(total, key=lambda t: (-total[t], t))


async def run(args: argparse.Namespace) -> None:
    factors = [float(f) for f in args.factors.split(",")]
    settings, embedder, store = await open_data_dir(args.data_dir)
    clock = Clock()
    recall = RecallService(
        store,
        MemoryReader(store, clock),
        clock=clock,
        dimension=embedder.dimension,
        ranking=from_settings(RankingConfig, settings.recall),
    )
    tune = set(args.tune.split(","))
    rows: dict[float, dict[bool, list[Scored]]] = {f: {True: [], False: []} for f in factors}
    try:
        for conv_id in args.conversations.split(","):
            c = load_conversation(args.data / f"{conv_id}.json")
            neighbours: dict[str, list[str]] = {}
            for before, after in zip(c.turns, c.turns[1:], strict=False):
                if before.session == after.session:
                    neighbours.setdefault(before.dia_id, []).append(after.dia_id)
                    neighbours.setdefault(after.dia_id, []).append(before.dia_id)
            vectors = await embedder.embed([q.question for q in c.questions])
            for q, vec in zip(c.questions, vectors, strict=True):
                p = RecallParams(viewer=Viewer(TENANT), scope=f"locomo-{conv_id}", query_text=q.question, limit=30)
                out = await recall.recall(vec, p)
                dia = {s.node.id: s.node.client_id for s in out.seeds}
                base = {d: r.score for r in out.ranked if (d := dia.get(r.id))}
                for f in factors:
                    rows[f][conv_id in tune].append(score(c, q, spread_to_neighbours(base, neighbours, f)))
        await recall.drain_audit()
    finally:
        await store.close()
    for f in factors:
        print(f"hop {f:<5} tune {summary(rows[f][True])} | untouched {summary(rows[f][False])}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    data_arguments(ap, "26,30")
    ap.add_argument("--factors", default="0,0.1,0.2,0.35", help="activation passed to a neighbour, 0 = today")
    asyncio.run(run(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
