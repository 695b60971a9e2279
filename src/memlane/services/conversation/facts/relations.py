"""The relations a verb phrase can state, as rules over "<lemma> <rest>" (first match wins), and
the ``my:<attribute>`` / ``name_of:<relative>`` relations of possessive clauses; any other verb
is a generic ``do:<verb>`` relation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlane.services.conversation.facts.lexicon import (
    ATTRIBUTE_SYNONYMS,
    DETERMINERS,
    DIETS,
    EXCLUSIVE_MY,
    NOT_A_VERB,
    NOT_WORKING,
    OCCUPATIONS,
    PREPOSITIONS,
    RELATIONSHIP,
    SEVERAL_MY,
)
from memlane.services.conversation.facts.normalise import stem, strip_value


@dataclass(frozen=True, slots=True)
class _Rule:
    relation: str
    exclusive: bool
    pattern: re.Pattern[str]


def _rule(relation: str, exclusive: bool, pattern: str) -> _Rule:
    return _Rule(relation, exclusive, re.compile(pattern))


#: first match wins; ``v`` is the value. Patterns run on "<lemma> <rest>", e.g. "live in porto".
_RULES: list[_Rule] = [
    _rule(
        "residence", True, r"^(?:live|stay|reside|settle|be based|be living|be staying|be settled) (?:in|at) (?P<v>.+)$"
    ),
    _rule(
        "residence", True, r"^(?:move|relocate|move back|move out|move over|emigrate|go back) (?:to|into) (?P<v>.+)$"
    ),
    _rule("residence", True, r"^(?:be|get) (?:from|originally from) (?P<v>.+) but live in .+$"),
    _rule("employer", True, r"^(?:work|intern|be working|be interning) (?:at|for) (?P<v>.+)$"),
    _rule(
        "employer",
        True,
        r"^(?:join|start at|start working at|get (?:a )?(?:new )?job (?:at|with)|be employed (?:at|by)|"
        r"be hired (?:at|by)|get hired (?:at|by)|accept (?:a |an )?(?:job |offer |position )(?:at|from)) (?P<v>.+)$",
    ),
    _rule(
        "occupation",
        True,
        r"^(?:work as|be working as|get a job as|be hired as|start working as|become) "
        r"(?:a |an )?(?P<v>.+)$",
    ),
    _rule("diet", True, rf"^(?:be|go|become|turn|eat) (?:a |an |fully |strictly )?(?P<v>{DIETS})(?: now)?$"),
    _rule("diet", True, r"^(?P<v>eat meat|eat fish)$"),
    _rule("allergy", False, r"^be allergic to (?P<v>.+)$"),
    _rule("allergy", False, r"^have (?:a |an )?(?P<v>.+?) allergy$"),
    _rule("relationship", True, rf"^(?:be|get|become) (?P<v>{RELATIONSHIP})(?: (?:to|with|on|in) .+)?$"),
    _rule("relationship", True, r"^(?:date|be seeing|be dating|be with|see) (?P<v>.+)$"),
    _rule("relationship", True, r"^(?P<v>break up|split up|separate|divorce)(?: .+)?$"),
    _rule(
        "occupation",
        True,
        rf"^be (?:a |an )?(?:[\w\-]+ ){{0,3}}?(?P<v>(?:[a-z]+-)?(?:{'|'.join(sorted(OCCUPATIONS))}))(?: .+)?$",
    ),
    _rule("occupation", True, rf"^be (?:a |an )?(?P<v>{NOT_WORKING})(?: .+)?$"),
    _rule("occupation", True, r"^(?P<v>teach .+)$"),
    _rule("occupation", True, r"^(?:be |get )?(?P<v>retired?)(?: .+)?$"),
    _rule(
        "restriction",
        False,
        r"^(?:eat (?P<v>anything|everything)|have no (?:food )?(?:allergies|intolerances|"
        r"restrictions|dietary restrictions))",
    ),
    _rule(
        "restriction",
        False,
        r"^(?:have to avoid|must avoid|need to avoid|can not eat|can not have|be intolerant to|"
        r"be sensitive to) (?P<v>.+)$",
    ),
    _rule("age", True, r"^(?:be|turn|be turning) (?P<v>\d{1,3})(?: years? old| now)?$"),
    _rule("vehicle", True, r"^drive (?:a |an )?(?P<v>.+)$"),
    _rule("like", False, r"^(?:love|like|enjoy|adore|prefer|be into|be a fan of|be a big fan of|fancy) (?P<v>.+)$"),
    _rule("like!", False, r"^(?:hate|dislike|detest|loathe|can not stand|be not into|despise) (?P<v>.+)$"),
]


#: values that name one state however they are worded
_CANONICAL_VALUES = {
    ("restriction", ""): "none", ("restriction", "anything"): "none", ("restriction", "everything"): "none",
    ("relationship", "break up"): "single", ("relationship", "split up"): "single",
    ("relationship", "separate"): "separated", ("relationship", "divorce"): "divorced",
    ("occupation", "retire"): "retired",
}  # fmt: skip


def relation_of(pred: str) -> tuple[str, bool, str] | None:
    for rule in _RULES:
        m = rule.pattern.match(pred)
        if m:
            value = strip_value(m.groupdict().get("v") or "")
            value = _CANONICAL_VALUES.get((rule.relation, value), value)
            if value:
                return rule.relation, rule.exclusive, value
    return None


def _attribute(raw: str) -> str:
    attr = re.sub(r"^favourite", "favorite", raw.strip())
    if attr.startswith("favorite "):
        thing = attr.removeprefix("favorite ")
        return "favorite " + ATTRIBUTE_SYNONYMS.get(thing, thing)
    return attr


def possessive_relation(pred: str) -> tuple[str, bool, str] | None:
    """ "my sister's name is jen", "my favorite food is sushi", "my phone number is 555"."""
    m = re.match(r"^my (?P<owner>[\w\- ]+?)'s name (?:is|was|will be) (?P<v>.+)$", pred)
    if m:
        return f"name_of:{m.group('owner').strip()}", True, strip_value(m.group("v"))
    m = re.match(r"^my (?P<owner>[\w\- ]+?) (?:is|was) (?:called|named) (?P<v>.+)$", pred)
    if m:
        return f"name_of:{m.group('owner').strip()}", True, strip_value(m.group("v"))
    m = re.match(
        r"^my (?:new |current |usual )?(?P<attr>favou?rite [\w\- ]+?|[\w\- ]+?) (?:is|are|was|were|will be) (?P<v>.+)$",
        pred,
    )
    if m:
        attr = _attribute(m.group("attr"))
        head = attr.split()[-1]
        # "my new GP is ...": a new one of a thing one has one of replaces the old one
        renewed = pred.split()[1:2] in (["new"], ["usual"]) and head not in SEVERAL_MY
        exclusive = attr.startswith("favorite") or head in EXCLUSIVE_MY or renewed
        return f"my:{attr}", exclusive, strip_value(m.group("v"))
    return None


def generic_relation(pred: str) -> tuple[str, bool, str]:
    """``do:<verb>[ <preposition>]`` with the rest as the value: "play tennis" -> do:play tennis;
    a verb alone is its own value ("smoke")."""
    verb, _, tail = pred.partition(" ")
    if verb in DETERMINERS or verb in NOT_A_VERB or not verb.isalpha():
        return "", False, ""
    key = stem(verb)
    if not tail:
        return f"do:{key}", False, key
    prep, _, after = tail.partition(" ")
    if prep in PREPOSITIONS and after:
        return f"do:{key} {prep}", False, strip_value(after)
    return f"do:{key}", False, strip_value(tail)
