"""A normalised sentence cut into clauses, and each clause read as who it is about and what
its verb phrase says (the verb as its lemma, with negation, change markers, times and
auxiliaries set aside)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlane.services.conversation.facts.lexicon import (
    ADVERBS,
    AUX,
    CHANGE_PHRASES,
    CHANGE_WORDS,
    DETERMINERS,
    FILLER_LEAD,
    IRREGULAR,
    KIN,
    KIN_SAME,
    NEGATION_WORDS,
    NOT_A_VERB,
    PLAN_LEADS,
    TIME,
)
from memlane.services.conversation.facts.model import PAST, PLAN, SELF, STATEMENT
from memlane.services.conversation.facts.normalise import lemma


@dataclass(slots=True)
class Clause:
    """A clause's verb phrase: ``pred`` is "<lemma> <rest>", with what was set aside noted."""

    subject: str
    pred: str
    negated: bool
    change: bool
    kind: str


_SPLIT = re.compile(
    r"\s*(?:;|,?\s+but\s+|,?\s+and\s+(?=(?:now|then|also|so|i|we|my|our)\b)|,?\s+so\s+(?=(?:now|i|we|my|no)\b)|"
    r"(?:^|,?\s+)(?:ever since|since|now that|because|after|as|so that)\s+(?=(?:i|we|my|our)\s)|"
    r",\s+(?=(?:now|i|we|my|our|he|she)\s)|,?\s+which means\s+|,\s+(?=[\w'\- ]+ (?:is|are) (?:now )?my ))"
)
#: "since my coeliac diagnosis last month i have to avoid gluten": where the main clause begins
_MAIN_AFTER_SUBORDINATE = re.compile(
    r"^(?P<sub>(?:(?:since|after|because|ever since) )?(?:my|the|our) [\w'\- ]{1,60}?)\s+"
    r"(?P<main>i (?:have|had|am|was|can|could|need|must|will|do|did)\s.+)$"
)
#: a clause that opens with one of these speaks of a change ("... but now I work at Stripe")
_CHANGE_LEAD = re.compile(
    r"^(?:now|then|so now|and now|but now|these days|nowadays|currently|lately|recently|since then|"
    r"as of (?:today|now|this week|this month)|from now on|at the moment|right now)\s*,?\s+"
)


_INVERTED_FAVOURITE = re.compile(
    r"^(?P<v>.+?) (?:is|are) (?:now )?my (?:new )?(?P<attr>favou?rite [\w\- ]+?)(?: now)?$"
)
#: "Dr. Patel is my new dentist": "my new dentist is Dr. Patel"
_INVERTED_NEW = re.compile(
    r"^(?P<v>[\w.'\- ]{2,40}?) (?:is|are) (?:now )?my new (?P<attr>[\w\-]+(?: [\w\-]+)?)(?: now)?$"
)


def clauses(sentence_norm: str) -> list[str]:
    out: list[str] = []
    for part in (p.strip(" ,.!?") for p in _SPLIT.split(sentence_norm)):
        m = _MAIN_AFTER_SUBORDINATE.match(part)
        out.extend([m.group("sub"), m.group("main")] if m else [part])
    return [p for p in out if p]


@dataclass(slots=True)
class Subject:
    """Who a clause is about (``SELF``, a person's name, or someone's relative: "my sister",
    "my sister ana", "priya's brother") and the rest of the clause."""

    key: str
    rest: str
    change: bool


#: "my sister ana moved ...", "my little brother plays ...": a relative, partner or pet of
#: someone's who does something (not "my sister is a nurse", "my sister's name is", "my
#: sister and i": those say something of the speaker's, kept as before)
_RELATIVE = re.compile(
    rf"^my (?:(?:little|big|older|younger|elder|baby|twin|eldest|youngest|new) )?(?P<kin>{KIN})"
    r"(?: (?P<name>[a-z][\w\-]*))?(?P<rest> .+)$"
)
_NOT_A_RELATIVES_VERB = re.compile(r"^(?:'s|is|are|was|were|will be|and|&|or|who|that|which|of|from|in|at)\b")


def subject_of(
    clause: str,
    speaker_keys: frozenset[str],
    people: frozenset[str],
    previous: str | None,
    proper: frozenset[str] = frozenset(),
) -> Subject | None:
    """Who a clause is about and the rest of it; a clause with no subject of its own ("... and
    now drive a Tesla") continues the previous clause's, and so does one that opens with "he"
    or "she" after a clause about someone else than the speaker ("my wife switched jobs, she
    works at Tesco now"). None when we cannot name anyone. ``proper`` are the sentence's
    capitalised words: "my sister Ana" is Ana, another person than "my sister Eva"."""
    found = _subject_of(clause, speaker_keys, people, previous)
    if found is None or not found.rest.startswith("my "):
        return found
    return _relative(found, proper) or found


def _relative(found: Subject, proper: frozenset[str]) -> Subject | None:
    """The relative a possessive clause is about, keyed by whose, which and (when named) who:
    "my sister" and "my brother" are two people, "my mum" and "my mother" one."""
    m = _RELATIVE.match(found.rest)
    if m is None:
        return None
    kin, name, rest = m.group("kin"), m.group("name"), m.group("rest")
    if name is not None and name not in proper:
        rest, name = f" {name}{rest}", None
    rest = rest.strip()
    if _NOT_A_RELATIVES_VERB.match(rest) or not rest:
        return None
    owner = "my" if found.key == SELF else f"{found.key}'s"
    key = f"{owner} {KIN_SAME.get(kin, kin)}" + (f" {name}" if name else "")
    return Subject(key, rest, found.change)


def _subject_of(
    clause: str, speaker_keys: frozenset[str], people: frozenset[str], previous: str | None
) -> Subject | None:
    if clause.startswith("no more "):
        return Subject(SELF, clause, True)
    if re.match(r"^no [a-z]", clause) and CHANGE_PHRASES.search(clause):
        # "so no wine with dinner these days": what the person does not have any more
        return Subject(SELF, "no more " + CHANGE_PHRASES.sub(" ", clause[3:]).strip(), True)
    c = FILLER_LEAD.sub("", clause)
    inverted = _INVERTED_FAVOURITE.match(c)
    if inverted:
        return Subject(SELF, f"my {inverted.group('attr')} is {inverted.group('v')}", True)
    inverted = _INVERTED_NEW.match(c)
    if inverted and inverted.group("v").split()[0] not in NOT_A_VERB:
        return Subject(SELF, f"my new {inverted.group('attr')} is {inverted.group('v')}", True)
    gerund = re.match(r"^(?:ever since|since|after|now that|since then)\s+(?P<g>\w+ing)\b(?P<rest>.*)$", c)
    if gerund:
        return Subject(SELF, lemma(gerund.group("g")) + gerund.group("rest"), True)
    change = False
    lead = _CHANGE_LEAD.match(c)
    if lead:
        change, c = True, c[lead.end() :]
        c = FILLER_LEAD.sub("", c)
    m = re.match(r"^(?:i|we)\s+(?P<rest>.+)$", c)
    if m:
        return Subject(SELF, m.group("rest"), change)
    m = re.match(r"^(?:my|our)\s+(?P<rest>.+)$", c)
    if m:
        return Subject(SELF, "my " + m.group("rest"), change)
    for key, subject in [(k, SELF) for k in sorted(speaker_keys, key=len, reverse=True)] + [
        (p, p) for p in sorted(people, key=len, reverse=True)
    ]:
        m = re.match(rf"^{re.escape(key)}(?P<poss>'s)?\s+(?P<rest>.+)$", c)
        if m:
            return Subject(subject, ("my " if m.group("poss") else "") + m.group("rest"), change)
    return _continued(c, speaker_keys, previous, change)


def _continued(c: str, speaker_keys: frozenset[str], previous: str | None, change: bool) -> Subject | None:
    """A clause with no subject of its own, or one that opens with "he"/"she" after a clause
    about someone else than the speaker (or in a note about a named person), continues the
    previous clause's subject."""
    first, _, after = c.partition(" ")
    if first in ("he", "she") and after and previous is not None and (previous != SELF or speaker_keys):
        return Subject(previous, after, change)
    if previous is not None and first not in NOT_A_VERB and first not in speaker_keys and first.isalpha():
        return Subject(previous, c, change)
    return None


def verb_phrase(rest: str, proper: frozenset[str]) -> Clause:
    """Set aside negation, change markers, times and auxiliaries; reduce the verb to its lemma.
    ``proper`` are the sentence's capitalised words ("going to Japan" is a trip, not a plan to
    do something)."""
    text, negated, change = _markers(rest)
    kind, text, used_to = _mood(text, proper)
    verb, tail = _verb(text)
    if verb in ("move", "relocate", "switch", "change", "quit", "leave", "become", "turn", "start", "begin"):
        change = True
    return Clause(subject="", pred=f"{verb} {tail}".strip(), negated=negated, change=change or used_to, kind=kind)


def _markers(rest: str) -> tuple[str, bool, bool]:
    """The words of the first thought without negation, change markers, times and adverbs;
    whether it was negated, and whether it said something changed."""
    change = bool(CHANGE_PHRASES.search(rest))
    negated = bool(re.search(r"\b(?:no longer|not any ?longer)\b", rest))
    rest = re.split(r"[,;:!]", rest, maxsplit=1)[0]  # what follows a comma is another thought
    rest = TIME.sub(" ", CHANGE_PHRASES.sub(" ", rest))
    words: list[str] = []
    for w in rest.split():
        if w in NEGATION_WORDS and (not words or words[-1] in AUX or lemma(words[-1]) in ("be", "have")):
            negated = True
            continue
        if w in CHANGE_WORDS:
            change = True
            continue
        if w in ADVERBS:
            continue
        words.append(w)
    return " ".join(words), negated, change


def _mood(text: str, proper: frozenset[str]) -> tuple[str, str, bool]:
    """The clause's kind (a statement, a plan, a past habit) with the auxiliaries and plan
    leads that said it taken off; and whether it was a past habit ("used to": a change)."""
    kind = STATEMENT
    used_to = False
    aux = re.match(r"^(?P<aux>do|does|did|will|would|can|could|should|shall|may|might|must|am|is|are|was|were|be|"
                   r"have|has|had) (?P<rest>.+)$", text)  # fmt: skip
    if aux and aux.group("aux") in ("will", "would", "shall"):
        kind, text = PLAN, aux.group("rest")
    elif aux and aux.group("aux") in ("do", "does", "did", "can", "could", "should", "may", "might", "must"):
        text = aux.group("rest")
    elif aux and aux.group("aux") in ("am", "is", "are", "was", "were"):
        text = "be " + aux.group("rest")
    m = re.match(r"^(?:have|has|had|decided) to (?P<rest>(?:give up|stop|quit|sell|cancel|leave|drop|move) .+)$", text)
    if m:
        text = m.group("rest")  # "had to give up running": what was given up, whatever forced it
    m = re.match(r"^used to (?P<rest>.+)$", text)
    if m:
        kind, text, used_to = PAST, m.group("rest"), True
    m = PLAN_LEADS.match(text)
    if m:
        after = text[m.end() :]
        nxt = after.split(" ", 1)[0]
        if m.group(0).rstrip().endswith("going to") and (nxt in DETERMINERS or nxt in proper or not nxt.isalpha()):
            text = "go to " + after  # "going to Japan": a trip
        else:
            text = after
        kind = PLAN if kind == STATEMENT else kind
    return kind, text, used_to


def _verb(text: str) -> tuple[str, str]:
    """The verb's lemma and what follows it, looking through perfect and progressive forms
    ("have been", "has moved", "is running") and "get married"."""
    first, _, tail = text.partition(" ")
    verb = lemma(first)
    if verb == "have" and tail:
        nxt, _, after = tail.partition(" ")
        if nxt == "been" and after:
            verb, tail = "be", after
        elif nxt.endswith("ed") or (nxt in IRREGULAR and IRREGULAR[nxt] not in ("be", "have")):
            verb, tail = lemma(nxt), after
    if verb == "be" and tail:
        nxt, _, after = tail.partition(" ")
        if nxt.endswith("ing") and len(nxt) > 4 and nxt not in ("something", "nothing", "thing", "everything"):
            verb, tail = lemma(nxt), after
    if verb == "get" and tail.startswith(("married", "engaged", "divorced", "separated")):
        verb = "be"
    return verb, tail
