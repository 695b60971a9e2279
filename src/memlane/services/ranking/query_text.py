"""What of a question is worth matching by keyword, and which names it mentions.

BM25 already discounts common words, but a question's function words ("what", "did", "the")
still add noise and cost (every token is an OR term of the full-text query), so they are
dropped before the keyword search. The dense path embeds the question as asked: measured,
stripping it there did not help (BENCHMARKS.md, "Retrieval quality on LoCoMo").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_KEYWORD_TERMS = 32

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can cannot could did do does doing done down during each either else ever every
    few for from further get gets got had has have having he her here hers herself him himself his how
    i if in into is it its itself just let me might more most much must my myself neither no nor not now
    of off on once one only or other ought our ours ourselves out over own per quite rather really s
    same shall she should so some such t than that the their theirs them themselves then there these
    they this those through to too under until up upon us very was we were what whatever when whenever
    where wherever whether which while who whom whose why will with within without would yet you your
    yours yourself yourselves d ll m re ve also kind sort type way ways thing things
"""
#: English function words and question words; content words (nouns, verbs, names) stay.
STOP_WORDS: frozenset[str] = frozenset(_STOP_WORDS_TEXT.split())


def words(text: str) -> list[str]:
    """Lowercase letter/digit runs; apostrophes split (``Caroline's`` -> ``caroline``, ``s``)."""
    return _WORD.findall(text.lower())


def keyword_query(text: str) -> str | None:
    """The content words of ``text``, deduplicated, space-separated, or ``None`` if nothing is
    left (a question made only of function words has nothing for BM25 to match)."""
    kept = [w for w in dict.fromkeys(words(text)) if w not in STOP_WORDS]
    if not kept:
        return None
    return " ".join(kept[:MAX_KEYWORD_TERMS])


def named_words(text: str) -> frozenset[str]:
    """The words of ``text`` written with a capital, its first word aside, lower-cased: the
    names it may mention (``"Did Jon and Gina both ..."`` -> ``jon``, ``gina``)."""
    return frozenset(w.lower() for w in _WORD.findall(text)[1:] if w[0].isupper())


def without_words(keyword_text: str, dropped: frozenset[str]) -> str | None:
    """``keyword_text`` (``keyword_query``'s) without ``dropped``, or ``None`` if nothing is left."""
    kept = [w for w in keyword_text.split() if w not in dropped]
    return " ".join(kept) if kept else None


def mentions(query_words: frozenset[str], name: str) -> bool:
    """Whether every word of ``name`` occurs in the query (``"Mary Ann"`` needs both)."""
    parts = words(name)
    return bool(parts) and all(p in query_words for p in parts)


def mentioned_any(query_words: frozenset[str], names: Iterable[str]) -> bool:
    return any(mentions(query_words, n) for n in names)
