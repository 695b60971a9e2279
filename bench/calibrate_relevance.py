"""Fit the relevance scale (services/ranking/calibration.py) for the local embedder.

On the tuning conversations only (LoCoMo 26 and 30 by default; never the untouched ones), every
question is paired with each of its evidence turns (relevant) and with ``--negatives`` other
turns of the same conversation drawn at random (irrelevant); each turn is embedded alone, the
way a memory without context is. A logistic curve of the cosine is fitted by class-balanced
logistic regression (both classes weigh the same, so 0.5 means "as likely relevant as not",
whatever the share of relevant memories in a scope):

    relevance = 1 / (1 + exp(-(cosine - midpoint) / scale))

The script prints ``midpoint`` and ``scale`` (the defaults of ``MEMLANE_RELEVANCE_MIDPOINT``
and ``MEMLANE_RELEVANCE_SCALE``), the cosine quantiles of both classes, and what the fitted
curve makes of the spec examples' thresholds.

Usage:
  .venv/bin/python bench/calibrate_relevance.py
  .venv/bin/python bench/calibrate_relevance.py --conversations 26,30 --negatives 20 --seed 0
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.locomo_retrieval import DEFAULT_DATA, load_conversation

Floats = npt.NDArray[np.float64]
UNTOUCHED = {"41", "42", "43"}


def embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    from memlane.embed.local import LocalMiniLMEmbedder

    model = LocalMiniLMEmbedder.load()
    return np.asarray(asyncio.run(model.embed(list(texts))), dtype=np.float32)


def pairs(data: Path, conversations: Sequence[str], negatives: int, seed: int) -> tuple[Floats, Floats]:
    """Cosines of (question, evidence turn) and of (question, random other turn)."""
    rng = np.random.default_rng(seed)
    pos: list[float] = []
    neg: list[float] = []
    for cid in conversations:
        conv = load_conversation(data / f"{cid}.json")
        docs = embed([t.text.strip() for t in conv.turns])
        questions = embed([q.question for q in conv.questions])
        index = {t.dia_id: i for i, t in enumerate(conv.turns)}
        sims = questions @ docs.T
        for qi, q in enumerate(conv.questions):
            evidence = [index[e] for e in q.evidence]
            pos += [float(sims[qi, j]) for j in evidence]
            others = np.setdiff1d(np.arange(len(conv.turns)), evidence)
            neg += [float(x) for x in sims[qi, rng.choice(others, min(negatives, len(others)), replace=False)]]
    return np.asarray(pos), np.asarray(neg)


def fit_balanced_logistic(pos: Floats, neg: Floats, *, steps: int = 20000, rate: float = 5.0) -> tuple[float, float]:
    """``(midpoint, scale)`` of the class-balanced maximum-likelihood logistic curve
    (gradient descent on the weighted log loss; convex, so the start does not matter)."""
    x = np.concatenate([pos, neg])
    y = np.concatenate([np.ones_like(pos), np.zeros_like(neg)])
    w = np.concatenate([np.full(len(pos), 0.5 / len(pos)), np.full(len(neg), 0.5 / len(neg))])
    a, b = 1.0, 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(a * x + b)))
        g = w * (p - y)
        a -= rate * float(np.sum(g * x))
        b -= rate * float(np.sum(g))
    return -b / a, 1.0 / a


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default="26,30", help="tuning conversations (never 41, 42, 43)")
    ap.add_argument("--negatives", type=int, default=20, help="irrelevant turns drawn per question")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    convs = [c for c in args.conversations.split(",") if c]
    if UNTOUCHED & set(convs):
        raise SystemExit(f"conversations {sorted(UNTOUCHED & set(convs))} are the untouched ones; fit on 26 and 30")
    pos, neg = pairs(args.data, convs, args.negatives, args.seed)
    midpoint, scale = fit_balanced_logistic(pos, neg)
    q = [10, 25, 50, 75, 90]
    print(f"relevant pairs: {len(pos)}, cosine quantiles {q}: {np.percentile(pos, q).round(3).tolist()}")
    print(f"irrelevant pairs: {len(neg)}, cosine quantiles {q}: {np.percentile(neg, q).round(3).tolist()}")
    print(f"midpoint {midpoint:.3f}  scale {scale:.4f}")
    for threshold in (0.5, 0.6, 0.7):
        cos = midpoint + scale * math.log(threshold / (1 - threshold))
        kept_pos = float(np.mean(pos >= cos))
        kept_neg = float(np.mean(neg >= cos))
        print(
            f"relevance {threshold} = cosine {cos:.3f}: keeps {kept_pos:.0%} of relevant and {kept_neg:.0%} "
            "of irrelevant pairs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
