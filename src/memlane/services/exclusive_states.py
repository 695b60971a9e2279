"""States that exclude each other: the knowledge an implied change needs (issue #27).

"Little Rosa is three weeks old" says nothing about "We're expecting our first baby", in words:
no negation, no shared value, no "now" or "switched". It ends it because a person is in one
state of an *attribute* at a time: expecting, then a parent; single, engaged, married, divorced;
a student, a trainee, qualified. An embedder puts such notes near each other but cannot tell a
change from an addition ("my husband" beside "my sister"), and a list of sentences does not
generalise. So what a note states is read in a comparable form (who, which attribute, which
state), and two notes of the same subject with different states of one attribute disagree.

The vocabulary is data (:data:`ATTRIBUTES`): per attribute, its states in the order life moves
through them, each a class of word forms (regular expressions over lemma variants, not
sentences). An attribute is

* **exclusive**: any other state replaces the old one (relationship, employment, diet, a diet
  plan, alcohol, pets, living arrangement, commute, a car's fuel), or
* **ordered**: only a later state replaces an earlier one (expecting → born; studying →
  training → qualified; junior → senior → head; working → retired; taking a course →
  finished it, which also needs a topic word both share). "We're expecting our second" beside
  "Rosa is three weeks old" is an addition, not a change back.

Word forms are narrow where a word has another sense: "single" only as someone's status (not
"every single day"), an age in weeks only beside no pet or thing, a pet only owned or adopted.

A state can also end without a new one: a negated mention ("not vegan", "came off keto", "gave
up meat", "ex-smoker") is the state's negation, which ends only that state. A mention in the
past ("when I was a student", "used to be vegan", "my ex-husband") or planned ("getting married
in June") states nothing now and is ignored, as is one in a later sentence that says it adds
("also", "another", "second"), and one of the earlier note in a clause told in the past (an
event, which stays true). Two
attribute kinds have values rather than states: a **school** named with a school word ("goes to
Hillside Elementary" → "started at Oakwood Academy"), and a **business that closed** ("Crumbs
shut its doors for good"), which ends every note that names it.

Subjects must agree (:func:`same_subject`): the possessed people of the two sentences ("my
sister", "Sam's daughter"), less the nouns that name the state itself ("my husband" says the
speaker is married), must be the same, and sentences about two named people ("Tom is vegan",
"Anna eats meat") never meet. Conservative by design: a missed change leaves a stale note (the
ranking still puts the later first), a false one closes a true note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from memlane.services.conversation import language as lang


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute of a person or thing and the states it can be in."""

    name: str
    #: (state, word forms) in the order life moves through them
    states: tuple[tuple[str, str], ...]
    #: only a later state replaces an earlier one
    ordered: bool = False
    #: nouns that name a state of this attribute, not whom a sentence is about ("my husband")
    own_nouns: frozenset[str] = frozenset()
    #: the two sentences must also share a content word: a person takes several courses at
    #: once, and "got a first aid certificate" does not end "taking a pottery class"
    same_topic: bool = False
    #: words that, anywhere in a sentence, say it is about something else ("the puppy is ten
    #: weeks old"): the attribute is not read there
    excludes: str = ""


#: whose, as a note says it: "my", "her", "the user's", "Sam's"
_WHOSE = r"(?:my|our|his|her|their|the user's|\w+'s)"

ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "relationship",
        (
            (
                "single",
                r"(?:am|is|are|i'm|being|still|happily|been|stay|staying|'m|'s|now|newly) single"
                r"|single (?:again|and|life|mum|mom|dad|parent)|unattached",
            ),
            (
                "dating",
                r"(?:girl|boy)friend|dating|seeing someone|together (?:for )?(?:\d+|a|a few|several|many|two|three"
                r"|four|five|six|seven|eight|nine|ten|\w+teen) (?:years?|months?)",
            ),
            (
                "engaged",
                rf"engaged|{_WHOSE} engagement|fianc[ée]e?|proposed to (?:me|him|her|them)|(?:he|she) proposed",
            ),
            (
                "married",
                r"married|marriage|husbands?|wife|wives|spouses?|newlyweds?|(?:since|after) (?:the|our|my) wedding",
            ),
            (
                "divorced",
                r"divorced?|divorcing|(?:are|is|got|we|they|recently|just|now) separated|separated from"
                r"|ex-(?:husband|wife|partner)",
            ),
            ("widowed", rf"widow(?:ed|er)?|lost {_WHOSE} (?:husband|wife)"),
        ),
        own_nouns=lang.wordset("husband wife girlfriend boyfriend fiance fiancé fiancee fiancée spouse partner ex"),
    ),
    Attribute(
        "parenthood",
        (
            (
                "expecting",
                r"expecting (?:a|our|my|their|his|her) (?:first |second |third )?(?:baby|child|kid|girl|boy|twins)"
                r"|(?:we're|we are|she's|she is|they're|they are) expecting(?= ?[.,!;]|$| in | again)"
                r"|pregnant|pregnancy|(?:baby is|baby's|she's|she is|i'm|i am) due (?:in|on)|due date|baby on the way"
                r"|(?:baby|my|her) bump|trimester",
            ),
            (
                "born",
                r"(?:baby|daughter|son|twins?|girl|boy|little one|she|he|they) (?:was |were |has been |have been )born"
                r"|(?:was|were) born (?:on|last|yesterday|this|early|weighing|at home|in hospital|at \d)"
                r"|newborn|(?:\w+ )(?:days?|weeks?|months?) old|gave birth|maternity leave|paternity leave"
                r"|(?:baby|daughter|son|twins?|girl|boy|little one)(?: [A-Z][\w-]*)? (?:has |have )?arrived",
            ),
        ),
        ordered=True,
        own_nouns=lang.wordset("baby daughter son girl boy bump little one"),
        # a puppy, a car or a business can be "ten weeks old" too
        excludes=r"dogs?|cats?|pupp(?:y|ies)|kittens?|pups?|foals?|lambs?|cars?|vans?|laptops?|phones?|house|flat"
        r"|bikes?|plants?|business|company|relationship|job|account|tattoo",
    ),
    Attribute(
        "training",
        (
            (
                "studying",
                rf"(?:a|an) (?:\w+ )?student|student (?:at|nurse|doctor|teacher)|studying (?:for|at|to|law|medicine"
                rf"|nursing)|(?:doing|studying for|year of) (?:a|an|{_WHOSE}) (?:\w+ ){{0,2}}degree|undergrad(?:uate)?"
                r"|final year (?:of|at)|(?:first|second|third) year at (?:uni|university|college)|at (?:uni|university)"
                r"|doing a (?:\w+ )?(?:masters|phd|diploma)",
            ),
            ("training", r"apprentices?|apprenticeship|trainee|training to be|junior doctor"),
            (
                "qualified",
                r"qualif(?:ied|ying)|graduated|graduating|passed (?:my|his|her|their|the) (?:final|finals)"
                r"|fully qualified|newly qualified|(?:first|second) (?:day|week|month) as",
            ),
        ),
        ordered=True,
    ),
    Attribute(
        "seniority",
        (
            ("junior", r"junior|intern|internship|entry[- ]level|graduate (?:scheme|role|job)"),
            ("senior", r"senior|mid[- ]level"),
            (
                "lead",
                r"(?:team|tech|design|engineering) lead|lead (?:\w+er|\w+or|\w+ist)"
                r"|principal (?:engineer|designer|developer|consultant|scientist)",
            ),
            ("head", r"head of|director|vice president|partner at"),
        ),
        ordered=True,
    ),
    Attribute(
        "work",
        (
            (
                "working",
                r"works? (?:as|at|for|in)|working (?:as|at|for)|job (?:as|at)|teach(?:es|ing)?|employed|races|racing"
                r"|on the (?:early|late|night) shift",
            ),
            (
                "retired",
                rf"retired|(?:since|in|enjoying|into) (?:{_WHOSE} )?retirement|pensioner|drawing {_WHOSE} pension",
            ),
        ),
        ordered=True,
    ),
    Attribute(
        "diet",
        (
            (
                "omnivore",
                r"(?:eats?|eating|ate|devour(?:s|ing|ed)?|tucking into) (?:[\w'\u2019]+ ){0,3}(?:meat|chicken|beef|pork"
                r"|lamb|bacon|steak|burgers?|sausages?|ham)|meat[- ]eater|carnivore|loves? (?:a good )?steak",
            ),
            ("pescatarian", r"pescatarian|pescetarian|eats? fish|eating fish"),
            ("vegetarian", r"vegetarian|veggie|(?:gave|given|giving) up meat|off meat"),
            ("vegan", r"vegan|plant[- ]based"),
        ),
    ),
    Attribute("diet plan", (("keto", r"keto|ketogenic|low[- ]carb"), ("paleo", r"paleo"))),
    Attribute(
        "pets",
        (
            ("none", r"no pets?|no animals|pet[- ]free|(?:don't|do not|doesn't) have (?:any )?(?:pets?|animals)"),
            (
                "some",
                r"(?:(?:our|my|his|her|their|the user's|(?-i:[A-Z])\w*'s)"
                r"|(?:adopted|got|have|has|bought|rescued|took in) (?:a|an|two|three|another))"
                r" (?:\w+ )?(?:dog|cat|puppy|kitten|rabbit|hamster|guinea pig|greyhound"
                r"|labrador|spaniel|terrier|parrot|budgie|tortoise|lurcher|whippet|collie)s?|adopted a \w+",
            ),
        ),
        own_nouns=lang.wordset(
            "dog cat puppy kitten rabbit hamster greyhound labrador spaniel terrier parrot budgie tortoise lurcher "
            "whippet collie pet pets"
        ),
    ),
    Attribute(
        "living",
        (
            (
                "shared",
                r"shares? (?:a |the )?(?:flat|house|place)|flat ?share|house ?share|flat ?mates?|house ?mates?"
                r"|room ?mates?|lives? with (?:\w+ )?friends",
            ),
            (
                "alone",
                rf"(?:live|lives|living) (?:on {_WHOSE} own|alone|by (?:my|him|her|them)sel(?:f|ves)|solo)"
                r"|(?:his|her|their) own (?:flat|place|home)\b",
            ),
            (
                "with partner",
                rf"(?:live|lives|living|moved in) (?:together|with {_WHOSE} (?:partner|boyfriend|girlfriend"
                r"|husband|wife|fianc[ée]e?))",
            ),
            (
                "with parents",
                rf"(?:live|lives|living|moved back) (?:at home|in with|with) (?:{_WHOSE} )?(?:parents|mum|dad|mom)"
                r"|(?:live|lives|living) at home with (?:us|me)\b",
            ),
        ),
        own_nouns=lang.wordset(
            "flatmate flatmates housemate housemates roommate roommates friends partner boyfriend girlfriend husband "
            "wife fiance fiancé fiancee fiancée parents mum dad mom"
        ),
    ),
    Attribute(
        "employment",
        (
            (
                "employed",
                r"works? (?:as|at|for)|working (?:as|at|for)|(?:new |full[- ]time |part[- ]time )?job (?:as|at)",
            ),
            (
                "unemployed",
                rf"unemployed|out of work|between jobs|job[- ]hunting|looking for (?:a )?work|lost {_WHOSE} job"
                r"|(?:was |were |got |been )?(?:made redundant|laid off)|on the dole",
            ),
        ),
    ),
    Attribute(
        "alcohol",
        (
            (
                "drinks",
                r"(?:glass|glasses|bottle|bottles) of (?:\w+ )?(?:wine|beer|prosecco|whisky|gin)|pints?"
                r"|drinks? (?:wine|beer|alcohol|most nights|every night)|a drink (?:most|every)",
            ),
            (
                "sober",
                r"sober|sobriety|teetotal|tee-total|t-total|(?:days?|weeks?|months?|years?) dry"
                r"|off the (?:booze|drink)",
            ),
        ),
    ),
    Attribute(
        "commute",
        (
            (
                "cycling",
                r"commut\w* (?:on|by) (?:[\w'\u2019]+ ){0,3}(?:bike|bicycle)"
                r"|(?:cycles?|cycling|bikes?|biking) (?:in|to work|to the office)",
            ),
            (
                "public transport",
                r"(?:get|gets|getting|take|takes|taking|catch|catches|catching|on) the (?:[\w-]+ )?"
                r"(?:tram|bus|train|tube|metro) (?:in|to work|to the office|into work|into town)"
                r"|commut\w* (?:on|by) (?:the )?(?:tram|bus|train|tube|metro)",
            ),
            ("driving", r"(?:drives?|driving) (?:in|to work|to the office|into work)|commut\w* by car"),
            ("walking", r"(?:walks?|walking) (?:in|to work|to the office|into work)|commut\w* on foot"),
        ),
    ),
    Attribute(
        "course",
        (
            (
                "taking",
                r"(?:taking|doing|enrolled (?:in|on)|signed up (?:for|to)) (?:a|an|the) (?:\w+ ){0,3}"
                r"(?:class|classes|course|lessons)",
            ),
            (
                "finished",
                rf"(?:got|received|passed|earned) {_WHOSE} (?:\w+ )?(?:certificate|diploma)|(?:finished|completed)"
                r" (?:the|my|his|her) (?:\w+ ){0,2}(?:class|classes|course|lessons)|last (?:session|class|lesson)",
            ),
        ),
        ordered=True,
        same_topic=True,
    ),
    Attribute(
        "car fuel",
        (
            ("petrol", r"petrol|diesel|unleaded|fill(?:s|ing|ed)? up (?:the|my|his|her) (?:car|van|(?-i:[A-Z])\w+)"
                r"|fill(?:s|ing|ed)? (?:it|her) up (?:at|with|every)|filling station"),
            (
                "electric",
                r"electric (?:car|van|vehicle|(?-i:[A-Z]\w*))|(?-i:EVs?)|charg(?:e|es|ing) (?:it|the car)|charger"
                r"|charging point",
            ),
        ),
    ),
)  # fmt: skip

#: a school, college or university named with its kind ("Hillside Elementary", "Oakwood Academy")
_SCHOOL = re.compile(
    r"\b(?P<name>(?:[A-Z][\w'\u2019-]*\s+){1,3}(?:School|Academy|Primary|Elementary|High|College|Nursery|Prep|Grammar"
    r"|Infants|Juniors|University))\b"
)
#: a named business that closed for good
_CLOSED = re.compile(
    r"\b(?P<name>[A-Z][\w'\u2019&-]*(?:\s+[A-Z][\w'\u2019&-]*)*)\s+(?:has\s+|have\s+|had\s+|is\s+|are\s+)?"
    r"(?:shut (?:its|their) doors|shut down|closed down|closed for good|closed (?:its|their) doors|went bust"
    r"|went under|went out of business|gone out of business|gone bust|is closing down|has closed|closed)",
)
_CLOSED_HOW = re.compile(r"for good|down|doors|bust|under|out of business|permanently|has closed|have closed", re.I)
#: words before a mention that negate the state it names ("not vegan", "came off keto")
_NEGATORS = re.compile(
    r"(?:\b(?:not|no|no longer|never|without|off|quit|quitting|gave up|given up|giving up|stopped|stop|ex|anti)\b"
    r"|n't)(?:\s+[\w'-]+){0,2}\s*$",
    re.IGNORECASE,
)
#: words before a mention that put it in the past ("when I was a student", "used to be vegan")
_PAST = re.compile(
    r"\b(?:was|were|used to|had been|former|formerly|back when|before)\b[\w\s',-]{0,24}$",
    re.IGNORECASE,
)
#: words before a mention that make it a plan ("getting married in June", "hoping to retire")
_FUTURE = re.compile(
    r"\b(?:getting|get|to be|will be|'ll be|going to|gonna|planning to|plan to|want to|wants to|hope to|hoping to"
    r"|would like to|thinking of|thinking about|might|may)\b[\w\s'-]{0,12}$",
    re.IGNORECASE,
)
#: a sentence that adds to what is known ("also adopted", "another", "a second")
_ADDS = re.compile(r"\b(?:also|too|as well|another|besides|in addition|second|third)\b", re.IGNORECASE)
#: people and animals a sentence may be about when someone's ("my sister", "Sam's daughter")
_PEOPLE = lang.wordset(
    "sister brother mum mom mother dad father parents son daughter kid kids child children cousin aunt uncle niece "
    "nephew grandma gran granny nan grandad granddad grandpa grandmother grandfather friend friends colleague "
    "colleagues boss manager neighbour neighbor neighbours flatmate housemate roommate husband wife partner "
    "boyfriend girlfriend fiance fiancé fiancee fiancée spouse baby ex dog cat puppy kitten rabbit greyhound pet "
    "student students team"
)
_POSSESSED = re.compile(
    r"\b(?:my|our|his|her|their|[A-Za-z][\w-]*['\u2019]s)\s+(?P<a>[a-z][\w-]*)(?:\s+(?P<b>(?-i:[a-z])[\w-]*))?",
    re.IGNORECASE,
)
_OPENING_NAME = re.compile(r"^(?:Little\s+|Our\s+\w+\s+|My\s+\w+\s+)?(?P<name>[A-Z][a-z][\w-]*)(?:['\u2019]s)?\s+")
_POSSESSOR_NAME = re.compile(r"\b(?P<name>[A-Z][a-z][\w-]*)['\u2019]s\b")
_NOT_NAMES = lang.wordset(
    "the this that these those there here it we they he she you go yes no well oh so thanks sorry good great "
    "also now then just still finally turns anyway actually apparently luckily sadly maybe since living married "
    "little our my from after ever passed first done"
)


@cache
def _pattern(words: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Mention:
    """A state a sentence says someone is in now; ``negated``: it says they are not."""

    attribute: str
    state: str
    negated: bool


def mentions(sentence: str, *, adding: bool = False, present: bool = False) -> list[Mention]:
    """:func:`_mentions`, remembered per sentence: ingestion asks it of every earlier note's
    sentences and of the new note once per candidate, and a pass of every attribute's patterns
    was a quarter of the server's time per message (BENCHMARKS.md, "Conversation ingestion")."""
    return list(_mentions(sentence, adding, present))


@lru_cache(maxsize=4096)
def _mentions(sentence: str, adding: bool, present: bool) -> tuple[Mention, ...]:
    """The states a sentence says are true now, negated or not; with ``adding``, none when it
    says it adds (what a later sentence that only adds cannot end); with ``present``, none in a
    clause told in the past ("John's girlfriend and John had a lovely wedding last week": an
    event, which stays true, unlike a state a later note can end). A later note may tell its
    state by an event ("was made redundant"), so only the earlier note's are asked for it."""
    if adding and _ADDS.search(sentence):
        return ()
    out: list[Mention] = []
    for attribute in ATTRIBUTES:
        if attribute.excludes and _pattern(attribute.excludes).search(sentence):
            continue
        for state, words in attribute.states:
            for m in _pattern(words).finditer(sentence):
                before = sentence[: m.start()]
                if _PAST.search(before) or _FUTURE.search(before) or m.group(0).lower().startswith("ex-"):
                    continue
                if present and _told_in_the_past(sentence, m.start(), m.end()):
                    continue
                negated = bool(_NEGATORS.search(before)) and not m.group(0).lower().startswith("no ")
                out.append(Mention(attribute.name, state, negated))
    return tuple(out)


#: a verb in the past tense, and words that put a clause in the present (as in
#: services/ranking/succession.py, with the contracted forms: "he's", "we've")
_PAST_VERB = re.compile(
    r"\b(?:was|were|had|did|went|got|made|took|saw|came|gave|found|told|said|met|won|lost|bought|sold|ran|began"
    r"|felt|thought|wrote|left|kept|spent|brought|heard"
    r"|(?!(?:called|named|based|located|aged|used|allowed|married|engaged|retired|qualified|divorced|separated"
    r"|widowed|employed|unemployed|tired|interested|excited|obsessed|bored|pleased|supposed|related|involved"
    r"|attached|unattached|dedicated|shared|need|seed|feed|speed|bed|red|shed)\b)\w{2,}ed)\b",
    re.IGNORECASE,
)
_PRESENT_WORD = re.compile(
    r"\b(?:is|are|am|has|have|does|do|can|now|currently|nowadays|still)\b"
    r"|\b(?:he|she|it|that|there|who|what|here)['\u2019]s\b|['\u2019](?:re|m|ve)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;:.!?]|\b(?:but|while|whereas|although)\b", re.IGNORECASE)


def _told_in_the_past(sentence: str, start: int, end: int) -> bool:
    """Whether the clause around a mention (less the mention, whose own word may end in "-ed":
    "married", "retired") has a verb in the past tense and none in the present; participles
    that describe a present state ("a rabbit called Biscuit", "based in Leeds") are no past."""
    left = max((m.end() for m in _CLAUSE_END.finditer(sentence, 0, start)), default=0)
    after = _CLAUSE_END.search(sentence, end)
    clause = sentence[left:start] + " " + sentence[end : after.start() if after else len(sentence)]
    return bool(_PAST_VERB.search(clause)) and not _PRESENT_WORD.search(clause)


def _rank(attribute: Attribute, state: str) -> int:
    return next(i for i, (s, _) in enumerate(attribute.states) if s == state)


def _changed(attribute: Attribute, old: list[Mention], new: list[Mention]) -> bool:
    """Whether the new mentions of one attribute replace the old ones: a state the old sentence
    is in is negated by the new one, or the new one is in a state the old is not (a later one
    when the attribute is ordered) and no longer says the old state."""
    old_on = {m.state for m in old if not m.negated}
    new_on = {m.state for m in new if not m.negated}
    new_off = {m.state for m in new if m.negated}
    if not old_on or old_on & new_on:
        return False
    if old_on & new_off:
        return True
    fresh = new_on - old_on
    if not fresh:
        return False
    if attribute.ordered:
        return max(_rank(attribute, s) for s in fresh) > max(_rank(attribute, s) for s in old_on)
    return True


#: a possessive after a person, and what they own ("dad's lamb stew", "sister's husband")
_OWNS = re.compile(r"['\u2019]s\s+(?P<first>[a-z][\w-]*)(?:\s+(?P<second>[a-z][\w-]*))?")


def _possessed(sentence: str, attribute: Attribute) -> frozenset[str]:
    """The people a sentence names as someone's ("my sister", "Sam's daughter"), less the
    nouns that name the attribute's state and people named only as owners of a thing."""
    found: set[str] = set()
    for m in _POSSESSED.finditer(sentence):
        if re.match(r"\s+[A-Z]", sentence[m.end() :]):
            continue  # "our greyhound Dash": about Dash, whom the names compare
        group = next((g for g in ("a", "b") if m.group(g) and m.group(g).lower() in _PEOPLE), None)
        if group is None or m.group(group).lower() in attribute.own_nouns:
            continue
        owned = _OWNS.match(sentence, m.end(group))
        if owned is not None and not {w.lower() for w in owned.group("first", "second") if w} & _PEOPLE:
            continue  # "his dad's lamb stew": about the stew's eater, not the dad
        found.add(m.group(group).lower())
    return frozenset(found)


def _names(sentence: str) -> frozenset[str]:
    names = {m.group("name").lower() for m in _POSSESSOR_NAME.finditer(sentence)}
    opening = _OPENING_NAME.match(sentence.strip())
    if opening is not None:
        names.add(opening.group("name").lower())
    return frozenset(n for n in names if n not in lang.STOPWORDS and n not in _NOT_NAMES)


def same_subject(old: str, new: str, attribute: Attribute | None = None) -> bool:
    """Whether two sentences may be about the same person or thing: the same possessed people
    ("my sister" is not "I"; "my husband" names a state of the speaker, not someone else), and
    not two different named people, neither mentioned by the other."""
    own = attribute or Attribute("", ())
    if _possessed(old, own) != _possessed(new, own):
        return False
    na, nb = _names(old), _names(new)
    if na and nb and not (na & nb):
        wa, wb = set(lang.words(old.lower())), set(lang.words(new.lower()))
        if not (na & wb) and not (nb & wa):
            return False
    return True


def _school_change(old: str, new: str) -> bool:
    a = {m.group("name") for m in _SCHOOL.finditer(old)}
    b = {m.group("name") for m in _SCHOOL.finditer(new)}
    return bool(a and b and not (a & b)) and same_subject(old, new)


def _closed(old: str, new: str) -> bool:
    for m in _CLOSED.finditer(new):
        name = m.group("name").strip()
        if name.split()[0].lower() in lang.STOPWORDS or not _CLOSED_HOW.search(new[m.start() :]):
            continue
        if re.search(rf"\b{re.escape(name)}\b", old) and not _CLOSED.search(old):
            return True
    return False


def exclusive_change(old: str, new: str) -> str | None:
    """The attribute whose state ``new`` (said later) changes from the one ``old`` states, of
    the same subject, or None: "single" → "my husband" is ``"relationship"``; "expecting" →
    "three weeks old" is ``"parenthood"``, not the other way round."""
    for old_sentence in lang.sentences(old) or [old]:
        before = mentions(old_sentence, present=True)
        if before:
            for new_sentence in lang.sentences(new) or [new]:
                why = _sentence_change(old_sentence, before, new_sentence, new)
                if why is not None:
                    return why
        if _closed(old_sentence, new):
            return "business closed"
        for new_sentence in lang.sentences(new) or [new]:
            if _school_change(old_sentence, new_sentence):
                return "school"
    return None


def _sentence_change(old: str, before: list[Mention], new: str, new_text: str) -> str | None:
    after = mentions(new, adding=True)
    for attribute in ATTRIBUTES:
        old_m = [m for m in before if m.attribute == attribute.name]
        new_m = [m for m in after if m.attribute == attribute.name]
        if old_m and new_m and _changed(attribute, old_m, new_m) and same_subject(old, new, attribute):
            if attribute.same_topic and not _same_topic(old, new_text):
                continue
            return attribute.name
    return None


#: words every note of one user shares, which say nothing of the topic
_NO_TOPIC = lang.wordset("user class classes course lessons session certificate diploma")


def _same_topic(old: str, new: str) -> bool:
    shared = set(lang.content_words(old)) & set(lang.content_words(new))
    return bool(shared - _NO_TOPIC)


def exclusive_either(a: str, b: str) -> str | None:
    """An exclusive state change between two texts in either order: what keeps them apart."""
    return exclusive_change(a, b) or exclusive_change(b, a)
