"""Where the tool relevance scale (src/memlane/services/relevance.py) comes from, and how well
its thresholds separate related from unrelated memories with the default model.

1. ``bench/data/relevance_pairs.json``: 24 queries, each with a related and an unrelated
   memory, written for memlane (agent-memory style; not the specs' examples). Prints the
   cosine quantiles the scale is placed on (unrelated p90 -> 0.2, related p10 -> 0.8) and, for
   thresholds 0.6 / 0.7 / 0.8, the share of related memories kept and unrelated ones dropped.
2. The specs' own examples (agent-tools memory_search, OmniMemory's billing query): the scores
   users see at the thresholds the examples use (reported, never tuned on).
3. With ``--locomo``: LoCoMo conversations 26 and 30 (the dev split), question vs its evidence
   turn (related) and vs a random other turn of the same conversation (unrelated, a much harder
   negative). Shows how far a fixed cosine map is from a calibration; data read in place.

Usage:
  .venv/bin/python bench/tool_relevance.py [--locomo] [--json bench/results/tool-relevance.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np

from memlane.embed.local import LocalMiniLMEmbedder
from memlane.services.relevance import SCALES, RelevanceScale

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "data" / "relevance_pairs.json"
LOCOMO = HERE.parent.parent / "shared" / "data" / "locomo-dev"
THRESHOLDS = (0.6, 0.7, 0.8)
SPEC_EXAMPLES = [
    ("What are the user's coding preferences?", "User prefers functional programming patterns over OOP", True),
    ("What are the user's coding preferences?", "Project uses TypeScript with strict mode enabled", True),
    ("What are the user's coding preferences?", "The office plants are watered on Mondays", False),
    ("database preferences", "Our preferred database is PostgreSQL", True),
    ("database preferences", "User prefers TypeScript", False),
    ("What billing issues did the customer have?", "The user said: Why was I charged twice this month?", True),
    ("What billing issues did the customer have?", "Your subscription is valid until December 2025.", False),
]


async def cosines(embedder: LocalMiniLMEmbedder, pairs: list[tuple[str, str]]) -> list[float]:
    texts = [t for pair in pairs for t in pair]
    vecs = np.asarray(await embedder.embed(texts))
    return [float(vecs[2 * i] @ vecs[2 * i + 1]) for i in range(len(pairs))]


def separation(related: list[float], unrelated: list[float], scale: RelevanceScale) -> dict[str, Any]:
    out = {}
    for t in THRESHOLDS:
        kept = np.mean([scale.relevance(c) >= t for c in related])
        dropped = np.mean([scale.relevance(c) < t for c in unrelated])
        out[str(t)] = {"related_kept": round(float(kept), 3), "unrelated_dropped": round(float(dropped), 3)}
    return out


async def locomo_pairs(embedder: LocalMiniLMEmbedder) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(0)
    related: list[float] = []
    unrelated: list[float] = []
    for conv in ("26", "30"):
        data = json.loads((LOCOMO / f"{conv}.json").read_text())
        turns = {t["dia_id"]: f"{t['speaker']}: {t['text']}" for k, v in data.items()
                 if k.startswith("session_") and isinstance(v, list) for t in v}  # fmt: skip
        ids = list(turns)
        turn_vecs = np.asarray(await embedder.embed([turns[i] for i in ids]))
        qa = [q for q in data["qa"] if q.get("category") in (1, 2, 3, 4) and q.get("evidence")]
        q_vecs = np.asarray(await embedder.embed([q["question"] for q in qa]))
        index = {d: n for n, d in enumerate(ids)}
        for q, v in zip(qa, q_vecs, strict=True):
            sims = turn_vecs @ v
            evidence = {index[e] for e in q["evidence"] if e in index}
            related.extend(float(sims[j]) for j in evidence)
            others = [j for j in range(len(ids)) if j not in evidence]
            unrelated.extend(float(sims[j]) for j in rng.choice(others, size=len(evidence), replace=False))
    return related, unrelated


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", action="store_true", help="also measure LoCoMo 26 and 30 (dev split)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    embedder = LocalMiniLMEmbedder.load()
    scale = RelevanceScale(embedder.model_id)
    topics = json.loads(PAIRS.read_text())["topics"]
    related = await cosines(embedder, [(t["query"], t["relevant"]) for t in topics])
    unrelated = await cosines(embedder, [(t["query"], t["unrelated"]) for t in topics])
    report: dict[str, Any] = {
        "model": embedder.model_id,
        "scale": {"midpoint": SCALES[embedder.model_id].midpoint, "width": SCALES[embedder.model_id].width},
        "pairs": {
            "unrelated_cosine_p90": round(float(np.percentile(unrelated, 90)), 4),
            "related_cosine_p10": round(float(np.percentile(related, 10)), 4),
            "separation": separation(related, unrelated, scale),
        },
    }
    spec = await cosines(embedder, [(q, d) for q, d, _ in SPEC_EXAMPLES])
    report["spec_examples"] = [
        {"query": q, "memory": d, "related": rel, "cosine": round(c, 3), "score": round(scale.relevance(c), 3)}
        for (q, d, rel), c in zip(SPEC_EXAMPLES, spec, strict=True)
    ]
    if args.locomo:
        lr, lu = await locomo_pairs(embedder)
        report["locomo_dev"] = {"pairs": len(lr), "separation": separation(lr, lu, scale)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    asyncio.run(main())
