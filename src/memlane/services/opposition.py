"""Whether two texts that look alike say different things: the guard of every path that merges
memories (``memlane consolidate``, compression rollups, conversation ingestion's merge).

An embedder puts "Alice is vegetarian" and "Alice is not vegetarian" at cosine 0.95, and
"meets at 3pm" and "meets at 4pm" closer still, so similarity alone merges opposites. Two texts
are kept apart when, between them:

* a sentence and its closest counterpart disagree in **negation** (compared sentence by
  sentence, so a negation in both the title and the summary of one node cannot cancel out, as
  a parity over the whole text did);
* an **antonym** pair is split across them (like/dislike, always/never, remote/office ...);
* their **facts** contradict or replace each other (conversation/facts/: same person, relation and value
  with opposite polarity, or an exclusive relation with another value);
* a **value changed**: numbers, names, places, dates or times present on both sides differ;
* an **exclusive state** changed (services/exclusive_states.py): the same subject in two states
  of one attribute that exclude each other ("Sam is single", "Sam's wedding was lovely, his
  wife ..."), what an implied change looks like.

Conservative by design: a false "different" leaves two near-copies standing, a false "same"
loses a fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memlane.services.conversation import facts as fx
from memlane.services.conversation import language as lang
from memlane.services.conversation.facts.normalise import normalise
from memlane.services.exclusive_states import exclusive_change, exclusive_either

#: pairs of words that state opposite things; each is checked in both directions
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("like", "dislike"), ("likes", "dislikes"), ("love", "hate"), ("loves", "hates"), ("enjoy", "hate"),
    ("enjoys", "hates"), ("enable", "disable"), ("enabled", "disabled"), ("allow", "deny"), ("allowed", "denied"),
    ("accept", "reject"), ("accepted", "rejected"), ("true", "false"), ("yes", "no"), ("always", "never"),
    ("increase", "decrease"), ("add", "remove"), ("include", "exclude"), ("on", "off"), ("success", "failure"),
    ("succeeded", "failed"), ("open", "closed"), ("start", "stop"), ("started", "stopped"), ("prefer", "avoid"),
    ("prefers", "avoids"), ("safe", "unsafe"), ("valid", "invalid"), ("available", "unavailable"),
    ("hot", "cold"), ("early", "late"), ("remote", "office"), ("introvert", "extrovert"), ("more", "less"),
    ("win", "lose"), ("won", "lost"), ("pass", "fail"), ("passed", "failed"), ("buy", "sell"), ("bought", "sold"),
    ("cheap", "expensive"), ("agree", "disagree"), ("best", "worst"), ("higher", "lower"), ("above", "below"),
    ("public", "private"), ("online", "offline"), ("legal", "illegal"), ("possible", "impossible"),
    ("married", "single"), ("with", "without"), ("before", "after"), ("morning", "evening"), ("day", "night"),
    ("arrive", "leave"), ("arrived", "left"), ("join", "leave"), ("joined", "left"), ("hire", "fire"),
    ("hired", "fired"), ("up", "down"), ("in", "out"), ("increased", "decreased"), ("approve", "reject"),
    ("approved", "rejected"), ("permitted", "forbidden"), ("required", "optional"), ("must", "mustn't"),
    ("can", "cannot"), ("happy", "unhappy"), ("likely", "unlikely"), ("healthy", "unhealthy"),
)  # fmt: skip
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|nowhere|no longer)\b|n't\b")
_NUMBER = re.compile(r"\b\d+(?:[.,:]\d+)*(?:\s*(?:am|pm|%|k|m))?\b", re.IGNORECASE)
_DATE_WORDS = frozenset(
    [m.lower() for m in lang.MONTHS] + list(lang.WEEKDAYS) + ["today", "tomorrow", "yesterday", "tonight"]
)
#: two sentences this alike (content-word Jaccard) are "the same sentence" for the negation test
_SAME_SENTENCE = 0.5


def opposition(a: str, b: str, *, antonyms: bool = True) -> str | None:
    """Why ``a`` and ``b`` do not say the same thing, or None when they may.

    ``antonyms=False`` leaves out the antonym pairs and asks only for a negation, opposite or
    replaced facts, or a changed value: what closing by succession acts on, since in chat
    "in"/"out", "up"/"down", "always"/"never" rarely say that one fact replaced another. The
    merge guard asks for every kind.

    The exclusive-state check is symmetric for the merge guard (two states that exclude each
    other are never the same note) and directional without antonyms, ``a`` being the older
    text: "Rosa is three weeks old" ends "we're expecting", "we're expecting our second" does
    not end "Rosa is three weeks old"."""
    if not a.strip() or not b.strip():
        return None
    checks = (
        (_negation, _antonyms, _facts, _exclusive_either, _changed_values)
        if antonyms
        else (_negation, _facts, _exclusive, _changed_values)
    )
    for check in checks:
        why = check(a, b)
        if why is not None:
            return why
    return None


#: oppositions that only show two texts differ (two trips, two runs may both be true): they
#: keep a pair from merging but do not make the newer close the older
_ONLY_DIFFERENT = ("changed number", "changed name, place or date")


def replaces_older(why: str) -> bool:
    """Whether an opposition means the newer text ends the older (a negation, antonyms,
    opposite facts or an exclusive value that changed), not only that they differ."""
    return not why.startswith(_ONLY_DIFFERENT)


def opposition_of_any(pairs: Iterable[tuple[str | None, str | None]]) -> str | None:
    """The first opposition among (a, b) pairs of texts, skipping pairs with a missing side:
    a node's title against the other's title, summary against summary."""
    for a, b in pairs:
        if a and b:
            why = opposition(a, b)
            if why is not None:
                return why
    return None


def _negated(text: str) -> bool:
    return _NEGATION.search(normalise(text)) is not None


def _negation(a: str, b: str) -> str | None:
    sa, sb = lang.sentences(a) or [a], lang.sentences(b) or [b]
    for x in sa:
        wx = lang.content_words(x)
        for y in sb:
            if _negated(x) != _negated(y) and lang.jaccard(wx, lang.content_words(y)) >= _SAME_SENTENCE:
                return "negation"
    return None


def _antonyms(a: str, b: str) -> str | None:
    wa, wb = set(lang.words(normalise(a))), set(lang.words(normalise(b)))
    for x, y in ANTONYMS:
        for p, q in ((x, y), (y, x)):
            if p in wa and q in wb and q not in wa and p not in wb:
                return f"antonyms {x}/{y}"
    return None


def _facts(a: str, b: str) -> str | None:
    people = _people(f"{a}. {b}")
    fa = [f for s in lang.sentences(a) for f in fx.parse(s, known_people=people)]
    fb = [f for s in lang.sentences(b) for f in fx.parse(s, known_people=people)]
    for x in fa:
        for y in fb:
            for new, old in ((x, y), (y, x)):
                verdict = fx.relate(new, old)
                if verdict == fx.CONTRADICTS:
                    return f"opposite facts ({new.relation})"
                if verdict == fx.REPLACES:
                    return f"changed value ({new.relation})"
    return None


def _people(text: str) -> list[str]:
    """Who sentences may be about: named entities, and a capitalised first word ("Carol has
    two kids"), which entity recognition leaves out because every sentence starts with one."""
    out = lang.entities(text)
    for sentence in lang.sentences(text):
        first = lang.words(sentence)[:1]
        if first and first[0][:1].isupper() and first[0].lower() not in lang.STOPWORDS:
            out.append(first[0])
    return out


def _exclusive(old: str, new: str) -> str | None:
    attribute = exclusive_change(old, new)
    return None if attribute is None else f"exclusive state ({attribute})"


def _exclusive_either(a: str, b: str) -> str | None:
    attribute = exclusive_either(a, b)
    return None if attribute is None else f"exclusive state ({attribute})"


def _changed_values(a: str, b: str) -> str | None:
    na, nb = _numbers(a), _numbers(b)
    if na and nb and na != nb:
        return "changed number"
    ea, eb = _names(a), _names(b)
    if ea and eb and ea - eb and eb - ea:
        return "changed name, place or date"
    return None


def _numbers(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower().replace(" ", "") for m in _NUMBER.finditer(text))


def _names(text: str) -> frozenset[str]:
    """Proper names and dates: what a paraphrase keeps and a changed fact changes."""
    names = {e.lower() for e in lang.entities(text)}
    names |= {w for w in lang.words(text.lower()) if w in _DATE_WORDS}
    return frozenset(names)
