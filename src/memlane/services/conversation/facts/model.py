"""A fact as the parser states it and a note's slots keep it, and ``relate``: how a newer fact
bears on an older one (contradicts, replaces, repeats, or not at all)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from memlane.services.conversation import language as lang
from memlane.services.conversation.facts.lexicon import KINDS, NOT_WORKING, NUMBER_WORDS, THING_ATTRIBUTES, TIME_WORDS

SELF = "self"

STATEMENT, PLAN, PAST, CANCEL, CORRECTION = "statement", "plan", "past", "cancel", "correction"
#: how a newer fact bears on an older one (``relate``)
CONTRADICTS, REPLACES, REPEATS = "contradicts", "replaces", "repeats"


@dataclass(frozen=True, slots=True)
class Fact:
    subject: str
    relation: str
    value: str
    negated: bool = False
    exclusive: bool = False
    kind: str = STATEMENT
    #: the clause said the state changed ("now", "moved", "switched", "anymore", "no longer")
    change: bool = False
    #: what a correction replaces, or what a switch leaves ("switched from X to Y")
    old_value: str = ""
    #: the value names something in particular (a capitalised name: "Iron Works", "Volvo")
    specific: bool = False
    #: the clause says it adds to what was known ("also", "too", "another", "a second")
    adds: bool = False

    def to_slot(self) -> dict[str, Any]:
        out: dict[str, Any] = {"subject": self.subject, "relation": self.relation, "value": self.value}
        for flag in _FLAGS:
            if getattr(self, flag):
                out[flag] = True
        if self.kind != STATEMENT:
            out["kind"] = self.kind
        if self.old_value:
            out["old_value"] = self.old_value
        return out

    @classmethod
    def from_slot(cls, data: Any) -> Fact | None:
        if not isinstance(data, dict):
            return None
        subject, relation, value = data.get("subject"), data.get("relation"), data.get("value")
        if not (isinstance(subject, str) and isinstance(relation, str) and isinstance(value, str)):
            return None
        kind = data.get("kind", STATEMENT)
        return cls(
            subject=subject,
            relation=relation,
            value=value,
            kind=kind if kind in (STATEMENT, PLAN, PAST, CANCEL, CORRECTION) else STATEMENT,
            old_value=str(data.get("old_value") or ""),
            **{flag: data.get(flag) is True for flag in _FLAGS},
        )


_FLAGS = ("negated", "exclusive", "change", "specific", "adds")


def value_words(value: str) -> frozenset[str]:
    return frozenset(lang.content_words(value))


def same_value(a: str, b: str) -> bool:
    """Two values name the same thing: one's words hold the other's ("porto" and "a small flat
    in porto"), or most words agree and so does the last ("flat in denver" is not "flat in
    seattle"); numbers must be equal."""
    la, lb = lang.content_words(a), lang.content_words(b)
    wa, wb = frozenset(la), frozenset(lb)
    if not wa or not wb:
        return a.strip() == b.strip() and bool(a.strip())
    na = {w for w in wa if w.isdigit()}
    nb = {w for w in wb if w.isdigit()}
    if na and nb and na != nb:
        return False
    if wa <= wb or wb <= wa:
        return True
    return la[-1] == lb[-1] and len(wa & wb) / len(wa | wb) >= 0.5


def indexed(items: Any) -> list[tuple[int, Fact]]:
    """Facts as they are kept in a note's slots (``Fact.to_slot`` plus ``i``, the sentence of
    the note that states it); anything malformed is left out."""
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        fact = Fact.from_slot(item)
        if fact is not None:
            i = item.get("i", 0)
            out.append((i if isinstance(i, int) and i >= 0 else 0, fact))
    return out


#: relations that say what a person can eat: "can eat anything" (value "none") and any
#: restriction replace each other
_RESTRICTIVE = frozenset({"restriction", "allergy", "diet"})


class _Open(Enum):
    """A step of ``relate`` that does not decide leaves the question open for the next."""

    OPEN = "open"


_OPEN = _Open.OPEN
#: what a step of ``relate`` says: a relation, none at all (None), or nothing yet (_OPEN)
_Verdict = str | None | _Open


def is_relative(subject: str) -> bool:
    """Whether a fact's subject is someone's relative, partner or pet ("my sister", "my sister
    ana", "priya's brother"; clauses.py keys them so)."""
    return subject.startswith("my ") or "'s " in subject


def same_subject(a: str, b: str) -> bool:
    """Whether two facts are about one person: the same key, or the same relative named in one
    and not in the other ("my sister ana" and "my sister"); "my sister ana" and "my sister eva"
    are two sisters, "my sister" and "my brother" two people."""
    if a == b:
        return True
    if not (is_relative(a) and is_relative(b)):
        return False
    wa, wb = a.split(), b.split()
    return wa[:2] == wb[:2] and min(len(wa), len(wb)) == 2


def relate(new: Fact, old: Fact) -> str | None:
    """How a newer fact bears on an older one of the same subject, or None.

    In order: what the new fact's verb says by itself (a switch, a stop, a new possession, a
    past habit); then a cue that ends or replaces an older fact of another relation; then the
    comparison of two facts of the same relation."""
    if not same_subject(new.subject, old.subject) or old.kind in (CANCEL, CORRECTION):
        return None
    for step in (_by_verb, _by_cue):
        verdict = step(new, old)
        if verdict is not _OPEN:
            return verdict
    return _same_relation(new, old)


def _by_verb(new: Fact, old: Fact) -> _Verdict:
    """What the new fact's verb decides alone: a switch, a stop, no longer having a thing, a
    new thing of a kind, a past habit; an older past habit is never contradicted."""
    if new.relation == "switch":
        if new.old_value and not old.negated and same_value(new.old_value, old.value):
            return REPLACES
        return REPEATS if old.relation == "switch" and same_value(new.value, old.value) else None
    if new.relation == "stop":
        # "sold the Volvo", "moved on from The Bear", "no more coffee": whatever held it ends,
        # and so does what the stopped thing is the kind of ("gave up alcohol" ends the wine)
        held = holds(old.value, new.value) or bool(kinds_of(new.value) & value_words(old.value))
        held = held or _names_thing(new.value, old)  # "sold my car" ends "drives a Corolla"
        return CONTRADICTS if not old.negated and old.kind != PAST and held else None
    if new.negated and new.change and verb_key(new.relation) == "do:hav" and _names_thing(new.value, old):
        # "I don't have a car anymore" ends what a note says the car is
        return CONTRADICTS if not old.negated and old.kind != PAST else None
    if new.relation.startswith("has:"):
        # "got a new car, a Kia Niro": the car a note names is another one now
        names = THING_ATTRIBUTES.get(new.relation[4:], ())
        named = old.relation in names or _attribute_head(old) in names
        if named and not old.negated and old.kind != PAST:
            return REPEATS if same_value(new.value, old.value) else REPLACES
        return None
    if new.kind == PAST:
        # "I used to get flat whites": the habit ends, however it was stated
        held = same_value(new.value, old.value) or holds(old.value, new.value)
        return REPLACES if held and not old.negated and old.kind != PAST else None
    if old.kind == PAST:
        return None
    return _OPEN


def _by_cue(new: Fact, old: Fact) -> _Verdict:
    """A cue that ends or replaces an older fact even of another relation: a specific place
    given up, an activity dropped, work found, a restriction lifted or taken on."""
    if new.negated and new.change and new.specific and not old.negated and holds(old.value, new.value):
        # "I'm no longer going to Iron Works" ends "is a member at the Iron Works gym"
        return CONTRADICTS
    if (
        new.negated
        and new.change
        and _is_activity(new.value)
        and not old.negated
        and old.relation != "stop"
        and old.value.split()[:1] == new.value.split()
    ):
        # "I'm not into bouldering these days" ends "goes bouldering at the climbing gym"
        return CONTRADICTS
    if (
        new.relation == "employer"
        and not new.negated
        and new.kind == STATEMENT
        and old.relation == "occupation"
        and re.fullmatch(NOT_WORKING, old.value) is not None
    ):
        return REPLACES  # a stay-at-home parent who works somewhere now
    if (
        new.relation in _RESTRICTIVE
        and old.relation in _RESTRICTIVE
        and not (new.negated or old.negated)
        and (new.value == "none") != (old.value == "none")
    ):
        return REPLACES
    return _OPEN


def _same_relation(new: Fact, old: Fact) -> str | None:
    """Two facts of one relation (or one verb): the same value negated contradicts, a plan
    that came true replaces, the same said again repeats; a different value replaces only
    when the relation holds one value at a time, or a count or a time changed."""
    if new.relation != old.relation and not _same_verb(new, old):
        return None
    if new.kind in (CANCEL, CORRECTION):
        return None
    # "I quit smoking", "I don't drink anymore": the activity itself ends, whatever was said of it
    # (only with a change cue: "we don't go often" says nothing about the camping trip)
    bare = new.change and new.relation.startswith("do:") and new.value == verb_key(new.relation)[3:]
    pro_verb = new.relation == "do:do" and new.negated and new.change  # "not doing the kitchen after all"
    if new.relation != old.relation and not (bare or pro_verb):
        return None
    # "I no longer manage anyone": a negated "any" covers whatever the old fact named
    anything = new.negated and new.change and new.value.split()[0] in _ANY and not old.negated
    same = bare or anything or same_value(new.value, old.value)
    if same:
        if new.negated != old.negated:
            return CONTRADICTS
        if new.kind == STATEMENT and old.kind == PLAN and not new.negated:
            return REPLACES  # the plan came true: the statement is the fact now
        return REPEATS if new.kind == old.kind else None
    if new.negated or old.negated or new.kind != STATEMENT or new.adds:
        return None
    if new.exclusive or _count_changed(new.value, old.value) or _time_changed(new.value, old.value):
        return REPLACES
    return None


def holds(container: str, value: str) -> bool:
    """Every content word of ``value`` is in ``container`` ("iron works" in "member at iron
    works gym downtown")."""
    words = value_words(value)
    return bool(words) and words <= value_words(container)


def verb_key(relation: str) -> str:
    return relation.split(" ", 1)[0]


def _same_verb(a: Fact, b: Fact) -> bool:
    """Both state a doing by one verb; "do" stands for any verb ("not doing the kitchen after
    all" takes back "redoing the kitchen")."""
    if not (a.relation.startswith("do:") and b.relation.startswith("do:")):
        return False
    return verb_key(a.relation) == verb_key(b.relation) or a.relation == "do:do"


#: a negated value that covers any other ("doesn't manage anyone")
_ANY = frozenset({"anyone", "anybody", "anything", "any", "everyone", "everything"})


def _is_activity(value: str) -> bool:
    """A value that names an activity by its gerund ("bouldering", "running")."""
    words = value.split()
    return len(words) == 1 and words[0].endswith("ing") and len(words[0]) > 5


def _names_thing(value: str, old: Fact) -> bool:
    """``value`` is a thing of one kind ("my car", "the laptop") and ``old`` states what that
    thing is (``THING_ATTRIBUTES``)."""
    words = value.split()
    if not words or len(words) > 2 or words[-1] not in THING_ATTRIBUTES:
        return False
    names = THING_ATTRIBUTES[words[-1]]
    return old.relation in names or _attribute_head(old) in names or old.relation == f"has:{words[-1]}"


def _attribute_head(fact: Fact) -> str:
    """The thing a ``my:`` relation is about ("my:work laptop" -> "laptop")."""
    return fact.relation[3:].split()[-1] if fact.relation.startswith("my:") and fact.relation[3:] else ""


def kinds_of(value: str) -> frozenset[str]:
    """The words of what ``value`` is a kind of names ("alcohol" -> wine, beer, ...)."""
    out: set[str] = set()
    for w in value_words(value):
        out |= KINDS.get(w, frozenset())
    return frozenset(out)


def _time_changed(a: str, b: str) -> bool:
    """ "bed around midnight" against "bed at 10 pm": the same thing at another time."""
    la, lb = lang.content_words(a), lang.content_words(b)
    if not la or not lb or la[0] != lb[0]:
        return False
    ta = {w for w in la if w.isdigit() or w in TIME_WORDS}
    tb = {w for w in lb if w.isdigit() or w in TIME_WORDS}
    return bool(ta or tb) and ta != tb


def _count_changed(a: str, b: str) -> bool:
    """ "two dogs" against "three dogs": the same thing counted differently. "another dog" or "a
    second dog" adds one, which is not a new count of the same thing."""
    wa, wb = a.split(), b.split()
    na = [NUMBER_WORDS.get(w, w) for w in wa if w.isdigit() or w in NUMBER_WORDS]
    nb = [NUMBER_WORDS.get(w, w) for w in wb if w.isdigit() or w in NUMBER_WORDS]
    if not na or not nb or "+" in na or na == nb:
        return False
    rest_a = {lang.content_words(w)[0] for w in wa if not (w.isdigit() or w in NUMBER_WORDS) and lang.content_words(w)}
    rest_b = {lang.content_words(w)[0] for w in wb if not (w.isdigit() or w in NUMBER_WORDS) and lang.content_words(w)}
    return bool(rest_a) and rest_a == rest_b
