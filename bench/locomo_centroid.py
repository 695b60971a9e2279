"""How much an episode's centroid knows about a question, on LoCoMo memories already written.

Two diagnostics behind the episode-centroid measurement (BENCHMARKS.md, "Episode centroids"),
over the stored memories of a ``locomo_retrieval.py --data-dir DIR`` run:

* **sessions ranked by one score alone**: session-level R@5 when a scope's episodes
  (domain/episodes.py, inferred for the plain client) are ranked by the query's cosine to their
  centroid (the normalised mean of every memory's vector), to the centroid after the scope's
  mean is taken away, to the centroid of what the one person the question names said there, or
  to their best / best three memories; the full recall ranking's own
  session R@5 is printed by ``bench/locomo_sweep.py``;
* **expansion's ceiling**: of the evidence turns that are *not* among recall's 30 seeds, how
  many are among the ``T`` best memories (by cosine) of the ``X`` episodes of highest centroid
  cosine, and how many new turns such an expansion would add.

Usage:
  PYTHONPATH=src:. .venv/bin/python bench/locomo_centroid.py --data-dir /tmp/rh/plain --conversations 26,30
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import CATEGORIES, DEFAULT_DATA, Conversation, load_conversation
from bench.locomo_sweep import open_data_dir

from memlane.domain.clock import Clock
from memlane.domain.episodes import episode_keys
from memlane.domain.model import Node
from memlane.domain.text_signals import speaker_of
from memlane.domain.visibility import Viewer
from memlane.services.container import from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.query_text import words
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.neighbourhood import seedable
from memlane.services.recall.service import RecallService

VIEWER = Viewer("default")
EXPANSIONS = ((1, 2), (2, 2), (3, 2), (3, 5))


def unit(v: Any) -> Any:
    a = np.asarray(v, dtype=np.float32)
    return a / (float(np.linalg.norm(a)) or 1.0)


async def scope_nodes(reader: MemoryReader, scope: str) -> list[Node]:
    nodes: list[Node] = []
    after: str | None = None
    while True:
        page, after = await reader.scan(VIEWER, scope, after_id=after, limit=1000)
        nodes.extend(n for n in page if seedable(n))
        if after is None:
            return nodes


@dataclass
class ScopeEpisodes:
    """One conversation's stored memories grouped into episodes, with their unit vectors."""

    episodes: list[Hashable]
    members: dict[Hashable, list[str]]
    #: per episode: its members' unit vectors, one row each
    mats: list[Any]
    session: dict[Hashable, int]
    dia: dict[str, str | None]
    speaker: dict[str, str]
    centroids: Any
    centred: Any

    @classmethod
    async def read(cls, reader: MemoryReader, scope: str, conv: Conversation) -> ScopeEpisodes:
        nodes = await scope_nodes(reader, scope)
        vectors = {nid: unit(v) for nid, v in (await reader.embeddings(VIEWER, nodes)).items()}
        dia = {n.id: n.client_id for n in nodes}
        members: dict[Hashable, list[str]] = {}
        for nid, ep in episode_keys(nodes).items():
            if nid in vectors:
                members.setdefault(ep, []).append(nid)
        episodes = list(members)
        mats = [np.stack([vectors[m] for m in members[ep]]) for ep in episodes]
        centroids = np.stack([unit(m.mean(axis=0)) for m in mats])
        centred = centroids - np.mean(np.stack(list(vectors.values())), axis=0)
        centred /= np.linalg.norm(centred, axis=1, keepdims=True)
        return cls(
            episodes=episodes,
            members=members,
            mats=mats,
            session={ep: conv.session_of[str(dia[members[ep][0]])] for ep in episodes},
            dia=dia,
            speaker={n.id: speaker_of(n.slots, n.text) or "" for n in nodes},
            centroids=centroids,
            centred=centred,
        )

    def scores(self, question: str, v: Any) -> dict[str, Any]:
        """Each episode's score for the question by each measure; "the named speaker's
        centroid" is the centroid of what the one person the question names said (every
        member's when it names none, or two)."""
        qw = set(words(question))
        named = {sp for sp in self.speaker.values() if sp and set(words(sp)) <= qw}
        member_sims = [np.sort(m @ v)[::-1] for m in self.mats]
        spoken = []
        for ep, m in zip(self.episodes, self.mats, strict=True):
            rows = [i for i, nid in enumerate(self.members[ep]) if self.speaker[nid] in named]
            spoken.append(unit(m[rows].mean(axis=0)) @ v if len(named) == 1 and rows else unit(m.mean(axis=0)) @ v)
        return {
            "centroid": self.centroids @ v,
            "centroid, scope mean removed": self.centred @ v,
            "the named speaker's centroid": np.array(spoken),
            "best memory": np.array([s[0] for s in member_sims]),
            "best three memories": np.array([s[:3].mean() for s in member_sims]),
        }

    def expansion(self, v: Any, by_centroid: Any, x: int, t: int) -> set[str | None]:
        """The ``t`` best memories of the ``x`` episodes of highest centroid cosine."""
        return {
            self.dia[self.members[self.episodes[i]][j]]
            for i in by_centroid[:x]
            for j in np.argsort(-(self.mats[i] @ v))[:t]
        }


async def run(args: argparse.Namespace) -> None:
    settings, embedder, store = await open_data_dir(args.data_dir)
    clock = Clock()
    reader = MemoryReader(store, clock)
    ranking = from_settings(RankingConfig, settings.recall)
    recall = RecallService(store, reader, clock=clock, dimension=embedder.dimension, ranking=ranking)
    by_score: dict[str, list[float]] = {}
    ceiling: dict[tuple[int, int, int], list[int]] = {}
    try:
        for cid in args.conversations.split(","):
            conv = load_conversation(args.data / f"{cid}.json")
            scope = f"locomo-{cid}"
            eps = await ScopeEpisodes.read(reader, scope, conv)
            questions = conv.questions
            for q, qv in zip(questions, await embedder.embed([q.question for q in questions]), strict=True):
                v = unit(qv)
                wanted = {conv.session_of[e] for e in q.evidence}
                scores = eps.scores(q.question, v)
                for name, s in scores.items():
                    top = {eps.session[eps.episodes[i]] for i in np.argsort(-s)[:5]}
                    by_score.setdefault(name, []).append(len(wanted & top) / len(wanted))
                out = await recall.recall(qv, RecallParams(viewer=VIEWER, scope=scope, query_text=q.question, limit=30))
                seeds = {s.node.client_id for s in out.seeds}
                missing = [e for e in q.evidence if e not in seeds]
                by_centroid = np.argsort(-scores["centroid"])
                for x, t in EXPANSIONS:
                    added = eps.expansion(v, by_centroid, x, t)
                    row = ceiling.setdefault((q.category, x, t), [0, 0, 0])
                    row[0] += len(missing)
                    row[1] += sum(e in added for e in missing)
                    row[2] += len(added - seeds)
        await recall.drain_audit()
    finally:
        await store.close()
    report(by_score, ceiling)


def report(by_score: dict[str, list[float]], ceiling: dict[tuple[int, int, int], list[int]]) -> None:
    print("session R@5 by one score alone:")
    for name, values in by_score.items():
        print(f"  {name:32s} {np.mean(values):.3f}")
    print("expansion ceiling (evidence not among the 30 seeds / caught by X episodes x T turns / new turns added):")
    for (cat, x, t), (miss, caught, added) in sorted(ceiling.items()):
        print(f"  {CATEGORIES[cat]:12s} X={x} T={t}: {miss} missing, {caught} caught, {added} turns added")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True, help="the server data dir of a locomo_retrieval.py run")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default="26,30")
    asyncio.run(run(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
