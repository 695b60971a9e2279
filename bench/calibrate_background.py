"""Choose the background part of the relevance scale (services/ranking/calibration.py) on the
``tune`` haystacks of bench/memory_truth.py's ``thresholds`` phase, in-process.

The haystacks are rebuilt here as the server builds them, without a server: the pooled
conversation cases (eight to a person, each of the person's own lines rewritten into a note
by the offline extractor, the same rewrite ingestion makes; conflict closing aside) and the
fact sheets, every text embedded alone by the local model. Each question is judged as the
bench judges it (bench/memory_truth_thresholds.py). For every point of the grid (excess
midpoint, excess scale, background prior) the server's own ``RelevanceScale`` scores every
memory of every haystack against the others; a question "returns" the (at most 10, the
``memory_search`` limit) memories at 0.7 or above. The chosen point has the best mean F1 of
the two kinds of haystack among the points under which the agent-tools spec's own
``memory_search`` example (five memories, tests/spec_examples/agent_tools_scenario.py) still
finds the example memory at 0.7: a small scope must keep working as documented.

Usage:
  PYTHONPATH=src:. .venv/bin/python bench/calibrate_background.py
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.memory_truth_cases import Conversation
from bench.memory_truth_cases.catalog import assign_splits, load
from bench.memory_truth_cases.sheets import SHEETS
from bench.memory_truth_thresholds import Haystack, Question, persons_of, questions_of

from memlane.services.ranking.calibration import DEFAULT_CUT, Background, RelevanceScale

LIMIT = 10
MIDPOINTS = (0.12, 0.14, 0.16, 0.18, 0.20)
SCALES = (0.042, 0.05, 0.06)
PRIORS = (5.0, 8.0, 10.0, 15.0)
SPEC_QUERY = "What are the user's coding preferences?"
SPEC_MEMORIES = (
    "User prefers TypeScript",
    "The office plants are watered on Mondays",
    "Our preferred database is PostgreSQL",
    "The team prefers PostgreSQL as its database",
    "User prefers functional programming patterns over OOP",
)


@dataclass
class Scored:
    """One haystack's cosines (questions x memories) and labels (1, 0, or -1: unjudged)."""

    dataset: str
    cosines: npt.NDArray[np.float64]
    labels: npt.NDArray[np.int64]


def embed(texts: Sequence[str]) -> npt.NDArray[np.float64]:
    from memlane.embed.local import LocalMiniLMEmbedder

    model = LocalMiniLMEmbedder.load()
    return np.asarray(asyncio.run(model.embed(list(texts))), dtype=np.float64)


def person_notes(cases: Sequence[Conversation]) -> list[tuple[str, str]]:
    """(case id, note) of every line of the person's own that the offline extractor keeps."""
    from memlane.services.conversation.extractor import draft_from_message
    from memlane.services.conversation.messages import Message

    out = []
    for case in cases:
        for session in case.sessions:
            for line in session:
                draft = draft_from_message(Message("x", case.role_of(line), Conversation.words_of(line), None))
                if draft is not None:
                    out.append((case.id, draft.content))
    return out


def score(h: Haystack, notes: Sequence[tuple[str, str]], questions: Sequence[Question]) -> Scored:
    cosines = embed([q.text for q in questions]) @ embed([text for _, text in notes]).T
    labels = [[h.judge(origin, text, q) for origin, text in notes] for q in questions]
    return Scored(h.dataset, cosines, np.asarray([[-1 if x is None else x for x in row] for row in labels]))


def tune_haystacks() -> list[Scored]:
    catalog = load()
    cases = catalog.pooled()
    out = []
    for name, split, mine in persons_of(cases, catalog.split):
        if split != "tune":
            continue
        h = Haystack(name, "persons", split, [q for c in mine for q in questions_of(c)], True, {}, {})
        out.append(score(h, person_notes(mine), h.questions))
    sheet_split = assign_splits({"sheet": [s.id for s in SHEETS]})
    for sheet in SHEETS:
        if sheet_split[sheet.id] != "tune":
            continue
        qs = [Question(q.text, q.facts, sheet.id) for q in sheet.questions]
        h = Haystack(sheet.id, "sheets", "tune", qs, False, {}, {})
        out.append(score(h, [(sheet.id, f) for f in sheet.facts], qs))
    return out


def f1(haystacks: Sequence[Scored], scale: RelevanceScale) -> float:
    tp = fp = fn = 0
    for h in haystacks:
        for cos, lab in zip(h.cosines, h.labels, strict=True):
            background = Background.of(cos.tolist(), whole=True)
            rel = np.asarray([scale(float(c), background) for c in cos])
            order = [j for j in np.argsort(-cos) if rel[j] >= DEFAULT_CUT][:LIMIT]
            shown = np.zeros(len(cos), dtype=bool)
            shown[order] = True
            tp += int(np.sum(shown & (lab == 1)))
            fp += int(np.sum(shown & (lab == 0)))
            fn += int(np.sum(~shown & (lab == 1)))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def spec_example_found(scale: RelevanceScale, cos: npt.NDArray[np.float64]) -> bool:
    """Whether the spec's example memory (the last) reaches the cut among the scenario's five."""
    background = Background.of(cos.tolist(), whole=True)
    return scale(float(cos[-1]), background) >= DEFAULT_CUT


def main() -> int:
    haystacks = tune_haystacks()
    spec = (embed([SPEC_QUERY]) @ embed(list(SPEC_MEMORIES)).T)[0]
    kinds = sorted({h.dataset for h in haystacks})
    print(f"tune haystacks: {', '.join(f'{k} {sum(h.dataset == k for h in haystacks)}' for k in kinds)}")
    rows = []
    for m, s, prior in itertools.product(MIDPOINTS, SCALES, PRIORS):
        scale = RelevanceScale(excess_midpoint=m, excess_scale=s, background_prior=prior)
        per_kind = [f1([h for h in haystacks if h.dataset == k], scale) for k in kinds]
        rows.append((float(np.mean(per_kind)), m, s, prior, per_kind, spec_example_found(scale, spec)))
    rows.sort(key=lambda r: -r[0])
    print("mean F1 | excess midpoint | excess scale | prior | F1 per kind | spec example found")
    for mean, m, s, prior, per_kind, ok in rows[:12]:
        print(f"{mean:.3f} | {m} | {s} | {prior:g} | {' '.join(f'{x:.3f}' for x in per_kind)} | {ok}")
    chosen = next(r for r in rows if r[5])
    print(f"chosen: excess midpoint {chosen[1]}, excess scale {chosen[2]}, background prior {chosen[3]:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
