"""Closing by succession: a new note that says a change closes the earlier note of the same
person it disagrees with, when no fact rule recognised the change (issue #27).

The fact rules (facts/, conflicts.py) close a stale note when they can read the change: the
same relation with another value, a negation of the same fact, a cancellation, a correction.
People change a fact in more ways than they know ("Switched to a Pixel 8", "we're with Octopus
now"). Ranking already puts such a later note first (services/ranking/succession.py); this
rule closes the earlier one at write time when the two notes satisfy the same conditions, with
the question's similarity replaced by the notes' own:

* the new note is later, and of the same speaker (the roles of their source messages; the
  candidates are already the same user's), or of another speaker in the chat who names the
  earlier note's speaker as a subject or an owner (:func:`same_speaker`: "Graham's stood down
  from the bench", said by Pauline),
* the earlier note states a present state or plan, not an event told in the past
  (:func:`~memlane.services.ranking.succession.tells_an_event`),
* they are about the same person or thing: a sentence about another named one ("my cousin
  Lars moved to Bergen" beside "my cousin Freya lives in Oslo") never closes (:func:`different_subjects`), and
* the two disagree (:func:`disagreement`), by one of two tests:

  - the merge guard's (services/opposition.py), when the notes' MiniLM cosine is at least
    :data:`NOTE_COSINE` and the new note says a change ending something, not only a beginning
    or an addition (:func:`says_an_ending`): a negation, opposite facts or a changed value, not
    antonym words alone (in chat "in"/"out", "on"/"off", "up"/"down", "always"/"never" seldom
    say that a fact was replaced);
  - the topic's (topic_change.py), when the cosine is at least :data:`TOPIC_COSINE`: a salient
    word both share, ended, or its value replaced or corrected, in the new sentence.

An implied change with no change cue is read by another path (:func:`succeeded_by_state`):
the new note puts the same subject in a state that excludes the earlier note's
(services/exclusive_states.py: "single" → "my husband", "expecting" → "three weeks old").

A name said to someone ("Wow, Gina, ..."), a shared picture's caption and a note's date suffix
are left off first (:func:`spoken`): none is a value of what a note states. On by default
(``MEMLANE_CLOSE_BY_SUCCESSION``; BENCHMARKS.md, "Memory truth").

Only the most similar such note is closed, and only its sentences that disagree with the new
note end; its other sentences are carried into the new note, as every closing does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from memlane.domain.model import Node
from memlane.services.conversation import language as lang
from memlane.services.conversation import topic_change
from memlane.services.conversation.messages import GENERIC_ROLES, NON_FACT_ROLES, parse_timestamp
from memlane.services.conversation.notes import event_time
from memlane.services.exclusive_states import exclusive_change
from memlane.services.opposition import opposition, replaces_older
from memlane.services.ranking.succession import CHANGE_CUES, tells_an_event

#: words that say the new note adds to what is known ("also speaks German", "a rabbit too",
#: "another trip", "off camping again", "our other neighbour"): such a note never closes one
ADDS = re.compile(
    r"\b(?:also|too|as well|another|besides|again|additionally|in addition|both|second|one more|either"
    r"|(?:my|our|his|her|their|the) other(?! (?:day|week|night|morning|evening|time|way)))\b",
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


@lru_cache(maxsize=4096)
def says_an_ending(text: str, *, replaced: bool = False) -> bool:
    """Whether a note says that something changed or ended, not only that something began or
    was added: a change cue of the ranking (services/ranking/succession.py) but "new" or
    "first" alone, or a cancellation, and no word that says it adds. With ``replaced``, a cue
    that a value was replaced ("switched", "moved", "instead", "no longer"), not only a time."""
    if ADDS.search(text):
        return False
    if _CANCELS.search(text):
        return True
    skip = _WEAK_CUES | (_TIME_CUES if replaced else frozenset())
    return any(
        m.group(0).lower() not in skip and not _AFFECTED.match(text, m.start()) for m in CHANGE_CUES.finditer(text)
    )


#: "changed" with an object it affected, not replaced ("it changed the way Tim works",
#: "changed John's view"); "changed GPs", "changed to", "the email changed" say a replacement
_AFFECTED = re.compile(
    r"changed\s+(?:the|a|an|my|his|her|their|our|your|its|it|me|us|them|him|everything|[A-Z][\w-]*['\u2019]s)\b",
    re.IGNORECASE,
)


#: the least cosine between the two notes' texts (their stored MiniLM vectors); chosen on the
#: tune split (BENCHMARKS.md, "Memory truth")
NOTE_COSINE = 0.3
#: the least cosine for the topic test (topic_change.py), which asks for a salient word both
#: notes share and so may look further
TOPIC_COSINE = 0.2


@dataclass(frozen=True, slots=True)
class Succession:
    """A stored note the new one succeeds, and which of its sentences end."""

    index: int
    ended: frozenset[int]
    why: str


def _roles(sources: Sequence[Any]) -> frozenset[str]:
    return frozenset(str(s.get("role")) for s in sources if isinstance(s, dict) and s.get("role"))


def same_speaker(earlier: Sequence[Any], later: Sequence[Any], text: str) -> bool:
    """Whether a new note (``text``, from the source messages ``later``) may change what a note
    from the messages ``earlier`` states, by who said them (:func:`_same_speaker`)."""
    return _same_speaker(_roles(earlier), _roles(later), text)


def _same_speaker(theirs: frozenset[str], mine: frozenset[str], text: str) -> bool:
    """Whether a new note (``text``, said by ``mine``) may change what an earlier note said by
    ``theirs`` states: the same speaker, or another one in the chat telling it of them: the
    earlier note's one speaker is a person named in the chat ("Graham"), and the new note
    names them as the subject of a clause or as an owner ("Graham's stood down from the
    bench", "Rowan won't be shooting on Sunday"), not only to address them ("Maria, since we
    talked ...", "Way to go, Jon!"): in a chat people name whom they speak to far more often
    than whom they speak of."""
    if theirs == mine:
        return True
    if len(theirs) != 1:
        return False
    (name,) = theirs
    if not name[:1].isupper() or name.lower() in GENERIC_ROLES or name.lower() in NON_FACT_ROLES:
        return False
    subject = re.compile(rf"\b{re.escape(name)}(?:['\u2019]s\s+[a-z]|\s+{_VERB})")
    return bool(subject.search(spoken(text)))


#: a verb after a subject: an auxiliary, or a word in "-s" or "-ed"
_VERB = (
    r"(?:is|was|has|had|have|will|would|can|could|does|did|just|also|really|still|isn't|wasn't|hasn't|can't"
    r"|won't|doesn't|didn't|[a-z]+s|[a-z]+ed)\b"
)


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
    when, roles = _latest(sources), _roles(sources)
    best: Succession | None = None
    best_cos = -1.0
    least = min(threshold, TOPIC_COSINE)
    for i, e in enumerate(earlier):
        if e.cosine < least or e.cosine <= best_cos:
            continue
        if when is None or e.said_at is None or e.said_at >= when or not _same_speaker(_roles(e.sources), roles, text):
            continue
        ended = _ended(e.text, text, guard=e.cosine >= threshold)
        if ended:
            best = Succession(i, frozenset(k for k, _ in ended), ended[0][1])
            best_cos = e.cosine
    return best


#: a name after a possessive and a noun, anywhere in a sentence: "Marta's cousin Lars", "the
#: user's friend Ola", "our dog Bramble"
_POSSESSED = re.compile(
    r"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[A-Za-z][\w-]*['\u2019]s)\s+(?P<noun>[a-z][\w-]*)\s+(?P<name>[A-Z][\w-]*)"
)
#: a name that opens a sentence as its subject: followed by a verb ("Tomasz moved ...", "Ola
#: lives ...", "Jon is ..."), not by another word ("Bell ringing practice is ...", "Half seven")
_OPENING_NAME = re.compile(
    r"^(?P<name>[A-Z][a-z][\w-]*)\s+(?=(?:is|was|has|had|have|will|would|can|could|does|did|just|also|really|still"
    r"|isn't|wasn't|hasn't|can't|won't|doesn't|didn't|[a-z]+s|[a-z]+ed)\b)"
)
#: capitalised words that open a sentence without naming anyone
_NOT_NAMES = lang.wordset(
    "the this that these those there here it we they he she you go yes no well oh so thanks sorry good great "
    "also now then just still finally turns anyway actually apparently luckily sadly maybe"
)


@lru_cache(maxsize=4096)
def _named(text: str) -> Mapping[str | None, frozenset[str]]:
    """The names a text gives its people and things: by the noun before them ("cousin":
    {"lars"}), and under None the name a sentence opens with ("Tomasz moved to Krakow").
    Remembered per text, like :func:`spoken` and :func:`_mentioned`: a new note is compared
    with every candidate, each candidate with every new note of its conversation. Callers only
    read the result."""
    out: dict[str | None, set[str]] = {}
    for sentence in lang.sentences(text) or [text]:
        for owned in _POSSESSED.finditer(sentence):
            out.setdefault(owned.group("noun").lower(), set()).add(owned.group("name").lower())
        opening = _OPENING_NAME.match(sentence.strip())
        if opening is not None and opening.group("name").lower() not in lang.STOPWORDS | _NOT_NAMES:
            out.setdefault(None, set()).add(opening.group("name").lower())
    return MappingProxyType({k: frozenset(v) for k, v in out.items()})


@lru_cache(maxsize=4096)
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


def _ended(old: str, new: str, *, guard: bool = True) -> list[tuple[int, str]]:
    """The sentences of ``old`` that state a present state and that ``new`` ends or changes,
    unless the two are about different named people or things (:func:`disagreement`)."""
    new = spoken(new)
    out: list[tuple[int, str]] = []
    for k, sentence in enumerate(lang.sentences(old) or [old]):
        said = spoken(sentence)
        if tells_an_event(said) or different_subjects(said, new):
            continue
        why = disagreement(said, new, guard=guard)
        if why is not None:
            out.append((k, why))
    return out


def disagreement(old: str, new: str, *, guard: bool = True) -> str | None:
    """Why ``new`` ends or replaces what the sentence ``old`` states, or None. Two tests:

    * the merge guard's (services/opposition.py), when ``new`` says a change: a negation,
      opposite facts or a changed value (not antonym words alone: "in"/"out" or "up"/"down" in
      chat seldom say a fact was replaced); when they only differ in a name, place, date or
      number (two trips, two places may both be true), ``new`` must say a value was replaced;
      and the two must not open with two different people (topic_change.same_subject: "my
      brother works at Tesco", "my sister doesn't work at Tesco anymore");
    * the topic's (topic_change.py), sentence by sentence of ``new``: the topic both name is
      ended, or its value replaced or corrected."""
    if guard and says_an_ending(new) and topic_change.same_subject(old, new):
        why = opposition(_named_plainly(old), _named_plainly(new), antonyms=False)
        if why is not None and (replaces_older(why) or says_an_ending(new, replaced=True)):
            return why
    for sentence in lang.sentences(new) or [new]:
        why = topic_change.ending(old, sentence, ADDS) or topic_change.changed_value(old, sentence, ADDS)
        if why is not None:
            return why
    return None


#: words said to someone, not about them: an interjection or a greeting
_INTERJECTION = (
    r"(?i:wow|hey|hi|hello|oh|thanks|thank you|congrats|congratulations|yes|yeah|yep|yup|nah|no|well|sorry|aw+"
    r"|omg|haha|lol|dear|ok|okay|great|nice|good job|way to go|go|cheers|bye|see you|love you|morning"
    r"|good morning|night)"
)
#: a name used to address someone, after an interjection and followed by a comma or an
#: exclamation ("Wow, Gina, Jon is stoked", "Thanks, Jon!", "Hey Jon, ...")
_ADDRESSED = re.compile(rf"(?P<lead>\b{_INTERJECTION}[,!]?\s+)(?P<name>[A-Z][a-z][\w-]*)(?P<after>\s*[,!?])")


def _keep_lead(m: re.Match[str]) -> str:
    after = m.group("after").strip()
    return after if after in "!?" else ""


#: a name said to someone at the end of a sentence ("Jon hopes so, Gina.")
_ADDRESSED_LAST = re.compile(r",\s+[A-Z][a-z][\w-]*(?=\s*[.!?](?:\s|$))")
#: what a chat client says it shared ("[shares a photo: a photo of a trophy]"), and when a
#: note says it was said ("(19 January 2023)", "(the week of 2 June 2023)"): two notes said on
#: different days always differ in it
_CAPTION = re.compile(r"\[[^\]]*\]|\s*\([^()]*\b(?:19|20)\d\d\)")


#: a name's possessive ("Tim's"), which the guard would read as another name than "Tim"
_POSSESSIVE = re.compile(r"\b([A-Z][\w-]*)['\u2019]s\b")
#: a capitalised word opening a sentence before a name ("Glad Tim", "Sorry Nate"), which the
#: guard would read as part of the name
_OPENER_BEFORE_NAME = re.compile(r"(^|[.!?]\s+)([A-Z][a-z]+'?)(?=\s+[A-Z])")


#: an interjection that opens a sentence ("Yes, Jon moved ..."): left off, the name after it
#: opens the sentence as it would without it
_LEADING_INTERJECTION = re.compile(rf"(^|[.!?]\s+){_INTERJECTION}\b[,!]?\s+(?=[A-Z])")


def _named_plainly(text: str) -> str:
    """``text`` with its names written one way, so that the guard's changed-name test compares
    names, not their forms: "Tim's" as "Tim", "Glad Tim" as "glad Tim"."""
    text = _LEADING_INTERJECTION.sub(r"\1", _POSSESSIVE.sub(r"\1", text))
    return _OPENER_BEFORE_NAME.sub(lambda m: m.group(1) + m.group(2).lower(), text)


@lru_cache(maxsize=4096)
def spoken(text: str) -> str:
    """``text`` without the names it addresses someone by and the captions of what was
    shared: a name said *to* someone is not a value of what the text states, and a picture's
    caption is not a fact, so neither makes two notes disagree."""
    return _ADDRESSED_LAST.sub("", _ADDRESSED.sub(_keep_lead, _CAPTION.sub("", text)))


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
    new = spoken(text)
    best: Succession | None = None
    best_cos = -1.0
    for i, e in enumerate(earlier):
        if e.cosine < threshold or e.cosine <= best_cos:
            continue
        if when is None or e.said_at is None or e.said_at >= when or not _same_speaker(_roles(e.sources), roles, text):
            continue
        ended = [
            (k, f"exclusive state ({attribute})")
            for k, sentence in enumerate(lang.sentences(e.text) or [e.text])
            if not different_subjects(said := spoken(sentence), new)
            and (attribute := exclusive_change(said, new)) is not None
        ]
        if ended:
            best = Succession(i, frozenset(k for k, _ in ended), ended[0][1])
            best_cos = e.cosine
    return best
