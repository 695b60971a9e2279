"""Extraction coverage: which messages of a person the offline extractor stores nothing for,
and why (issue #27, item 2 "Nothing else is lost").

A fact that is never stored can neither be recalled nor close the older fact it changes. This
runs the offline extractor in this process (``extract_notes``, as ``POST /api/v1/memories``
does with no LLM) over every message of a person (not the assistant's) of

1. the seen memory-truth sets (bench/memory_truth_cases/: updates and additive cases of every
   group up to blind5; blind6 became tuning data later and is not added, so the figures stay
   comparable, and the held-out blind7 is never read here), and
2. LoCoMo's turns (read in place from ../shared/data/locomo-dev, chunked as bench/conversation.py
   sends them),

and sorts every message that yields no note by the extractor's own reason, read from its
decision on the message's best sentence:

- ``question``: every sentence is a question;
- ``filler``: every sentence that is not a question is a greeting, thanks or reaction
  ("haha", "thanks!");
- ``too short``: the best sentence has fewer than two content words;
- ``below bar``: scored, but under the keep score; split by what the sentence lacks or has:
  ``first person`` (it speaks of the speaker and still scored too little), ``names a day``
  (a weekday or month without "next"/"last"), ``negative`` ("won't", "not"), ``third person``
  (no first-person word: a statement about someone or something else).

It prints the counts per class and a sample of each, so a person can judge whether the
dropped messages held a fact. Nothing is sent anywhere.

    .venv/bin/python bench/extraction_coverage.py
    .venv/bin/python bench/extraction_coverage.py --samples 25 --out /tmp/coverage.json
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.conversation import DATA_DIR, chunks, load_conversation
from bench.memory_truth_cases import Conversation

from memlane.services.conversation import extractor as ex
from memlane.services.conversation import language as lang
from memlane.services.conversation.messages import Message, messages_from_payload

#: the seen case modules and the lists they export (blind6 not added; blind7 is held out and never imported)
SEEN_CASES = (
    ("updates", "UPDATES"),
    ("updates_everyday", "EVERYDAY_UPDATES"),
    ("updates_blind3", "BLIND3_UPDATES"),
    ("updates_blind4", "BLIND4_UPDATES"),
    ("updates_blind5", "BLIND5_UPDATES"),
    ("additive", "ADDITIVE"),
    ("additive_everyday", "EVERYDAY_ADDITIVE"),
    ("additive_blind3", "BLIND3_ADDITIVE"),
    ("additive_blind4", "BLIND4_ADDITIVE"),
    ("additive_blind5", "BLIND5_ADDITIVE"),
)
CLASSES = (
    "question",
    "filler",
    "too short",
    "below bar: first person",
    "below bar: names a day",
    "below bar: negative",
    "below bar: third person",
)


def seen_batches() -> list[list[Message]]:
    """Each session of each seen case as the messages one request sends (assistant lines
    included, for context, and skipped when counting)."""
    start = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)  # a Wednesday
    batches: list[list[Message]] = []
    for module, name in SEEN_CASES:
        cases: Sequence[Conversation] = getattr(importlib.import_module(f"bench.memory_truth_cases.{module}"), name)
        for case in cases:
            for k, session in enumerate(case.sessions):
                batches.append(
                    [
                        Message(
                            id=f"{case.id}:s{k}:m{i}",
                            role=case.role_of(line),
                            content=Conversation.words_of(line),
                            timestamp=start + timedelta(days=3 * k, seconds=45 * i),
                        )
                        for i, line in enumerate(session)
                    ]
                )
    return batches


def locomo_batches(data_dir: Path) -> list[list[Message]]:
    out: list[list[Message]] = []
    for path in sorted(data_dir.glob("*.json")):
        conv = load_conversation(path)
        out.extend(messages_from_payload(c) for s in conv["sessions"] for c in chunks(s))
    return out


def why_dropped(message: Message) -> str:
    """The extractor's reason for storing nothing, from its best sentence."""
    said = [p for s in lang.sentences(message.content) for p in ex.split_facts(ex._without_name(s)) if p]
    read = [ex.with_owner(s) for s in said]
    statements = [s for s in read if s.strip() and not s.rstrip().endswith("?")]
    if not statements:
        return "question"
    rest = [s for s in statements if not lang.is_filler(s)]
    if not rest:
        return "filler"
    best = max(rest, key=lambda s: ex.score_sentence(s, message).score)
    if ex.score_sentence(best, message).score == 0.0:
        return "too short"
    lowered = best.lower()
    if lang.FIRST_PERSON.search(best):
        return "below bar: first person"
    if any(w in lang.WEEKDAYS or w in lang.MONTHS for w in lang.words(lowered)):
        return "below bar: names a day"
    if lang.is_negated(best):
        return "below bar: negative"
    return "below bar: third person"


def coverage(batches: Iterable[list[Message]]) -> dict[str, Any]:
    """Messages of a person, how many yield a note, and the dropped ones by class."""
    total = kept = 0
    dropped: dict[str, list[str]] = {c: [] for c in CLASSES}
    for batch in batches:
        name = ex.names_given(batch)
        for m in batch:
            role = m.role.strip().lower()
            if role in ex.ASSISTANT_ROLES or role in {"system", "tool", "function"}:
                continue
            total += 1
            if ex.draft_from_message(m, name) is not None:
                kept += 1
                continue
            dropped[why_dropped(m)].append(f"[{m.role}] {m.content}")
    return {
        "messages": total,
        "with_note": kept,
        "without_note": total - kept,
        "share_with_note": round(kept / total, 4) if total else 0.0,
        "dropped": dropped,
    }


def report(label: str, result: dict[str, Any], samples: int, rng: random.Random) -> None:
    print(f"\n=== {label}: {result['messages']} messages of a person, {result['with_note']} with a note "
          f"({result['share_with_note']:.1%}), {result['without_note']} without")  # fmt: skip
    counts = Counter({c: len(v) for c, v in result["dropped"].items()})
    for cls in CLASSES:
        print(f"  {cls:<26} {counts[cls]:>5}")
    for cls in CLASSES:
        texts = result["dropped"][cls]
        if not texts:
            continue
        print(f"\n  --- {cls} (sample of {min(samples, len(texts))} of {len(texts)})")
        for text in rng.sample(texts, min(samples, len(texts))):
            print(f"    {text[:160]}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--samples", type=int, default=12, help="dropped messages printed per class")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--out", type=Path, help="write counts and every dropped message as JSON")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    results = {"memory-truth (seen)": coverage(seen_batches()), "locomo": coverage(locomo_batches(args.data_dir))}
    for label, result in results.items():
        report(label, result, args.samples, rng)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
