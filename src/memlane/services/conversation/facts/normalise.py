"""Text the parser can read: lower case, straight apostrophes, contractions expanded; a verb
reduced to its lemma; a value cut to its own words."""

from __future__ import annotations

import re
from functools import lru_cache

from memlane.services.conversation.facts.lexicon import (
    ADVERBS,
    DETERMINERS,
    IRREGULAR,
    KEEP_E,
    PREPOSITIONS,
    VALUE_STOP,
)

_CONTRACTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bwon't\b", "will not"),
        (r"\bcan't\b|\bcannot\b", "can not"),
        (r"\bain't\b", "is not"),
        (r"\bshan't\b", "shall not"),
        (r"n't\b", " not"),
        (r"'m\b", " am"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (r"'d\b", " would"),
        (r"\b(it|that|there|he|she|what|who|this|here)'s\b", r"\1 is"),
    )
]
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """Lower case, straight apostrophes, contractions expanded, spaces collapsed. Remembered
    per text: the fact parser and the merge guard normalise one note many times."""
    out = text.translate(APOSTROPHES)
    for pattern, repl in _CONTRACTIONS:
        out = pattern.sub(repl, out)
    out = re.sub(r"[\u2013\u2014]", ",", out)
    return re.sub(r"\s+", " ", out).strip().lower()


_DOUBLED = re.compile(r"([bdgklmnprt])\1$")


def lemma(word: str) -> str:
    """A verb's base form, by a table of irregular verbs and suffix rules (good enough for the
    relations below; a wrong lemma only makes two clauses look different)."""
    w = word.lower()
    if w in IRREGULAR:
        return IRREGULAR[w]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            stem = w[: -len(suffix)]
            if _DOUBLED.search(stem) and stem[-2:] not in ("ll", "ss"):
                return stem[:-1]
            if stem.endswith("i") and suffix == "ed":
                return stem[:-1] + "y"
            if stem + "e" in KEEP_E or (suffix == "ed" and stem.endswith(("at", "iv", "ov", "ur", "ag", "ik", "ac"))):
                return stem + "e"
            return stem
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return w


def stem(word: str) -> str:
    """One key for every form of a verb ("smoke", "smokes", "smoked", "smoking" -> "smok"):
    the lemma without a final ``e``. Keys of generic relations only need to agree."""
    base = lemma(word)
    return base[:-1] if base.endswith("e") and len(base) > 3 else base


def strip_value(raw: str) -> str:
    """The value's own words: up to the next clause boundary, determiners dropped."""
    v = VALUE_STOP.sub("", raw).strip(" .!?\"'")
    words = [w for w in v.split() if w not in DETERMINERS and w not in ADVERBS]
    while words and words[-1] in PREPOSITIONS:
        words.pop()
    return " ".join(words)
