"""Closing by succession: a new note that says a change closes the earlier note of the same
person it disagrees with, when no fact rule recognised the change (issue #27).

The fact rules (facts/, conflicts.py) close a stale note when they can read the change: the
same relation with another value, a negation of the same fact, a cancellation, a correction.
People change a fact in more ways than they know ("Switched to a Pixel 8", "we're with Octopus
now"). Ranking already puts such a later note first (services/ranking/succession.py); this
rule closes the earlier one at write time when the two notes satisfy the same conditions, with
the question's similarity replaced by the notes' own:

* the new note is later, and of the same speaker (the roles of their source messages; the
  candidates are already the same user's),
* it says a change ending something, not only a beginning or an addition (:func:`says_an_ending`),
* the earlier note states a present state or plan, not an event told in the past
  (:func:`~memlane.services.ranking.succession.tells_an_event`),
* the two disagree by the merge guard (services/opposition.py) in a negation, opposite facts or
  a changed value, not by antonym words alone (in chat "in"/"out", "on"/"off", "up"/"down",
  "always"/"never" seldom say that a fact was replaced),
* they are about the same person or thing: a sentence about another named one ("my cousin
  Lars moved to Bergen" beside "my cousin Freya lives in Oslo") never closes (:func:`different_subjects`), and
* the two notes are alike: their MiniLM cosine at least :data:`NOTE_COSINE`.

Only the most similar such note is closed, and only its sentences that disagree with the new
note end; its other sentences are carried into the new note, as every closing does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlane.domain.model import Node
from memlane.services.conversation import language as lang
from memlane.services.conversation.messages import parse_timestamp
from memlane.services.conversation.notes import event_time
from memlane.services.exclusive_states import exclusive_change
from memlane.services.opposition import opposition, replaces_older
from memlane.services.ranking.succession import CHANGE_CUES, tells_an_event

#: words that say the new note adds to what is known ("also speaks German", "a rabbit too",
#: "another trip", "off camping again"): such a note never closes one
_ADDS = re.compile(
    r"\b(?:also|too|as well|another|besides|again|additionally|in addition|both|second|one more|either)\b",
    re.IGNORECASE,
)
#: "new" and "first" alone say something began, not that something ended ("we hired a new
#: designer", "my new favourite brunch spot")
_WEAK_CUES = frozenset({"new", "first"})
#: cues that place a fact in time or deny something, without saying a value was replaced: with
#: them a note that only names another place or name may add to the old one ("Agnes helps out
#: at the animal shelter on Sundays now", beside the food bank on Mondays)
_TIME_CUES = frozenset({"now", "nowadays", "these days", "since", "not", "never", "n't"})
#: a plan called off
_CANCELS = re.compile(r"\b(?:cancell?ed|called off|calling off|scrapped|postponed|put off|fell through)\b", re.I)


def says_an_ending(text: str, *, replaced: bool = False) -> bool:
    """Whether a note says that something changed or ended, not only that something began or
    was added: a change cue of the ranking (services/ranking/succession.py) but "new" or
    "first" alone, or a cancellation, and no word that says it adds. With ``replaced``, a cue
    that a value was replaced ("switched", "moved", "instead", "no longer"), not only a time."""
    if _ADDS.search(text):
        return False
    if _CANCELS.search(text):
        return True
    skip = _WEAK_CUES | (_TIME_CUES if replaced else frozenset())
    return any(m.group(0).lower() not in skip for m in CHANGE_CUES.finditer(text))


#: the least cosine between the two notes' texts (their stored MiniLM vectors); chosen on the
#: tune split (BENCHMARKS.md, "Memory truth")
NOTE_COSINE = 0.3


@dataclass(frozen=True, slots=True)
class Succession:
    """A stored note the new one succeeds, and which of its sentences end."""

    index: int
    ended: frozenset[int]
    why: str


def _roles(sources: Sequence[Any]) -> frozenset[str]:
    return frozenset(str(s.get("role")) for s in sources if isinstance(s, dict) and s.get("role"))


def _latest(sources: Sequence[Any]) -> datetime | None:
    stamps: list[datetime] = []
    for s in sources:
        ts = s.get("timestamp") if isinstance(s, dict) else None
        if isinstance(ts, str) and ts:
            try:
                stamps.append(parse_timestamp(ts))
            except ValueError:
                continue
    return max(stamps) if stamps else None


@dataclass(frozen=True, slots=True)
class Earlier:
    """A candidate note as the rule sees it."""

    text: str
    cosine: float
    sources: Sequence[Any]
    said_at: datetime | None


def stored(text: str, cosine: float, node: Node) -> Earlier:
    """A stored note as :func:`succeeded` reads it."""
    raw = node.slots.get("source_messages")
    sources = raw if isinstance(raw, list) else []
    return Earlier(text, cosine, sources, event_time(node))


def planned(text: str, cosine: float, sources: Sequence[Any]) -> Earlier:
    """A note planned earlier in the same request."""
    return Earlier(text, cosine, sources, _latest(sources))


def succeeded(
    text: str, sources: Sequence[Any], earlier: Sequence[Earlier], *, threshold: float = NOTE_COSINE
) -> Succession | None:
    """The most similar of ``earlier`` that a new note (``text``, said in ``sources``)
    succeeds, or None."""
    if not says_an_ending(text):
        return None
    when, roles = _latest(sources), _roles(sources)
    best: Succession | None = None
    best_cos = -1.0
    for i, e in enumerate(earlier):
        if e.cosine < threshold or e.cosine <= best_cos:
            continue
        if when is None or e.said_at is None or e.said_at >= when or _roles(e.sources) != roles:
            continue
        ended = _ended(e.text, text)
        if ended:
            best = Succession(i, frozenset(k for k, _ in ended), ended[0][1])
            best_cos = e.cosine
    return best


#: a name after a possessive and a noun, anywhere in a sentence: "Marta's cousin Lars", "the
#: user's friend Ola", "our dog Bramble"
_POSSESSED = re.compile(
    r"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[A-Za-z][\w-]*['\u2019]s)\s+(?P<noun>[a-z][\w-]*)\s+(?P<name>[A-Z][\w-]*)"
)
#: a name that opens a sentence and is followed by a word in lower case ("Tomasz moved ...")
_OPENING_NAME = re.compile(r"^(?P<name>[A-Z][a-z][\w-]*)\s+(?=[a-z])")
#: capitalised words that open a sentence without naming anyone
_NOT_NAMES = lang.wordset(
    "the this that these those there here it we they he she you go yes no well oh so thanks sorry good great "
    "also now then just still finally turns anyway actually apparently luckily sadly maybe"
)


def _named(text: str) -> dict[str | None, set[str]]:
    """The names a text gives its people and things: by the noun before them ("cousin":
    {"lars"}), and under None the name a sentence opens with ("Tomasz moved to Krakow")."""
    out: dict[str | None, set[str]] = {}
    for sentence in lang.sentences(text) or [text]:
        for owned in _POSSESSED.finditer(sentence):
            out.setdefault(owned.group("noun").lower(), set()).add(owned.group("name").lower())
        opening = _OPENING_NAME.match(sentence.strip())
        if opening is not None and opening.group("name").lower() not in lang.STOPWORDS | _NOT_NAMES:
            out.setdefault(None, set()).add(opening.group("name").lower())
    return out


def _mentioned(text: str) -> frozenset[str]:
    """The words of a text, a possessive's "'s" left off ("Freya's" mentions "freya")."""
    return frozenset(re.sub(r"['\u2019]s$", "", w) for w in lang.words(text.lower()))


def different_subjects(a: str, b: str) -> bool:
    """Whether two texts are about two different named people or things: they give the same
    noun different names ("my cousin Freya lives in Oslo", "my cousin Lars moved to Bergen":
    two cousins, not a move), or open with different names ("Ola lives in Warsaw", "Tomasz
    moved to Krakow"), and neither mentions a name the other gives."""
    na, nb = _named(a), _named(b)
    wa, wb = _mentioned(a), _mentioned(b)
    for noun in na.keys() & nb.keys():
        xa, xb = na[noun], nb[noun]
        if not (xa & xb) and not (xa & wb) and not (xb & wa):
            return True
    return False


def _ended(old: str, new: str) -> list[tuple[int, str]]:
    """The sentences of ``old`` that state a present state and that ``new`` disagrees with by
    a negation, opposite facts or a changed value (not by antonym words alone: "in"/"out" or
    "up"/"down" in chat seldom say a fact was replaced), unless the two are about different
    named people or things. When they only differ in a name, place, date or number
    (two trips, two places may both be true), the new note must say that a value was replaced."""
    out: list[tuple[int, str]] = []
    for k, sentence in enumerate(lang.sentences(old) or [old]):
        if tells_an_event(sentence) or different_subjects(sentence, new):
            continue
        why = opposition(sentence, new, antonyms=False)
        if why is not None and (replaces_older(why) or says_an_ending(new, replaced=True)):
            out.append((k, why))
    return out


#: the least cosine between two notes for an exclusive state change to close the older: lower
#: than :data:`NOTE_COSINE`, since the shared attribute is itself the evidence that ties them
#: ("fills up the Golf" and "since getting the electric Mini": 0.20); chosen on the tune split
STATE_COSINE = 0.15


def succeeded_by_state(
    text: str, sources: Sequence[Any], earlier: Sequence[Earlier], *, threshold: float = STATE_COSINE
) -> Succession | None:
    """The most similar of ``earlier`` whose state a new note changes to one that excludes it
    (services/exclusive_states.py: "single" → "my husband", "expecting" → "three weeks old"),
    said later by the same speaker about the same subject, or None. An implied change needs no
    change cue: the vocabulary of exclusive states is what says the old note ended."""
    when, roles = _latest(sources), _roles(sources)
    best: Succession | None = None
    best_cos = -1.0
    for i, e in enumerate(earlier):
        if e.cosine < threshold or e.cosine <= best_cos:
            continue
        if when is None or e.said_at is None or e.said_at >= when or _roles(e.sources) != roles:
            continue
        ended = [
            (k, f"exclusive state ({attribute})")
            for k, sentence in enumerate(lang.sentences(e.text) or [e.text])
            if not different_subjects(sentence, text) and (attribute := exclusive_change(sentence, text)) is not None
        ]
        if ended:
            best = Succession(i, frozenset(k for k, _ in ended), ended[0][1])
            best_cos = e.cosine
    return best
