"""Why evidence is missed: for each question of the chosen categories whose evidence turn is not
in recall's first 10, where that turn ranks at each stage, and what it has in common with the
question.

Over the memories a ``locomo_retrieval.py --data-dir DIR`` run left behind, in-process like
``bench/locomo_sweep.py`` (whose ``default`` row reproduces the protocol). For every missed
evidence turn it prints its rank in the whole scope's dense list and keyword list, in the fused
list recall reads (``RankingConfig.candidates`` deep), after the speaker/time boosts and the
question-aware signals (the seed order), and in the final ranking; whether the question names
the person who said it; the content words (crudely stemmed) it shares with the question; and
whether it is an image turn. Then it sorts each miss into one class and counts them.

Usage:
  .venv/bin/python bench/locomo_misses.py --data-dir /tmp/rh/plain --conversations 26,30 [--categories 1,3]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import CATEGORIES, DEFAULT_DATA, Conversation, Question, Turn, load_conversation

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.domain.visibility import Viewer
from memlane.embed.local import LocalMiniLMEmbedder
from memlane.services.container import build_store, from_settings
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.query_text import STOP_WORDS, words
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.services.recall.seeds import SeedQuery, SeedSearch
from memlane.services.recall.service import RecallService
from memlane.store.base import Vector

TENANT = "default"
#: per question with a miss that names someone: the share of its first 10 said by a person it names
_TOP_NAMED: list[float] = []
#: ranks past the end of a list
ABSENT = 9999
_SUFFIXES = ("ing", "edly", "ed", "es", "ly", "er", "s", "e", "y", "i")


def stem(word: str) -> str:
    """A crude suffix stripper (enough to see "swimming" ~ "swim", "paints" ~ "painting")."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2]:
        word = word[:-1]
    return word


def content_stems(text: str, ignored: frozenset[str]) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOP_WORDS and w not in ignored and len(w) > 1}


@dataclasses.dataclass(slots=True)
class Miss:
    conv: str
    question: Question
    turn: Turn
    dense: int
    keyword: int
    fused: int
    boosted: int
    final: int
    named: str
    #: the first names of the people the question names (lower-cased)
    names: frozenset[str]
    shared: set[str]
    #: the content words the question shares with the image's caption (which no client's text holds)
    caption_shared: set[str]

    @property
    def image(self) -> bool:
        return self.turn.caption is not None

    def kind(self) -> str:
        """One class per miss, the first that applies."""
        if self.final < 20:
            return "ranked 11-20 (in reach of reordering)"
        if self.fused > 100 and self.dense > 100 and self.keyword > 100:
            if self.image and not self.shared:
                return "image turn, caption unseen, no shared word, deep in both lists"
            if not self.shared:
                return "no shared word, deep in both lists"
            return "shares a word but deep in both lists"
        if self.named == "other":
            return "said by the other person (question names someone else)"
        return "in the candidates but outranked"


def ranks(ids: Sequence[str], dia: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, nid in enumerate(ids):
        d = dia.get(nid)
        if d is not None and d not in out:
            out[d] = i
    return out


async def analyse(args: argparse.Namespace) -> list[Miss]:
    settings = Settings(MEMLANE_DATA_DIR=str(args.data_dir))
    embedder = LocalMiniLMEmbedder.load()
    store = build_store(settings, dimension=embedder.dimension)
    await store.open()
    clock = Clock()
    reader = MemoryReader(store, clock)
    ranking = dataclasses.replace(from_settings(RankingConfig, settings.recall), **json.loads(args.set))
    recall = RecallService(store, reader, clock=clock, dimension=embedder.dimension, ranking=ranking)
    search = recall.seed_search
    cats = {int(c) for c in args.categories.split(",")}
    misses: list[Miss] = []
    try:
        for cid in args.conversations.split(","):
            conv = load_conversation(args.data / f"{cid}.json")
            misses += await _conversation(conv, cats, embedder, search, recall, reader)
        await recall.drain_audit()
    finally:
        await store.close()
    return misses


async def _conversation(
    conv: Conversation,
    cats: set[int],
    embedder: LocalMiniLMEmbedder,
    search: SeedSearch,
    recall: RecallService,
    reader: MemoryReader,
) -> list[Miss]:
    scope = f"locomo-{conv.conv_id}"
    viewer = Viewer(TENANT)
    turns = {t.dia_id: t for t in conv.turns}
    questions = [q for q in conv.questions if q.category in cats]
    vectors = await embedder.embed([q.question for q in questions])
    firsts = {s.split()[0].lower(): s for s in conv.speakers}
    out: list[Miss] = []
    for q, vec in zip(questions, vectors, strict=True):
        p = RecallParams(viewer=viewer, scope=scope, query_text=q.question, limit=30)
        outcome = await recall.recall(vec, p)
        dia = {s.node.id: s.node.client_id or "" for s in outcome.seeds}
        final_ids = [r.id for r in outcome.ranked]
        final = ranks(final_ids, dia)
        missed = [e for e in q.evidence if final.get(e, ABSENT) >= 10]
        if not missed:
            continue
        stages = await _stages(search, reader, vec, p)
        qwords = set(words(q.question))
        named_people = {full for first, full in firsts.items() if first in qwords}
        top = [turns[d] for i in final_ids[:10] if (d := dia.get(i)) in turns]
        if named_people and top:
            _TOP_NAMED.append(sum(1 for t in top if t.speaker in named_people) / len(top))
        ignored = frozenset(w for s in conv.speakers for w in words(s))
        qstems = content_stems(q.question, ignored)
        for e in missed:
            t = turns[e]
            named = "none" if not named_people else ("same" if t.speaker in named_people else "other")
            out.append(
                Miss(
                    conv=conv.conv_id,
                    question=q,
                    turn=t,
                    dense=stages["dense"].get(e, ABSENT),
                    keyword=stages["keyword"].get(e, ABSENT),
                    fused=stages["fused"].get(e, ABSENT),
                    boosted=stages["boosted"].get(e, ABSENT),
                    final=final.get(e, ABSENT),
                    named=named,
                    names=frozenset(f for f, full in firsts.items() if full in named_people),
                    shared=qstems & content_stems(t.text, ignored),
                    caption_shared=qstems & content_stems(t.caption or "", ignored),
                )
            )
    return out


async def _stages(search: SeedSearch, reader: MemoryReader, vec: Vector, p: RecallParams) -> dict[str, dict[str, int]]:
    """The evidence's rank at each stage, by dia id (the node's client id)."""
    q = SeedQuery.of(p, search.ranking)
    everything = 5000
    dense_all = await reader.nearest(p.viewer, p.scope, vec, everything, p.when)
    kw_all = await reader.keyword(p.viewer, p.scope, q.keyword_text, everything, p.when) if q.keyword_text else []
    nodes = {n.id: n for n in await reader.nodes(p.viewer, p.scope, [h.id for h in dense_all], p.when)}
    dia = {nid: n.client_id or "" for nid, n in nodes.items()}
    dense_hits, keyword_hits, read = await search._candidates(vec, p, q)
    fused = search._fuse(q, dense_hits, keyword_hits)
    sims = {h.id: h.score for h in dense_hits}
    order = sorted(fused, key=lambda nid: (-fused[nid], -sims.get(nid, 0.0), nid))
    loaded, boosted = await search._head(p, q, order, fused, sims, read)
    assert q.text is not None
    base = search._question_aware(q.text, boosted, loaded, sims) if q.aware else boosted
    return {
        "dense": ranks([h.id for h in dense_all], dia),
        "keyword": ranks([h.id for h in kw_all], dia),
        "fused": ranks(order, dia),
        "boosted": ranks(sorted(base, key=lambda nid: (-base[nid], -sims.get(nid, 0.0), nid)), dia),
    }


def report(misses: Sequence[Miss]) -> None:
    def r(x: int) -> str:
        return "-" if x >= ABSENT else str(x + 1)

    print("conv cat | dense kw fused boosted final | named img | shared | question || evidence")
    for m in misses:
        print(
            f"{m.conv} c{m.question.category} | {r(m.dense):>4} {r(m.keyword):>4} {r(m.fused):>4} {r(m.boosted):>4}"
            f" {r(m.final):>4} | {m.named:5s} {'img' if m.image else '   '} | {','.join(sorted(m.shared)) or '-'}"
            f" | {m.question.question} || {m.turn.speaker}: {m.turn.text[:110]!r}"
            + (f" [caption: {m.turn.caption[:60]!r}]" if m.turn.caption else "")
        )
    print()
    counts = collections.Counter((CATEGORIES[m.question.category], m.kind()) for m in misses)
    for (cat, kind), n in sorted(counts.items()):
        print(f"{cat:12s} {n:3d}  {kind}")
    print()
    for label, pred in (
        ("image turns", lambda m: m.image),
        ("image turns whose caption shares a word with the question", lambda m: bool(m.caption_shared)),
        ("no shared content word", lambda m: not m.shared),
        ("said by the person the question names", lambda m: m.named == "same"),
        ("said by the other person", lambda m: m.named == "other"),
        ("question names nobody", lambda m: m.named == "none"),
        ("in the dense top 100", lambda m: m.dense < 100),
        ("in the keyword top 100", lambda m: m.keyword < 100),
        ("not in any keyword hit", lambda m: m.keyword >= ABSENT),
        ("the text holds the named person's name", lambda m: any(w in words(m.turn.text) for w in m.names)),
        ("in the fused head (40)", lambda m: m.fused < 40),
        ("final 11-20", lambda m: 10 <= m.final < 20),
        ("final 21-30", lambda m: 20 <= m.final < 30),
        ("not ranked (past the seeds and their neighbours)", lambda m: m.final >= 100),
    ):
        print(f"{label:50s} {sum(1 for m in misses if pred(m)):3d} of {len(misses)}")


def report_top() -> None:
    if _TOP_NAMED:
        mean = sum(_TOP_NAMED) / len(_TOP_NAMED)
        print(f"first 10 said by a person the question names (questions with a miss): {mean:.2f} of {len(_TOP_NAMED)}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, required=True, help="the server data dir of a locomo_retrieval.py run")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default="26,30")
    ap.add_argument("--categories", default="1,3", help="LoCoMo categories (1 multi-hop, 3 open-domain)")
    ap.add_argument("--set", default="{}", metavar="JSON", help="RankingConfig fields to change")
    args = ap.parse_args(argv)
    report(asyncio.run(analyse(args)))
    report_top()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
