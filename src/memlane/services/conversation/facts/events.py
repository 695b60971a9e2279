"""Facts a clause implies without stating them: a life event ends a state ("after the divorce"
ends a marriage, "since we lost Mochi" ends having the cat), a mention names a slot ("my new
manager at Wealthsimple" says where the person works), and "got a new car" says the car is
another one.

People rarely restate the old fact when it changes; they mention the event, or a detail that
only fits the new state. Each rule here maps such an event or detail to the attribute it sets
or ends (who, which attribute, which value), so ``relate`` can compare it with what a note
holds like any stated fact. The rules are kept narrow on purpose: every one names an attribute
that holds one value at a time (a marriage, an employer, a student status) or a named being,
so facts that only add (a second pet, another trip) never match them.
"""

from __future__ import annotations

import re

from memlane.services.conversation.facts.lexicon import OCCUPATIONS, THING_ATTRIBUTES
from memlane.services.conversation.facts.model import SELF, Fact
from memlane.services.conversation.facts.normalise import strip_value

#: events that set an exclusive attribute of the speaker: (pattern over the clause, relation,
#: value). "ex-", "former" or "late" before the word speaks of the past, not of an event now.
_LIFE_EVENTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\b(?:the|my|our) divorce\b|\b(?:got|am|are|be|been|were|was|getting) divorced\b"),
     "relationship", "divorced"),
    (re.compile(r"\b(?:the|my|our) (?:break-?up|separation)\b|\b(?:we|i) split\b(?! (?:the|a|it|our|my)\b)"),
     "relationship", "single"),
    (re.compile(r"\b(?:i|we) (?:was|were|got|have been|had been) (?:laid off|let go|made redundant|fired|sacked)\b"
                r"|\b(?:i|we) (?:\w+ )?lost (?:my|our) job\b|\b(?:am|are) (?:unemployed|between jobs|out of work)\b"),
     "employer", "none"),
    (re.compile(r"\b(?:i|we) (?:changed|switched|moved) jobs\b|\b(?:i|we) (?:got|started|have|found) a new job\b"
                r"|\bmy new job\b"),
     "employer", "new job"),
    (re.compile(r"\b(?:i|we) (?:am|are) (?:back at work|back at the \w+(?: \w+)?|back to work)\b"
                r"|\b(?:i|we) (?:went|have gone|got) back to work\b|\bback at work\b"),
     "occupation", "working"),
)  # fmt: skip

#: an occupation a person held until an event ended it: (pattern, the occupation's word)
_ENDED_OCCUPATION: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:i|we) (?:graduated|have graduated|finished (?:my|the) (?:degree|studies|course))\b"
                r"|\bsince (?:i|we) graduated\b|\bafter graduat(?:ing|ion)\b|\bmy graduation\b"), "student"),
)  # fmt: skip

#: a person who works somewhere has these at work; "my new manager at Wealthsimple" says where
_WORK_ROLES = (
    r"manager|boss|team|team lead|supervisor|colleagues?|co-?workers?|office|desk|job|role|position|employer|"
    r"line manager|department|workplace|contract|shift|shifts|onboarding|first (?:day|week|shift)"
)
_WORKPLACE = re.compile(
    r"(?<!lost )(?<!left )(?<!quit )(?<!leave )(?<!lose )"
    rf"\bmy (?:new |current )?(?:{_WORK_ROLES}) (?:at|with) (?P<org>[a-z][\w&'\-]*(?: [a-z][\w&'\-]*){{0,3}})"
)
#: "our new flat in Leith", "since the move to Glasgow": where the person lives now
_NEW_HOME = re.compile(
    r"\b(?:(?:my|our) new (?:flat|apartment|house|home|place|neighbou?rhood)|(?:the|my|our) (?:move|relocation) to)"
    r"(?: (?:in|to|at))? (?P<place>[a-z][\w'\-]*(?: [a-z][\w'\-]*){0,2})"
)
#: "my first night shift as a registered nurse": the occupation the person works as now
_WORKING_AS = re.compile(
    rf"\bmy (?:new |first |current )?(?:[\w\-]+ )?(?:{_WORK_ROLES}|day|week|night|year) as (?:a |an )?"
    rf"(?P<occ>(?:[\w\-]+ )?(?:{'|'.join(sorted(OCCUPATIONS))}))\b(?: (?:at|with) (?P<org>[a-z][\w&'\- ]+))?"
)
#: "I'm a sous-chef at an Italian place": the occupation says where the person works too
_PAID = "|".join(sorted(OCCUPATIONS - {"student", "intern"}))
_OCCUPATION_AT = re.compile(
    rf"^(?:i|we) (?:am|work as) (?:a |an )?(?:[\w\-]+ ){{0,3}}?(?:[\w]+-)?(?:{_PAID}) "
    rf"(?:at|for|with) (?P<org>[\w&'\- ]+)"
)
#: a named pet the person has ("our old cat Mochi"); a second pet adds, so not exclusive
_PET = re.compile(
    r"\b(?:my|our) (?:\w+ )?(?:cat|dog|kitten|puppy|rabbit|bunny|hamster|parrot|budgie|horse|pony|tortoise|"
    r"turtle|guinea pig|ferret|snake|lizard|gecko|goldfish|fish|pet|greyhound|labrador|terrier|spaniel|collie|"
    r"poodle|retriever) (?:called |named )?(?P<name>[a-z][\w'\-]*)"
)
#: a being that died: "we lost Mochi", "Mochi passed away", "we had to put Rex down"
_DEATH = re.compile(
    r"\b(?:lost|losing|buried|mourning) (?P<a>[a-z][\w'\-]*)\b(?! to\b)"
    r"|\b(?P<b>[a-z][\w'\-]*) (?:passed away|passed on|died|is gone|was put down|crossed the rainbow bridge)\b"
    r"|\bput (?P<c>[a-z][\w'\-]*) down\b"
)
#: "got a new car, a used Kia Niro", "bought a new phone": the thing is another one now
_NEW_THING = re.compile(
    r"^(?:(?:i|we) )?(?:just |finally )?(?:got|get|bought|buy|picked up|have|has|treated (?:myself|ourselves) to|"
    r"upgraded to|replaced (?:it|my \w+) with|found|go to|see|use|am with|are with|signed up with|registered with|"
    r"switched to|moved to|started at) (?:myself |ourselves )?(?:a |an |my |our )?(?:brand[- ]new|new) "
    r"(?P<noun>[a-z]+)\b(?P<tail>.*)$"
)


def implied_facts(clause: str, proper: frozenset[str]) -> list[Fact]:
    """The facts a clause implies about the speaker (see the module's docstring); ``proper`` are
    the sentence's capitalised words, which a name must be one of."""
    if re.search(r"\b(?:ex|former|late|previous|old)[- ](?:husband|wife|job|boss|manager|partner)\b", clause):
        return []
    out = [Fact(SELF, relation, value, exclusive=True, change=True)
           for pattern, relation, value in _LIFE_EVENTS if pattern.search(clause)]  # fmt: skip
    out += [Fact(SELF, "occupation", occupation, negated=True, change=True)
            for pattern, occupation in _ENDED_OCCUPATION if pattern.search(clause)]  # fmt: skip
    m = _OCCUPATION_AT.search(clause)
    if m and strip_value(m.group("org")):
        out.append(Fact(SELF, "employer", strip_value(m.group("org")), exclusive=True))
    m = _NEW_HOME.search(clause)
    if m and _named(m.group("place"), proper):
        out.append(Fact(SELF, "residence", _named(m.group("place"), proper), exclusive=True, specific=True))
    m = _WORKPLACE.search(clause)
    if m and _named(m.group("org"), proper):
        out.append(Fact(SELF, "employer", _named(m.group("org"), proper), exclusive=True, specific=True))
    m = _WORKING_AS.search(clause)
    if m:
        out.append(Fact(SELF, "occupation", strip_value(m.group("occ")), exclusive=True))
        if m.group("org") and _named(m.group("org"), proper):
            out.append(Fact(SELF, "employer", _named(m.group("org"), proper), exclusive=True, specific=True))
    for pm in _PET.finditer(clause):
        if pm.group("name") in proper:
            out.append(Fact(SELF, "pet", pm.group("name"), specific=True))
    dm = _DEATH.search(clause)
    name = dm and (dm.group("a") or dm.group("b") or dm.group("c"))
    if name and name in proper:
        out.append(Fact(SELF, "stop", name, negated=True, change=True, specific=True))
    return out


def new_thing(rest: str, subject: str) -> Fact | None:
    """ "got a new car, a used Kia Niro": ``has:car`` with the new one as the value, which
    replaces what a note says the person's car is (``THING_ATTRIBUTES``)."""
    m = _NEW_THING.match(rest)
    if m is None or m.group("noun") not in THING_ATTRIBUTES:
        return None
    tail = m.group("tail")
    appositive = re.search(r",\s*(?:a |an |the )?(?P<v>[^,]+)", tail)
    value = strip_value(appositive.group("v")) if appositive else ""
    return Fact(subject, f"has:{m.group('noun')}", value or "new " + m.group("noun"), exclusive=True, change=True)


def _named(raw: str, proper: frozenset[str]) -> str:
    """The leading capitalised words of ``raw`` ("wealthsimple actually does" -> "wealthsimple"),
    or "" when it does not start with a name."""
    words: list[str] = []
    for w in re.sub(r"^(?:the|a|an) ", "", raw).split():
        if w not in proper:
            break
        words.append(w)
    return " ".join(words)
