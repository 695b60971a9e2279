"""The facts of a sentence: its clauses read one by one (a clause with no subject of its own
continues the previous one's), corrections found across the sentence, repeats dropped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from memlane.services.conversation import language as lang
from memlane.services.conversation.facts.clauses import Clause, Subject, clauses, subject_of, verb_phrase
from memlane.services.conversation.facts.events import implied_facts, new_thing
from memlane.services.conversation.facts.lexicon import (
    ADDS,
    ANAPHORIC_CANCEL,
    AUX,
    CANCEL_PHRASES,
    CHANGE_PHRASES,
    GIVE_UP,
    PLAN_WORDS,
    START_LEADS,
    STOP_LEADS,
)
from memlane.services.conversation.facts.model import (
    CANCEL,
    CORRECTION,
    PLAN,
    SELF,
    Fact,
    indexed,
    is_relative,
    value_words,
    verb_key,
)
from memlane.services.conversation.facts.normalise import APOSTROPHES, normalise, strip_value
from memlane.services.conversation.facts.relations import generic_relation, possessive_relation, relation_of

_CORRECTION = re.compile(
    r"(?:\b(?:it is|that is|she is|he is|her name is|his name is|the name is|its name is|i meant|i mean|"
    r"i said|it was|it should be|should be)\s+(?P<new1>[\w'\-]+(?: [\w'\-]+){0,3}?)\s*,?"
    r"|(?:^|[,.;!:]\s*)(?:sorry|oops|correction|actually|wait|no)?[,:]?\s*(?P<new2>[\w'\-]+(?: [\w'\-]+){0,7}?)\s*,)"
    r"\s*not\s+(?P<old>[\w'\-]+(?: [\w'\-]+){0,3}?)\s*(?:[.!,;]|$)"
)
#: what leads up to the corrected words: "the flat is at 24 baker lane" corrects "42" with "24 baker lane"
_PRONOUNS = frozenset({"i", "we", "you", "he", "she", "they", "it", "me", "us", "them", "this", "that"})
_CORRECTION_LEAD = re.compile(
    r"^(?:(?:it|that|she|he|her name|his name|the name|its name|[\w'\-]+(?: [\w'\-]+){0,3}?) "
    r"(?:is|are|was|were|should be)\s+)?(?:(?:at|in|on|a|an|the|called|named)\s+)*"
)
_CORRECTION_BUT = re.compile(r"\bnot (?P<old>[\w'\-]+(?: [\w'\-]+){0,2}),? but (?P<new>[\w'\-]+(?: [\w'\-]+){0,3})")


#: "Small update about me: ...", "Wrong digits, sorry: ...": a short header before a colon
_HEADER = re.compile(r"^(?:[\w'\-]+ ){0,3}[\w'\-]+(?:, [\w'\-]+)?:\s+(?=\S)")
#: the first word of a sentence that drops its "I" ("Got a new car", "Moved to Leith")
_OPENING_VERB = re.compile(
    r"^(?:got|bought|moved|quit|switched|changed|sold|upgraded|cancelled|canceled|dropped|gave up|stopped|"
    r"graduated|retired)\b"
)
#: a negation before a verb of abandoning: "won't give up on it", "never cancelled"
_NEGATED_BEFORE = re.compile(
    r"\b(?:not|never|no way|will not|would not|do not|did not|can not|could not)\s+(?:\w+\s+){0,2}?"
    r"(?:give up|gave up|quit|cancel|call|scrap|ditch|drop|bail|abandon|skip|back out|pull out|shelve|axe)"
)
#: the clause speaks of the speaker: what a third-person note implies is about someone else
SELF_WORDS = re.compile(r"\b(?:i|we|my|our|me|us)\b")
#: a word that says the speaker corrects what they said before
_CORRECTION_CUE = re.compile(
    r"^(?:sorry|oops|correction|typo|my (?:mistake|bad)|wrong (?:\w+ )?(?:digits?|number|date|day|year|address)|"
    r"i misspoke|scratch that|actually|wait|no wait|i meant|i mean|i got (?:that|it) wrong|small correction)\b"
)
#: "sorry to hear that": sympathy, not a correction
_SYMPATHY = re.compile(r"^sorry (?:to|about|for|that|you|if|but)\b")
#: what says a name was meant, not only regretted
_MEANT = re.compile(r"\b(?:i meant|i mean|typo|correction|misspel\w*|spelled|spelt|(?:name|it) is actually)\b")
#: a value of a type a correction can swap for another of the same type
_TYPED = re.compile(
    r"\b(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d+(?:st|nd|rd|th)?|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)\b"
)


#: the relation of a cancellation whose object is a pronoun
ANAPHORIC = "cancel:it"


#: verbs of going somewhere: "I'm not going to Japan" calls the trip off
_GOING = frozenset({"do:go", "do:visit", "do:travel", "do:fly", "do:attend", "do:com", "do:driv", "do:head"})


#: people whose mention says how a person lives ("my husband Carlos and I ...": married)
_IMPLIED = (
    (re.compile(r"\bmy (?:husband|wife|spouse)\b"), "relationship", "married"),
    (re.compile(r"\bmy (?:fiance|fiancee|fiancé|fiancée)\b"), "relationship", "engaged"),
    (re.compile(r"\bmy (?:boyfriend|girlfriend)\b"), "relationship", "dating"),
)


def parse(sentence: str, *, speaker_keys: Iterable[str] = (), known_people: Iterable[str] = ()) -> list[Fact]:
    """The facts of one sentence. ``speaker_keys`` are the lower-cased names the speaker goes by
    in third-person text ("priya", "the user"); ``known_people`` other names a clause may start
    with."""
    keys = frozenset(k.lower() for k in speaker_keys if k)
    people = frozenset(p.lower() for p in known_people if p) - keys
    return list(_parse(sentence, keys, people))


@lru_cache(maxsize=4096)
def _parse(sentence: str, keys: frozenset[str], people: frozenset[str]) -> tuple[Fact, ...]:
    """:func:`parse`, remembered: conflict resolution and the merge guard parse each earlier
    note's sentences once per new note they are compared with (a fifth of the server's time
    per ingested message before). Facts are frozen, so sharing them is safe."""
    norm = normalise(sentence)
    if not norm or norm.endswith("?"):
        return ()
    tokens = lang.words(sentence.translate(APOSTROPHES))
    proper = frozenset(t.lower() for t in tokens[1:] if t[:1].isupper() and t != "I") - keys
    headed, norm = norm, _HEADER.sub("", norm)
    facts = list(_corrections(norm)) or _retyped(headed, proper)
    previous: str | None = None
    for n, clause in enumerate(clauses(norm)):
        for pattern, relation, value in _IMPLIED:
            if pattern.search(clause) and not re.search(r"\b(?:ex|former|late)[- ]", clause):
                facts.append(Fact(SELF, relation, value, exclusive=True))
        said = clause
        if n == 0 and _OPENING_VERB.match(clause):
            clause = "i " + clause  # "Got a new car on Saturday": chat drops the "I"
        subject = subject_of(clause, keys, people, previous, proper)
        if not keys or SELF_WORDS.search(norm):
            facts += _implied(said, proper, subject)
        if subject is None:
            cancel = _cancellation(clause, SELF)
            if cancel is not None:
                facts.append(cancel)
            continue
        previous = subject.key
        fact = _clause_fact(subject, proper)
        if fact is not None:
            facts.append(fact)
    return tuple(_dedupe(facts))


def _implied(clause: str, proper: frozenset[str], subject: Subject | None) -> list[Fact]:
    """What a clause implies (events.py), about the relative it speaks of when it speaks of one
    ("my sister retired" is her retirement, not the speaker's); "my dog Rex" still says the
    speaker has a pet called Rex."""
    facts = implied_facts(clause, proper)
    if subject is None or not is_relative(subject.key):
        return facts
    own_name = subject.key.split()[2:]
    return [f if f.value.split() == own_name else replace(f, subject=subject.key) for f in facts]


def _clause_fact(subject: Subject, proper: frozenset[str]) -> Fact | None:
    fact = _clause_fact_of(subject, proper)
    if fact is None:
        return None
    specific = bool(set(fact.value.split()) & proper)
    adds = ADDS.search(subject.rest) is not None
    return replace(fact, specific=specific, adds=adds) if specific or adds else fact


def _clause_fact_of(subject: Subject, proper: frozenset[str]) -> Fact | None:
    rest = subject.rest
    if (CANCEL_PHRASES.search(rest) or ANAPHORIC_CANCEL.search(rest)) and not _NEGATED_BEFORE.search(rest):
        return _cancellation(rest, subject.key)
    thing = new_thing(rest, subject.key)
    if thing is not None:
        return thing
    if rest.startswith("my "):
        return _possessive_fact(subject, rest)
    if rest.startswith("no more "):
        value = strip_value(rest.removeprefix("no more "))
        return Fact(subject.key, "stop", value, negated=True, change=True) if value else None
    return _verb_fact(subject, verb_phrase(rest, proper), proper)


def _verb_fact(subject: Subject, vp: Clause, proper: frozenset[str]) -> Fact | None:
    """A clause by its verb: a stop, a start, a switch, leaving a job or giving something up
    says a state changed; any other verb states its relation (``_stated_fact``)."""
    change = vp.change or subject.change
    m = STOP_LEADS.match(vp.pred)
    if m:
        inner = verb_phrase(m.group("rest"), proper)
        relation, exclusive, value = relation_of(inner.pred) or generic_relation(inner.pred)
        if not value:
            return None
        return Fact(subject.key, relation, value, negated=not vp.negated, exclusive=exclusive, change=True)
    m = START_LEADS.match(vp.pred)
    if m and not vp.negated:
        inner = verb_phrase(m.group("rest"), proper)
        vp = Clause("", inner.pred, inner.negated, True, vp.kind)
    m = re.match(r"^(?:use|take|drink|eat|play|drive|ride|read|watch|prefer|go to|go with|have) (?P<new>.+?) "
                 r"instead of (?P<old>.+)$", vp.pred)  # fmt: skip
    m = m or re.match(r"^(?:trade (?:in )?(?P<old>.+?) for|replace (?P<old2>.+?) with) (?P<new>.+)$", vp.pred)
    if m and not vp.negated:
        # "I use Linear instead of Jira now": a switch that names what it leaves
        old = m.groupdict().get("old") or m.groupdict().get("old2") or ""
        return Fact(subject.key, "switch", strip_value(m.group("new")), exclusive=True, change=True,
                    old_value=strip_value(old))  # fmt: skip
    m = re.match(r"^(?:switch|upgrade|downgrade|change) (?:from (?P<old>.+?) )?to (?P<new>.+)$", vp.pred)
    if m:
        return Fact(subject.key, "switch", strip_value(m.group("new")), exclusive=True, change=True,
                    old_value=strip_value(m.group("old") or ""))  # fmt: skip
    m = re.match(
        r"^(?:leave|quit) (?:(?:my|her|his|their) (?:job|position|role) (?:at|with) |the )?(?P<v>[a-z][\w&'\- ]*)$",
        vp.pred,
    )
    if (
        m
        and not vp.negated
        and (
            set(m.group("v").split()) & proper
            or "job" in vp.pred
            or m.group("v").split()[0] in ("bank", "company", "firm")
        )
    ):
        value = strip_value(m.group("v"))
        return Fact(subject.key, "employer", value, negated=True, exclusive=True, change=True)
    m = GIVE_UP.match(vp.pred)
    if m and not vp.negated and vp.kind != PLAN:
        value = strip_value(m.group("v"))
        return Fact(subject.key, "stop", value, negated=True, change=True) if value else None
    return _stated_fact(subject.key, vp, change)


def _stated_fact(subject: str, vp: Clause, change: bool) -> Fact | None:
    """The relation a verb phrase states; a negated plan to go somewhere, or a negated planned
    thing said with a change, cancels it."""
    relation, exclusive, value = relation_of(vp.pred) or generic_relation(vp.pred)
    if not relation or not value:
        return None
    negated = vp.negated
    if relation == "like!":
        relation, negated = "like", not negated
    if negated and relation in ("do:eat", "do:drink") and not change:
        relation, negated = "restriction", False  # "I can't eat gluten": a restriction
    if relation == "diet" and value in ("eat meat", "eat fish"):
        value = value.removeprefix("eat ") + "-eater"
    kind = vp.kind
    if (
        negated
        and relation.startswith("do:")
        and ((change and value_words(value) & PLAN_WORDS) or (kind == PLAN and verb_key(relation) in _GOING))
    ):
        # "not going to Japan after all", "not doing the Paris trip anymore": a plan called off
        # ("won't quit", "will never forget" are not: only going somewhere or a planned thing)
        return Fact(subject, "cancel", " ".join(sorted(value_words(value))), kind=CANCEL, change=True)
    return Fact(subject, relation, value, negated=negated, exclusive=exclusive, kind=kind, change=change)


def _possessive_fact(subject: Subject, rest: str) -> Fact | None:
    """A statement about something of the speaker's; times stay in it (a birthday's value is
    a date)."""
    body = CHANGE_PHRASES.sub(" ", rest)
    change = subject.change or body != rest
    body = re.sub(r"\b(?:now|currently|actually|really|also|just|still)\b", " ", body)
    body = re.sub(r"\s+", " ", body).strip()
    negated = bool(re.search(r" (?:is|are|was|were) (?:not|no longer|never) ", body))
    body = re.sub(r" (is|are|was|were) (?:not|no longer|never) ", r" \1 ", body)
    found = possessive_relation(body)
    if found is None:
        return None
    relation, exclusive, value = found
    if not value:
        return None
    return Fact(subject.key, relation, value, negated=negated, exclusive=exclusive, change=change)


def _cancellation(clause: str, subject: str) -> Fact | None:
    if _NEGATED_BEFORE.search(clause):
        return None  # "I won't give up on it", "we never cancelled": nothing is called off
    if ANAPHORIC_CANCEL.search(clause):
        # "they scrapped it", "I bailed on it", "Dad found out, so that's off": the plan spoken
        # of just before, which the clause's other words may name
        said = lang.content_words(ANAPHORIC_CANCEL.sub(" ", clause))
        return Fact(subject, ANAPHORIC, " ".join(said), kind=CANCEL, change=True)
    m = CANCEL_PHRASES.search(clause)
    if not m:
        return None
    words = [w for w in lang.content_words(CANCEL_PHRASES.sub(" ", clause)) if w not in ("decided", "plan", "plans")]
    if not words:
        return None
    return Fact(subject, "cancel", " ".join(words), kind=CANCEL, change=True)


def _corrections(norm: str) -> list[Fact]:
    out = []
    for pattern in (_CORRECTION, _CORRECTION_BUT):
        m = pattern.search(norm)
        if m:
            raw_new = m.groupdict().get("new") or m.groupdict().get("new1") or m.groupdict().get("new2") or ""
            new = strip_value(_CORRECTION_LEAD.sub("", raw_new.split(",")[-1].strip(), count=1))
            if not new or new.split()[-1] in AUX or new.split()[-1] in ("am", "is", "are", "was", "were", "i"):
                continue
            if new.split()[0] in _PRONOUNS or len(new.split()) > 4:
                continue  # "not easy, but i am determined": a contrast, not a correction
            old = strip_value(m.group("old"))
            new_words, old_words = new.split(), old.split()
            if new_words and old_words and len(new_words) <= 4 and new != old:
                out.append(Fact(SELF, "correction", new, kind=CORRECTION, change=True, old_value=old))
                break
    return out


def _retyped(norm: str, proper: frozenset[str]) -> list[Fact]:
    """ "Typo earlier: it's 24 Elm Street", "Actually it was 2016", "Sorry, I meant Jenna": a
    correction cue and values of a type (numbers, times, weekdays, months, names) with no "not
    X". The old value is not named, so the fact carries the new values and conflicts.py looks
    for a note that holds the rest of the sentence with another value of the same type."""
    if _CORRECTION_CUE.search(norm) is None or _SYMPATHY.search(norm):
        return []
    typed = [m.group(0) for m in _TYPED.finditer(norm)]
    if not typed and _MEANT.search(norm):  # "Sorry, I meant Jenna": a name is the value when nothing else is
        typed = [w for w in norm.split() if w.strip(".,!?") in proper and len(w.strip(".,!?")) > 2]
    typed = list(dict.fromkeys(t.strip(".,!?") for t in typed))
    if not typed or len(typed) > 4:
        return []
    return [Fact(SELF, "correction", " ".join(typed), kind=CORRECTION, change=True)]


def _dedupe(facts: Sequence[Fact]) -> list[Fact]:
    seen: set[tuple[str, str, str, bool, str]] = set()
    out = []
    for f in facts:
        key = (f.subject, f.relation, f.value, f.negated, f.kind)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def facts_of_note(slots: Any, text: str, speaker_keys: Iterable[str] = ()) -> list[tuple[int, Fact]]:
    """A stored note's facts: those recorded when it was written, else parsed from its text
    (notes written before facts were recorded, and notes of the graph surface)."""
    if isinstance(slots, dict) and isinstance(slots.get("facts"), list):
        return indexed(slots["facts"])
    keys = list(speaker_keys)
    name = slots.get("subject_name") if isinstance(slots, dict) else None
    if isinstance(name, str) and name:
        keys.append(name.lower())
    return [(i, f) for i, sentence in enumerate(lang.sentences(text)) for f in parse(sentence, speaker_keys=keys)]
