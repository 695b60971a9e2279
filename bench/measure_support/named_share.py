"""Share of the first 10 said by a person the question names, tuning pair, by category."""

import asyncio
import collections
import sys

import numpy as np
from bench.locomo_retrieval import DEFAULT_DATA, load_conversation
from bench.locomo_sweep import open_data_dir

from memlane.domain.clock import Clock
from memlane.domain.text_signals import speaker_of
from memlane.domain.visibility import Viewer
from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.query_text import words
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.service import RecallService


async def main(d):
    settings, emb, store = await open_data_dir(d)
    clock = Clock()
    reader = MemoryReader(store, clock)
    svc = RecallService(
        store, reader, clock=clock, dimension=emb.dimension, ranking=from_settings(RankingConfig, settings.recall)
    )
    share = collections.defaultdict(list)
    evshare = collections.defaultdict(list)
    for cid in ("26", "30"):
        c = load_conversation(DEFAULT_DATA / f"{cid}.json")
        spk = {t.dia_id: t.speaker for t in c.turns}
        vs = await emb.embed([q.question for q in c.questions])
        for q, v in zip(c.questions, vs, strict=False):
            qw = set(words(q.question))
            named = {s for s in c.speakers if set(words(s)) <= qw}
            if not named:
                continue
            out = await svc.recall(
                v, RecallParams(viewer=Viewer("default"), scope=f"locomo-{cid}", query_text=q.question, limit=30)
            )
            top = [s.node for s in out.seeds][:10]
            by = [speaker_of(n.slots, n.text) for n in top]
            share[q.category].append(np.mean([b in named for b in by]) if by else 0)
            ev = [spk[e] in named for e in q.evidence if e in spk]
            if ev:
                evshare[q.category].append(np.mean(ev))
    for k in sorted(share):
        print(
            k,
            "questions naming a speaker",
            len(share[k]),
            "first-10 share said by the named",
            round(float(np.mean(share[k])), 3),
            "evidence share said by the named",
            round(float(np.mean(evshare[k])), 3),
        )
    await svc.drain_audit()
    await store.close()


asyncio.run(main(__import__("pathlib").Path(sys.argv[1])))
