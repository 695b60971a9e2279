"""On/off alternating in-process latency of RecallService.recall (no embedding) over the tuning pair."""

import asyncio
import dataclasses
import json
import sys
import time

import numpy as np
from bench.locomo_retrieval import DEFAULT_DATA, load_conversation

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.embed.local import LocalMiniLMEmbedder
from memlane.services.container import build_store, from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService


async def main(d, convs, variants):
    settings = Settings(MEMLANE_DATA_DIR=d)
    emb = LocalMiniLMEmbedder.load()
    store = build_store(settings, dimension=emb.dimension)
    await store.open()
    clock = Clock()
    reader = MemoryReader(store, clock)
    base = from_settings(RankingConfig, settings.recall)
    svc = {
        n: RecallService(store, reader, clock=clock, dimension=emb.dimension, ranking=dataclasses.replace(base, **ch))
        for n, ch in [("default", {}), *variants]
    }
    lat = {n: [] for n in svc}
    qs = []
    for cid in convs:
        c = load_conversation(DEFAULT_DATA / f"{cid}.json")
        vs = await emb.embed([q.question for q in c.questions])
        qs += [(cid, q.question, v) for q, v in zip(c.questions, vs, strict=False)]
    for rnd in range(3):
        for i, (cid, text, v) in enumerate(qs):
            order = list(svc) if (i + rnd) % 2 == 0 else list(reversed(svc))
            for n in order:
                p = RecallParams(viewer=Viewer("default"), scope=f"locomo-{cid}", query_text=text, limit=30)
                s = time.perf_counter()
                await svc[n].recall(v, p)
                if rnd > 0:
                    lat[n].append((time.perf_counter() - s) * 1000)
    for n, ms in lat.items():
        print(
            n,
            f"p50 {np.percentile(ms, 50):.2f} p95 {np.percentile(ms, 95):.2f} mean {np.mean(ms):.2f} ms (n={len(ms)})",
        )
        if n != "default":
            dd = np.array(ms) - np.array(lat["default"])
            print(f"  paired difference against default, median {np.median(dd):.2f} ms")
    for s in svc.values():
        await s.drain_audit()
    await store.close()


vs = [(a.partition("=")[0], json.loads(a.partition("=")[2])) for a in sys.argv[3:]]
asyncio.run(main(sys.argv[1], sys.argv[2].split(","), vs))
