"""Question-aware ranking: what kind of answer a question asks for, read from its text alone.

The server sees only the query text, so the kind is recognised with rules, and each kind
brings in one piece of evidence the similarity of a memory to the question cannot see:

* a **temporal** question ("When did Ana move?", "How long has she ...") is answered by a
  memory that says *when*: one that states a time ("yesterday", "last May", "two weeks ago",
  "on 3 June") which, with the memory's own date (``slots.event_time``, the session date),
  dates the event. Such memories are favoured.
* a question that asks for **several things** ("What books has Ana read?", "Which cities
  ...", "How many ...") is answered by memories spread over the conversation that speak of
  the same things: memories that share a named entity with the best hits (entity links
  across turns) are favoured. Off by default: on LoCoMo it moved less than one question.
* every question profits from the **neighbourhood**: a memory whose episode (the same
  ``slots.session`` or ``session_id``) holds other strong hits is more likely on topic than
  a lone look-alike (skipping it for list questions measured no better).

Each signal has its own weight in ``RankingConfig`` (0 switches it off) and is measured
alone in BENCHMARKS.md ("Question-aware ranking"); docs/retrieval.md describes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memlane.domain.episodes import episode_map
from memlane.domain.model import Node
from memlane.domain.text_signals import body, speaker_of
from memlane.services.conversation.language import entities as named_entities
from memlane.services.ranking.query_text import words

_TEMPORAL_QUESTION = re.compile(
    r"^\s*(?:when|since when|until when)\b"
    r"|\bhow long\b|\bhow (?:many|much) (?:time|days|weeks|months|years)\b"
    r"|\bwhat (?:year|month|day|date|time of year|week|season)\b|\bwhich (?:year|month|day|week|season)\b",
    re.IGNORECASE,
)
_LISTING_QUESTION = re.compile(
    r"^\s*(?:what|which)\s+(?:\w+\s+){0,2}?(?!(?:does|has|was|is|his|its|this)\b)\w{3,}s\b(?!\s+(?:is|was)\b)"
    r"|^\s*(?:where|what)\s+(?:has|have|had)\b"
    r"|^\s*how many\b"
    r"|\b(?:both|all the|ever)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9]+")


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MONTH_NAMES = _wordset(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_WEEKDAYS = _wordset("monday tuesday wednesday thursday friday saturday sunday")
#: a word that says when on its own ("may" does not: it needs a number beside it)
_TIME_ALONE = _MONTH_NAMES | _WEEKDAYS | _wordset("yesterday today tonight tomorrow ago recently lately since weekend")
#: "last week", "this summer", "next Friday"
_DEICTIC = _wordset("last this next")
_PERIODS = _WEEKDAYS | _wordset(
    "night week weekend month year summer spring fall autumn winter morning afternoon evening"
)


#: how many other strong hits of its episode lift a memory (their mean)
EPISODE_OTHERS = 2
#: how many of the best candidates lend their names to entity links
LINK_HEAD = 5


@dataclass(frozen=True, slots=True)
class QuestionKind:
    """Which answers a question asks for; several can hold at once."""

    temporal: bool = False
    listing: bool = False

    @classmethod
    def of(cls, text: str) -> QuestionKind:
        return cls(temporal=bool(_TEMPORAL_QUESTION.search(text)), listing=bool(_LISTING_QUESTION.search(text)))


def states_a_time(text: str) -> bool:
    """Whether a memory says when something happened: a relative time ("yesterday", "last
    week", "two days ago"), a date ("3 May", "May 2023", "2023-05-03"), a weekday, a month or a
    year. Read from word tokens rather than with the extractor's date patterns: this runs on
    every head candidate of a "when" question, and the patterns cost ~0.1 ms a memory."""
    tokens = _TOKEN.findall(text.lower())
    for i, tok in enumerate(tokens):
        if tok in _TIME_ALONE:
            return True
        if tok in _DEICTIC and i + 1 < len(tokens) and tokens[i + 1] in _PERIODS:
            return True
        if tok.isdigit():
            if len(tok) == 4 and tok[:2] in ("19", "20"):
                return True
            if "may" in tokens[max(i - 1, 0) : i + 2]:
                return True
    return False


def time_statement_boost(base: Mapping[str, float], nodes: Mapping[str, Node], boost: float) -> dict[str, float]:
    """``(1 + boost)`` for every candidate that states a time; the others keep their score. A
    speaker-and-date header (``Caroline (8 May, 2023): ...``) is when the words were said, not a
    time they state, so only the words after it count."""
    return {nid: s * (1.0 + boost) if states_a_time(body(nodes[nid].text)) else s for nid, s in base.items()}


def episode_boost(base: Mapping[str, float], nodes: Mapping[str, Node], weight: float) -> dict[str, float]:
    """Adds ``weight x`` the mean of the two best scores among the other candidates of the
    same episode: a memory among other strong hits of its episode is more likely on topic than
    a lone look-alike, and a reply is lifted by the question it answers. (Measured: the best
    other alone, or the mean of three, ranked worse; BENCHMARKS.md.)"""
    best: dict[object, list[tuple[float, str]]] = {}
    episodes = episode_map({nid: nodes[nid] for nid in base})
    for nid, s in base.items():
        ep = episodes.get(nid)
        if ep is not None:
            top = best.setdefault(ep, [])
            top.append((s, nid))
            top.sort(reverse=True)
            del top[EPISODE_OTHERS + 1 :]
    out: dict[str, float] = {}
    for nid, s in base.items():
        ep = episodes.get(nid)
        rest = [v for v, o in best.get(ep, ()) if o != nid][:EPISODE_OTHERS] if ep is not None else []
        out[nid] = s + weight * sum(rest) / EPISODE_OTHERS
    return out


def common_names(question: str, nodes: Mapping[str, Node]) -> frozenset[str]:
    """Words that link everything and so link nothing: the question's own words and the
    speakers' names."""
    names = {w for n in nodes.values() if (sp := speaker_of(n.slots, n.text)) is not None for w in words(sp)}
    return frozenset(words(question)) | names


def linked_names(n: Node, ignored: frozenset[str]) -> set[str]:
    """Named entities a memory mentions (rule-based), lower-cased, without ``ignored`` words."""
    out: set[str] = set()
    for e in named_entities(n.text):
        key = " ".join(words(e))
        if key and not (set(key.split()) <= ignored):
            out.add(key)
    return out


def entity_link_boost(
    base: Mapping[str, float],
    nodes: Mapping[str, Node],
    order: Sequence[str],
    *,
    weight: float,
    ignored: frozenset[str],
    head: int = LINK_HEAD,
) -> dict[str, float]:
    """Adds ``weight x`` the score of the best of the ``head`` first candidates that names an
    entity this memory names too (names the question itself uses, and speakers, excluded:
    they link everything). Memories linked to a strong hit by a shared name are found with it."""
    sources: dict[str, list[tuple[float, str]]] = {}
    for nid in order[:head]:
        for name in linked_names(nodes[nid], ignored):
            top = sources.setdefault(name, [])
            top.append((base[nid], nid))
            top.sort(reverse=True)
            del top[2:]
    if not sources:
        return dict(base)
    out: dict[str, float] = {}
    for nid, s in base.items():
        link = 0.0
        for name in linked_names(nodes[nid], ignored):
            # the best other memory naming it: a memory does not link to itself
            link = max(link, next((v for v, o in sources.get(name, ()) if o != nid), 0.0))
        out[nid] = s + weight * link
    return out
