"""Where the evidence sessions that session R@5 misses stand, tuning pair."""

import asyncio
import collections
import sys
from pathlib import Path

from bench.locomo_retrieval import DEFAULT_DATA, load_conversation
from bench.locomo_sweep import open_data_dir

from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService


async def main(d, convs):
    settings, emb, store = await open_data_dir(d)
    clock = Clock()
    reader = MemoryReader(store, clock)
    svc = RecallService(
        store, reader, clock=clock, dimension=emb.dimension, ranking=from_settings(RankingConfig, settings.recall)
    )
    pos = collections.Counter()
    bycat = collections.Counter()
    nq = collections.Counter()
    for cid in convs:
        c = load_conversation(DEFAULT_DATA / f"{cid}.json")
        sess = {t.dia_id: t.session for t in c.turns}
        vs = await emb.embed([q.question for q in c.questions])
        for q, v in zip(c.questions, vs, strict=False):
            out = await svc.recall(
                v, RecallParams(viewer=Viewer("default"), scope=f"locomo-{cid}", query_text=q.question, limit=30)
            )
            order = []
            for s in out.seeds:
                x = sess.get(s.node.client_id)
                if x is not None and x not in order:
                    order.append(x)
            ev = {sess[e] for e in q.evidence if e in sess}
            if not ev:
                continue
            nq[(q.category, len(ev))] += 1
            for e in ev:
                r = order.index(e) + 1 if e in order else 99
                if r > 5:
                    pos[min(r, 99) if r == 99 else (r if r <= 10 else 11)] += 1
                    bycat[(q.category, len(ev))] += 1
    print("missing sessions by distinct-session rank (11 = 11-30, 99 = not among the 30 seeds):", sorted(pos.items()))
    print("missing sessions by (category, evidence sessions):", sorted(bycat.items()))
    print("questions by (category, evidence sessions):", sorted(nq.items()))
    await svc.drain_audit()
    await store.close()


asyncio.run(main(Path(sys.argv[1]), sys.argv[2].split(",")))
