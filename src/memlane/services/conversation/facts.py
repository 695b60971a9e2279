"""What a sentence states, in a form the next message can be compared with: who it is about,
which relation, which value, and whether it is affirmed or denied.

The offline path has no model that understands language, only an embedder, and an embedder
cannot tell "allergic to peanuts" from "not allergic to peanuts" (cosine 0.9 and more). So the
conflict rules (conflicts.py) compare *facts*, as Zep invalidates edges and mem0 updates
memories with an LLM:

* the **subject** is the speaker (``self``) for first-person statements and for notes about the
  user, or the person a sentence names;
* the **relation** is the predicate reduced to a canonical key: ``residence``, ``employer``,
  ``diet``, ``allergy``, ``relationship``, ``age``, ``vehicle``, ``occupation``, ``like``,
  ``my:<attribute>`` for "my phone number is ...", ``name_of:<relative>``, or ``do:<verb>`` for
  any other verb ("plays tennis" is ``do:play`` with the value ``tennis``);
* some relations are **exclusive**: one value at a time (a person lives in one city, has one
  employer and one age), so a new value replaces the old. The others add: a second pet, another
  trip or a brother beside a sister never close each other;
* the **kind** says how the clause speaks of it: a statement, a plan, something that *used to*
  hold, or a clause that cancels a plan or corrects an earlier word.

The parser is rules over a normalised clause (contractions expanded, adverbs set aside, the
verb reduced to its lemma), deliberately small: what it does not understand it leaves as a
``do:`` fact or no fact at all, and conflicts.py then falls back to similarity rules that only
ever merge or skip, never close a note.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memlane.services.conversation import language as lang

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


# --- normalisation -----------------------------------------------------------------------

_CONTRACTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bwon't\b", "will not"),
        (r"\bcan't\b|\bcannot\b", "can not"),
        (r"\bain't\b", "is not"),
        (r"\bshan't\b", "shall not"),
        (r"n't\b", " not"),
        (r"'m\b", " am"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (r"'d\b", " would"),
        (r"\b(it|that|there|he|she|what|who|this|here)'s\b", r"\1 is"),
    )
]
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


def normalise(text: str) -> str:
    """Lower case, straight apostrophes, contractions expanded, spaces collapsed."""
    out = text.translate(_APOSTROPHES)
    for pattern, repl in _CONTRACTIONS:
        out = pattern.sub(repl, out)
    out = re.sub(r"[\u2013\u2014]", ",", out)
    return re.sub(r"\s+", " ", out).strip().lower()


#: words that only colour a clause; set aside before the verb is found
_ADVERBS = lang.wordset(
    """really also just actually currently still finally recently officially already usually always often
    sometimes mostly totally definitely basically honestly literally mainly generally normally probably
    seriously truly even ever only kinda sorta somewhat absolutely certainly now nowadays again then
    obviously apparently luckily sadly unfortunately fortunately happily completely entirely strictly fully
    totally"""
)
#: multi-word markers, recognised (and removed) before the clause is parsed
_CHANGE_PHRASES = re.compile(
    r"\b(?:these days|at the moment|right now|from now on|as of now|any ?more|no longer|not any ?longer|"
    r"after all|for now)\b"
)
_CHANGE_WORDS = frozenset({"now", "nowadays", "currently", "anymore", "longer"})
_NEGATION_WORDS = frozenset({"not", "never", "no"})
_FILLER_LEAD = re.compile(
    r"^(?:(?:oh|ah|well|so|and|but|also|actually|anyway|anyways|btw|by the way|ok|okay|yeah|yes|no|hey|hi|"
    r"hmm|um|update|quick update|fyi|guess what|good news|bad news|news|sorry|oops|correction|"
    r"just so you know|turns out|it turns out that|as it turns out|i think|i guess)\b\s*[,:!.-]?\s*)+"
)

# --- verbs -------------------------------------------------------------------------------

_IRREGULAR = {
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "has": "have", "had": "have", "having": "have", "does": "do", "did": "do", "done": "do", "doing": "do",
    "went": "go", "gone": "go", "goes": "go", "got": "get", "gotten": "get", "bought": "buy", "made": "make",
    "took": "take", "taken": "take", "left": "leave", "met": "meet", "ran": "run", "came": "come",
    "became": "become", "began": "begin", "begun": "begin", "brought": "bring", "thought": "think",
    "taught": "teach", "caught": "catch", "felt": "feel", "kept": "keep", "lost": "lose", "sold": "sell",
    "told": "tell", "won": "win", "wrote": "write", "written": "write", "drove": "drive", "driven": "drive",
    "ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink", "flew": "fly", "flown": "fly",
    "gave": "give", "given": "give", "saw": "see", "seen": "see", "knew": "know", "known": "know",
    "grew": "grow", "grown": "grow", "spent": "spend", "sent": "send", "built": "build", "found": "find",
    "heard": "hear", "held": "hold", "paid": "pay", "said": "say", "sat": "sit", "slept": "sleep",
    "spoke": "speak", "spoken": "speak", "stood": "stand", "swam": "swim", "wore": "wear", "worn": "wear",
    "quit": "quit", "put": "put", "set": "set", "cut": "cut", "hit": "hit", "let": "let", "read": "read",
    "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose", "fell": "fall",
    "fallen": "fall", "forgot": "forget", "forgotten": "forget", "rode": "ride", "ridden": "ride",
    "sang": "sing", "sung": "sing", "understood": "understand", "moving": "move", "living": "live",
    "lives": "live", "lived": "live", "dating": "date", "dated": "date", "loves": "love", "loved": "love",
    "hates": "hate", "hated": "hate", "likes": "like", "liked": "like", "uses": "use", "used": "use",
}  # fmt: skip
_DOUBLED = re.compile(r"([bdgklmnprt])\1$")
_KEEP_E = frozenset(
    {"live", "move", "love", "hate", "like", "use", "dance", "bake", "ride", "drive", "date", "share",
     "hike", "skate", "race", "serve", "believe", "relocate", "quite", "practice", "practise", "volunteer"}
)  # fmt: skip


def lemma(word: str) -> str:
    """A verb's base form, by a table of irregular verbs and suffix rules (good enough for the
    relations below; a wrong lemma only makes two clauses look different)."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            stem = w[: -len(suffix)]
            if _DOUBLED.search(stem) and stem[-2:] not in ("ll", "ss"):
                return stem[:-1]
            if stem.endswith("i") and suffix == "ed":
                return stem[:-1] + "y"
            if stem + "e" in _KEEP_E or (suffix == "ed" and stem.endswith(("at", "iv", "ov", "ur", "ag", "ik", "ac"))):
                return stem + "e"
            return stem
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return w


def stem(word: str) -> str:
    """One key for every form of a verb ("smoke", "smokes", "smoked", "smoking" -> "smok"):
    the lemma without a final ``e``. Keys of generic relations only need to agree."""
    base = lemma(word)
    return base[:-1] if base.endswith("e") and len(base) > 3 else base


_AUX = frozenset({"do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "might", "must"})
_PLAN_LEADS = re.compile(
    r"^(?:be going to|be gonna|gonna|be planning (?:on|to)|plan (?:on|to)|want to|wanna|hope to|intend to|"
    r"would like to|be thinking (?:of|about)|be about to|be hoping to|will|be scheduled to|be supposed to)\s+"
)
_STOP_LEADS = re.compile(r"^(?:stop|quit|give up|cut out|cut down on)\s+(?P<rest>\w+ing\b.*)$")
#: "I sold the Volvo", "I've moved on from The Bear", "no more coffee": what the person no
#: longer has, does or takes
_GIVE_UP = re.compile(
    r"^(?:sell|get rid of|give away|give up|move on from|be done with|be over|cut out|stop (?:going to|using|"
    r"taking|drinking|eating|seeing|watching|playing|doing)|stop|quit|drop|ditch|leave|cancel|no more)"
    r"\s+(?P<v>.+)$"
)
_START_LEADS = re.compile(r"^(?:start|begin|take up|pick up)\s+(?:to\s+)?(?P<rest>.+)$")
_PREPOSITIONS = frozenset(
    {"in", "at", "to", "for", "with", "on", "from", "into", "onto", "about", "of", "by", "as", "near", "over"}
)
_DETERMINERS = frozenset(
    {"a", "an", "the", "my", "our", "his", "her", "their", "your", "its", "this", "that", "these", "those", "some"}
)
_VALUE_STOP = re.compile(
    r"\s+(?:and|but|because|since|so|while|when|which|who|where|though|although|with|near|for|until|during|"
    r"i|we|you|he|she|they|it|to work|every|each|most|once|twice)\s+.*$|[,;:!].*$"
)
#: the clause says it adds to what was known, not that something changed
_ADDS = re.compile(r"\b(?:also|too|as well|another|second|third|more|additional|besides|both|plus|either)\b")
#: when something happened; set aside so "turned 35 last week" reads "turn 35"
_TIME = re.compile(
    r"\b(?:(?:last|this|next|every) (?:week|month|year|weekend|night|summer|spring|fall|autumn|winter|monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|yesterday|today|tonight|tomorrow|again|"
    r"(?:in|on|since|by|from) (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)(?: \d{1,2}(?:st|nd|rd|th)?)?(?:,? \d{4})?|(?:in|since) (?:19|20)\d{2}|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|\d+) (?:days?|weeks?|months?|"
    r"years?) ago|(?:a while|recently|lately|soon) ?(?:ago)?)\b"
)

# --- relations ---------------------------------------------------------------------------
_DIETS = "vegetarian|vegan|pescatarian|pescetarian|keto|carnivore|flexitarian|plant-based|paleo|gluten-free|dairy-free"
_RELATIONSHIP = "single|married|engaged|divorced|separated|widowed|in a relationship"
_EXCLUSIVE_MY = lang.wordset(
    """name number phone email address birthday age job title role salary goal deadline budget rent weight
    height size password username schedule major position boss manager landlord doctor dentist therapist
    coach team school university college company employer office commute car hometown city neighborhood
    neighbourhood zip postcode surname nickname pronouns timezone"""
)
PLAN_WORDS = lang.wordset(
    """trip vacation holiday wedding party visit flight plan plans concert tour move reunion appointment meeting
    interview surgery conference dinner celebration ceremony festival retreat camp cruise honeymoon date
    class course exam marathon race show game match expecting baby booked signed"""
)
#: words of a cancelled thing and how a plan may have named it ("the wedding is off" cancels
#: "we are getting married on 20 September")
CANCEL_SYNONYMS: dict[str, tuple[str, ...]] = {
    "wedding": ("married", "marry", "marriage", "wedding"),
    "trip": ("trip", "travel", "flight", "visit", "holiday", "vacation"),
    "vacation": ("trip", "travel", "holiday", "vacation"),
    "holiday": ("trip", "travel", "holiday", "vacation"),
    "party": ("party", "celebration", "celebrate"),
    "course": ("course", "class", "lesson", "classe"),
    "class": ("course", "class", "lesson", "classe"),
    "membership": ("member", "membership", "gym"),
    "move": ("move", "moving", "relocate"),
    "surgery": ("surgery", "operation"),
}
#: occupations a person "is" ("I'm a pharmacist at ...", "I'm a primary school teacher now")
_OCCUPATIONS = lang.wordset(
    """accountant actor actress analyst architect artist assistant attorney baker barista bartender biologist
    builder butcher carpenter cashier chef chemist cleaner clerk coach consultant cook counselor counsellor
    courier dancer dentist designer detective developer dietitian director doctor driver economist editor
    electrician engineer entrepreneur farmer firefighter freelancer gardener guide hairdresser historian
    illustrator instructor intern janitor journalist judge lawyer lecturer librarian lifeguard manager mechanic
    midwife model musician nanny nurse officer optician painter paramedic pharmacist photographer physician
    physicist physiotherapist pilot plumber poet policeman politician professor programmer psychiatrist
    psychologist realtor receptionist reporter researcher salesman scientist secretary singer soldier student
    surgeon tailor teacher technician therapist trainer translator tutor vet veterinarian waiter waitress
    welder writer retiree"""
)
_CANCEL = re.compile(
    r"\b(?:call(?:ed|ing)? off|cancel(?:l)?(?:ed|ing)?|(?:is|are|was|were|be) off|not happening|fell through|"
    r"scrap(?:ped)?|(?:be|is|are|was|were) (?:postponed|cancel(?:l)?ed|scrapped)|postpone(?:d)?|"
    r"put on hold|not going (?:to go )?after all|(?:will )?not be going|not go after all|"
    r"decided (?:not|against)|back(?:ed)? out|pull(?:ed)? out|drop(?:ped)? out|withdr[ae]w|call it off)\b"
)
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
    _rule("diet", True, rf"^(?:be|go|become|turn|eat) (?:a |an |fully |strictly )?(?P<v>{_DIETS})(?: now)?$"),
    _rule("diet", True, r"^(?P<v>eat meat|eat fish)$"),
    _rule("allergy", False, r"^be allergic to (?P<v>.+)$"),
    _rule("allergy", False, r"^have (?:a |an )?(?P<v>.+?) allergy$"),
    _rule("relationship", True, rf"^(?:be|get|become) (?P<v>{_RELATIONSHIP})(?: (?:to|with|on|in) .+)?$"),
    _rule("relationship", True, r"^(?:date|be seeing|be dating|be with|see) (?P<v>.+)$"),
    _rule("relationship", True, r"^(?P<v>break up|split up|separate|divorce)(?: .+)?$"),
    _rule("occupation", True, rf"^be (?:a |an )?(?:[\w\-]+ ){{0,3}}?(?P<v>{'|'.join(sorted(_OCCUPATIONS))})(?: .+)?$"),
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


@dataclass(slots=True)
class _Clause:
    subject: str
    pred: str
    negated: bool
    change: bool
    kind: str


def _strip_value(raw: str) -> str:
    """The value's own words: up to the next clause boundary, determiners dropped."""
    v = _VALUE_STOP.sub("", raw).strip(" .!?\"'")
    words = [w for w in v.split() if w not in _DETERMINERS and w not in _ADVERBS]
    while words and words[-1] in _PREPOSITIONS:
        words.pop()
    return " ".join(words)


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


# --- clause splitting ----------------------------------------------------------------------

_SPLIT = re.compile(
    r"\s*(?:;|,?\s+but\s+|,?\s+and\s+(?=(?:now|then|also|so|i|we|my|our)\b)|,?\s+so\s+(?=(?:now|i|we|my)\b)|"
    r"(?:^|,?\s+)(?:ever since|since|now that|because|after|as|so that)\s+(?=(?:i|we|my|our)\s)|"
    r",\s+(?=(?:now|i|we|my|our)\s)|,?\s+which means\s+|,\s+(?=[\w'\- ]+ (?:is|are) (?:now )?my ))"
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
_NOT_A_VERB = frozenset(
    {"the", "a", "an", "it", "this", "that", "these", "those", "he", "she", "they", "you", "there", "his", "her",
     "their", "your", "its", "what", "which", "who", "how", "when", "where", "why", "if", "to", "of", "in", "on"}
)  # fmt: skip


def clauses(sentence_norm: str) -> list[str]:
    out: list[str] = []
    for part in (p.strip(" ,.!?") for p in _SPLIT.split(sentence_norm)):
        m = _MAIN_AFTER_SUBORDINATE.match(part)
        out.extend([m.group("sub"), m.group("main")] if m else [part])
    return [p for p in out if p]


@dataclass(slots=True)
class _Subject:
    key: str
    rest: str
    change: bool


def _subject_of(
    clause: str, speaker_keys: frozenset[str], people: frozenset[str], previous: str | None
) -> _Subject | None:
    """Who a clause is about and the rest of it; a clause with no subject of its own ("... and
    now drive a Tesla") continues the previous clause's. None when we cannot name anyone."""
    if clause.startswith("no more "):
        return _Subject(SELF, clause, True)
    c = _FILLER_LEAD.sub("", clause)
    inverted = _INVERTED_FAVOURITE.match(c)
    if inverted:
        return _Subject(SELF, f"my {inverted.group('attr')} is {inverted.group('v')}", True)
    gerund = re.match(r"^(?:ever since|since|after|now that|since then)\s+(?P<g>\w+ing)\b(?P<rest>.*)$", c)
    if gerund:
        return _Subject(SELF, lemma(gerund.group("g")) + gerund.group("rest"), True)
    change = False
    lead = _CHANGE_LEAD.match(c)
    if lead:
        change, c = True, c[lead.end() :]
        c = _FILLER_LEAD.sub("", c)
    m = re.match(r"^(?:i|we)\s+(?P<rest>.+)$", c)
    if m:
        return _Subject(SELF, m.group("rest"), change)
    m = re.match(r"^(?:my|our)\s+(?P<rest>.+)$", c)
    if m:
        return _Subject(SELF, "my " + m.group("rest"), change)
    for key, subject in [(k, SELF) for k in sorted(speaker_keys, key=len, reverse=True)] + [
        (p, p) for p in sorted(people, key=len, reverse=True)
    ]:
        m = re.match(rf"^{re.escape(key)}(?P<poss>'s)?\s+(?P<rest>.+)$", c)
        if m:
            return _Subject(subject, ("my " if m.group("poss") else "") + m.group("rest"), change)
    first = c.split(" ", 1)[0]
    if previous is not None and first not in _NOT_A_VERB and first not in speaker_keys and first.isalpha():
        return _Subject(previous, c, change)
    return None


def _verb_phrase(rest: str, proper: frozenset[str]) -> _Clause:
    """Set aside negation, change markers, times and auxiliaries; reduce the verb to its lemma.
    ``proper`` are the sentence's capitalised words ("going to Japan" is a trip, not a plan to
    do something)."""
    change = bool(_CHANGE_PHRASES.search(rest))
    negated = bool(re.search(r"\b(?:no longer|not any ?longer)\b", rest))
    rest = re.split(r"[,;:!]", rest, maxsplit=1)[0]  # what follows a comma is another thought
    rest = _TIME.sub(" ", _CHANGE_PHRASES.sub(" ", rest))
    kind = STATEMENT
    words: list[str] = []
    for w in rest.split():
        if w in _NEGATION_WORDS and (not words or words[-1] in _AUX or lemma(words[-1]) in ("be", "have")):
            negated = True
            continue
        if w in _CHANGE_WORDS:
            change = True
            continue
        if w in _ADVERBS:
            continue
        words.append(w)
    text = " ".join(words)
    aux = re.match(r"^(?P<aux>do|does|did|will|would|can|could|should|shall|may|might|must|am|is|are|was|were|be|"
                   r"have|has|had) (?P<rest>.+)$", text)  # fmt: skip
    if aux and aux.group("aux") in ("will", "would", "shall"):
        kind, text = PLAN, aux.group("rest")
    elif aux and aux.group("aux") in ("do", "does", "did", "can", "could", "should", "may", "might", "must"):
        text = aux.group("rest")
    elif aux and aux.group("aux") in ("am", "is", "are", "was", "were"):
        text = "be " + aux.group("rest")
    m = re.match(r"^used to (?P<rest>.+)$", text)
    if m:
        kind, text, change = PAST, m.group("rest"), True
    m = _PLAN_LEADS.match(text)
    if m:
        after = text[m.end() :]
        nxt = after.split(" ", 1)[0]
        if m.group(0).rstrip().endswith("going to") and (nxt in _DETERMINERS or nxt in proper or not nxt.isalpha()):
            text = "go to " + after  # "going to Japan": a trip
        else:
            text = after
        kind = PLAN if kind == STATEMENT else kind
    first, _, tail = text.partition(" ")
    verb = lemma(first)
    if verb == "have" and tail:
        nxt, _, after = tail.partition(" ")
        if nxt == "been" and after:
            verb, tail = "be", after
        elif nxt.endswith("ed") or (nxt in _IRREGULAR and _IRREGULAR[nxt] not in ("be", "have")):
            verb, tail = lemma(nxt), after
    if verb == "be" and tail:
        nxt, _, after = tail.partition(" ")
        if nxt.endswith("ing") and len(nxt) > 4 and nxt not in ("something", "nothing", "thing", "everything"):
            verb, tail = lemma(nxt), after
    if verb == "get" and tail.startswith(("married", "engaged", "divorced", "separated")):
        verb = "be"
    if verb in ("move", "relocate", "switch", "change", "quit", "leave", "become", "turn", "start", "begin"):
        change = True
    return _Clause(subject="", pred=f"{verb} {tail}".strip(), negated=negated, change=change, kind=kind)


#: verbs of going somewhere: "I'm not going to Japan" calls the trip off
_GOING = frozenset({"do:go", "do:visit", "do:travel", "do:fly", "do:attend", "do:com", "do:driv", "do:head"})
#: values that name one state however they are worded
_CANONICAL_VALUES = {
    ("restriction", ""): "none", ("restriction", "anything"): "none", ("restriction", "everything"): "none",
    ("relationship", "break up"): "single", ("relationship", "split up"): "single",
    ("relationship", "separate"): "separated", ("relationship", "divorce"): "divorced",
    ("occupation", "retire"): "retired",
}  # fmt: skip


def _relation(pred: str) -> tuple[str, bool, str] | None:
    for rule in _RULES:
        m = rule.pattern.match(pred)
        if m:
            value = _strip_value(m.groupdict().get("v") or "")
            value = _CANONICAL_VALUES.get((rule.relation, value), value)
            if value:
                return rule.relation, rule.exclusive, value
    return None


#: one attribute however it is named ("my favourite series" is "my favourite show")
_ATTRIBUTE_SYNONYMS = {
    "series": "show", "tv show": "show", "programme": "show", "program": "show", "tv series": "show",
    "film": "movie", "colour": "color", "dish": "food", "meal": "food", "cuisine": "food", "novel": "book",
    "track": "song", "band": "music", "artist": "music", "singer": "music", "drink": "drink",
}  # fmt: skip


def _attribute(raw: str) -> str:
    attr = re.sub(r"^favourite", "favorite", raw.strip())
    if attr.startswith("favorite "):
        thing = attr.removeprefix("favorite ")
        return "favorite " + _ATTRIBUTE_SYNONYMS.get(thing, thing)
    return attr


def _possessive(pred: str) -> tuple[str, bool, str] | None:
    """ "my sister's name is jen", "my favorite food is sushi", "my phone number is 555"."""
    m = re.match(r"^my (?P<owner>[\w\- ]+?)'s name (?:is|was|will be) (?P<v>.+)$", pred)
    if m:
        return f"name_of:{m.group('owner').strip()}", True, _strip_value(m.group("v"))
    m = re.match(r"^my (?P<owner>[\w\- ]+?) (?:is|was) (?:called|named) (?P<v>.+)$", pred)
    if m:
        return f"name_of:{m.group('owner').strip()}", True, _strip_value(m.group("v"))
    m = re.match(
        r"^my (?:new |current |usual )?(?P<attr>favou?rite [\w\- ]+?|[\w\- ]+?) (?:is|are|was|were|will be) (?P<v>.+)$",
        pred,
    )
    if m:
        attr = _attribute(m.group("attr"))
        head = attr.split()[-1]
        exclusive = attr.startswith("favorite") or head in _EXCLUSIVE_MY or "usual" in pred.split()[1:2]
        return f"my:{attr}", exclusive, _strip_value(m.group("v"))
    return None


#: people whose mention says how a person lives ("my husband Carlos and I ...": married)
_IMPLIED = (
    (re.compile(r"\bmy (?:husband|wife|spouse)\b"), "relationship", "married"),
    (re.compile(r"\bmy (?:fiance|fiancee|fiancé|fiancée)\b"), "relationship", "engaged"),
    (re.compile(r"\bmy (?:boyfriend|girlfriend)\b"), "relationship", "dating"),
)
_INVERTED_FAVOURITE = re.compile(
    r"^(?P<v>.+?) (?:is|are) (?:now )?my (?:new )?(?P<attr>favou?rite [\w\- ]+?)(?: now)?$"
)


def parse(sentence: str, *, speaker_keys: Iterable[str] = (), known_people: Iterable[str] = ()) -> list[Fact]:
    """The facts of one sentence. ``speaker_keys`` are the lower-cased names the speaker goes by
    in third-person text ("priya", "the user"); ``known_people`` other names a clause may start
    with."""
    norm = normalise(sentence)
    if not norm or norm.endswith("?"):
        return []
    keys = frozenset(k.lower() for k in speaker_keys if k)
    people = frozenset(p.lower() for p in known_people if p) - keys
    tokens = lang.words(sentence.translate(_APOSTROPHES))
    proper = frozenset(t.lower() for t in tokens[1:] if t[:1].isupper() and t != "I") - keys
    facts = list(_corrections(norm))
    previous: str | None = None
    for clause in clauses(norm):
        for pattern, relation, value in _IMPLIED:
            if pattern.search(clause) and not re.search(r"\b(?:ex|former|late)[- ]", clause):
                facts.append(Fact(SELF, relation, value, exclusive=True))
        subject = _subject_of(clause, keys, people, previous)
        if subject is None:
            cancel = _cancellation(clause, SELF)
            if cancel is not None:
                facts.append(cancel)
            continue
        previous = subject.key
        fact = _clause_fact(subject, proper)
        if fact is not None:
            facts.append(fact)
    return _dedupe(facts)


def _clause_fact(subject: _Subject, proper: frozenset[str]) -> Fact | None:
    fact = _clause_fact_of(subject, proper)
    if fact is None:
        return None
    specific = bool(set(fact.value.split()) & proper)
    adds = _ADDS.search(subject.rest) is not None
    return replace(fact, specific=specific, adds=adds) if specific or adds else fact


def _clause_fact_of(subject: _Subject, proper: frozenset[str]) -> Fact | None:
    rest = subject.rest
    if _CANCEL.search(rest):
        return _cancellation(rest, subject.key)
    if rest.startswith("my "):
        return _possessive_fact(subject, rest)
    if rest.startswith("no more "):
        value = _strip_value(rest.removeprefix("no more "))
        return Fact(subject.key, "stop", value, negated=True, change=True) if value else None
    vp = _verb_phrase(rest, proper)
    change = vp.change or subject.change
    m = _STOP_LEADS.match(vp.pred)
    if m:
        inner = _verb_phrase(m.group("rest"), proper)
        relation, exclusive, value = _relation(inner.pred) or _generic(inner.pred)
        if not value:
            return None
        return Fact(subject.key, relation, value, negated=not vp.negated, exclusive=exclusive, change=True)
    m = _START_LEADS.match(vp.pred)
    if m and not vp.negated:
        inner = _verb_phrase(m.group("rest"), proper)
        vp = _Clause("", inner.pred, inner.negated, True, vp.kind)
    m = re.match(r"^switch (?:from (?P<old>.+?) )?to (?P<new>.+)$", vp.pred)
    if m:
        return Fact(subject.key, "switch", _strip_value(m.group("new")), exclusive=True, change=True,
                    old_value=_strip_value(m.group("old") or ""))  # fmt: skip
    m = re.match(
        r"^(?:leave|quit) (?:my job (?:at|with) |my position at |my role at |the )?(?P<v>[a-z][\w&'\- ]*)$", vp.pred
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
        value = _strip_value(m.group("v"))
        return Fact(subject.key, "employer", value, negated=True, exclusive=True, change=True)
    m = _GIVE_UP.match(vp.pred)
    if m and not vp.negated and vp.kind != PLAN:
        value = _strip_value(m.group("v"))
        return Fact(subject.key, "stop", value, negated=True, change=True) if value else None
    relation, exclusive, value = _relation(vp.pred) or _generic(vp.pred)
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
    if negated and relation.startswith("do:") and (
        (change and value_words(value) & PLAN_WORDS) or (kind == PLAN and _verb_key(relation) in _GOING)
    ):
        # "not going to Japan after all", "not doing the Paris trip anymore": a plan called off
        # ("won't quit", "will never forget" are not: only going somewhere or a planned thing)
        return Fact(subject.key, "cancel", " ".join(sorted(value_words(value))), kind=CANCEL, change=True)
    return Fact(subject.key, relation, value, negated=negated, exclusive=exclusive, kind=kind, change=change)


def _possessive_fact(subject: _Subject, rest: str) -> Fact | None:
    """A statement about something of the speaker's; times stay in it (a birthday's value is
    a date)."""
    body = _CHANGE_PHRASES.sub(" ", rest)
    change = subject.change or body != rest
    body = re.sub(r"\b(?:now|currently|actually|really|also|just|still)\b", " ", body)
    body = re.sub(r"\s+", " ", body).strip()
    negated = bool(re.search(r" (?:is|are|was|were) (?:not|no longer|never) ", body))
    body = re.sub(r" (is|are|was|were) (?:not|no longer|never) ", r" \1 ", body)
    found = _possessive(body)
    if found is None:
        return None
    relation, exclusive, value = found
    if not value:
        return None
    return Fact(subject.key, relation, value, negated=negated, exclusive=exclusive, change=change)


def _generic(pred: str) -> tuple[str, bool, str]:
    """``do:<verb>[ <preposition>]`` with the rest as the value: "play tennis" -> do:play tennis;
    a verb alone is its own value ("smoke")."""
    verb, _, tail = pred.partition(" ")
    if verb in _DETERMINERS or verb in _NOT_A_VERB or not verb.isalpha():
        return "", False, ""
    key = stem(verb)
    if not tail:
        return f"do:{key}", False, key
    prep, _, after = tail.partition(" ")
    if prep in _PREPOSITIONS and after:
        return f"do:{key} {prep}", False, _strip_value(after)
    return f"do:{key}", False, _strip_value(tail)


def _cancellation(clause: str, subject: str) -> Fact | None:
    m = _CANCEL.search(clause)
    if not m:
        return None
    words = [w for w in lang.content_words(_CANCEL.sub(" ", clause)) if w not in ("decided", "plan", "plans")]
    if not words:
        return None
    return Fact(subject, "cancel", " ".join(words), kind=CANCEL, change=True)


def _corrections(norm: str) -> list[Fact]:
    out = []
    for pattern in (_CORRECTION, _CORRECTION_BUT):
        m = pattern.search(norm)
        if m:
            raw_new = m.groupdict().get("new") or m.groupdict().get("new1") or m.groupdict().get("new2") or ""
            new = _strip_value(_CORRECTION_LEAD.sub("", raw_new.split(",")[-1].strip(), count=1))
            if not new or new.split()[-1] in _AUX or new.split()[-1] in ("am", "is", "are", "was", "were", "i"):
                continue
            if new.split()[0] in _PRONOUNS or len(new.split()) > 4:
                continue  # "not easy, but i am determined": a contrast, not a correction
            old = _strip_value(m.group("old"))
            new_words, old_words = new.split(), old.split()
            if new_words and old_words and len(new_words) <= 4 and new != old:
                out.append(Fact(SELF, "correction", new, kind=CORRECTION, change=True, old_value=old))
                break
    return out


def _dedupe(facts: Sequence[Fact]) -> list[Fact]:
    seen: set[tuple[str, str, str, bool, str]] = set()
    out = []
    for f in facts:
        key = (f.subject, f.relation, f.value, f.negated, f.kind)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


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


#: relations that say what a person can eat: "can eat anything" (value "none") and any
#: restriction replace each other
_RESTRICTIVE = frozenset({"restriction", "allergy", "diet"})
TIME_WORDS = frozenset(
    {"midnight", "noon", "morning", "mornings", "evening", "evenings", "night", "nights", "am", "pm", "o'clock"}
    | set(lang.WEEKDAYS)
    | {m.lower() for m in lang.MONTHS}
)


def relate(new: Fact, old: Fact) -> str | None:
    """How a newer fact bears on an older one of the same subject, or None."""
    if new.subject != old.subject or old.kind in (CANCEL, CORRECTION):
        return None
    if new.relation == "switch":
        if new.old_value and not old.negated and same_value(new.old_value, old.value):
            return REPLACES
        return REPEATS if old.relation == "switch" and same_value(new.value, old.value) else None
    if new.relation == "stop":
        # "sold the Volvo", "moved on from The Bear", "no more coffee": whatever held it ends
        return CONTRADICTS if not old.negated and old.kind != PAST and holds(old.value, new.value) else None
    if new.kind == PAST:
        # "I used to get flat whites": the habit ends, however it was stated
        held = same_value(new.value, old.value) or holds(old.value, new.value)
        return REPLACES if held and not old.negated and old.kind != PAST else None
    if old.kind == PAST:
        return None
    if new.negated and new.change and new.specific and not old.negated and holds(old.value, new.value):
        # "I'm no longer going to Iron Works" ends "is a member at the Iron Works gym"
        return CONTRADICTS
    if (
        new.relation in _RESTRICTIVE
        and old.relation in _RESTRICTIVE
        and not (new.negated or old.negated)
        and (new.value == "none") != (old.value == "none")
    ):
        return REPLACES
    if new.relation != old.relation and not _same_verb(new, old):
        return None
    if new.kind in (CANCEL, CORRECTION):
        return None
    # "I quit smoking", "I don't drink anymore": the activity itself ends, whatever was said of it
    # (only with a change cue: "we don't go often" says nothing about the camping trip)
    bare = new.change and new.relation.startswith("do:") and new.value == _verb_key(new.relation)[3:]
    if new.relation != old.relation and not bare:
        return None
    same = bare or same_value(new.value, old.value)
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


def _verb_key(relation: str) -> str:
    return relation.split(" ", 1)[0]


def _same_verb(a: Fact, b: Fact) -> bool:
    return a.relation.startswith("do:") and _verb_key(a.relation) == _verb_key(b.relation)


def _time_changed(a: str, b: str) -> bool:
    """ "bed around midnight" against "bed at 10 pm": the same thing at another time."""
    la, lb = lang.content_words(a), lang.content_words(b)
    if not la or not lb or la[0] != lb[0]:
        return False
    ta = {w for w in la if w.isdigit() or w in TIME_WORDS}
    tb = {w for w in lb if w.isdigit() or w in TIME_WORDS}
    return bool(ta or tb) and ta != tb


_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "a": "1", "an": "1", "another": "+", "second": "+",
}  # fmt: skip


def _count_changed(a: str, b: str) -> bool:
    """ "two dogs" against "three dogs": the same thing counted differently. "another dog" or "a
    second dog" adds one, which is not a new count of the same thing."""
    wa, wb = a.split(), b.split()
    na = [_NUMBER_WORDS.get(w, w) for w in wa if w.isdigit() or w in _NUMBER_WORDS]
    nb = [_NUMBER_WORDS.get(w, w) for w in wb if w.isdigit() or w in _NUMBER_WORDS]
    if not na or not nb or "+" in na or na == nb:
        return False
    rest_a = {lang.content_words(w)[0] for w in wa if not (w.isdigit() or w in _NUMBER_WORDS) and lang.content_words(w)}
    rest_b = {lang.content_words(w)[0] for w in wb if not (w.isdigit() or w in _NUMBER_WORDS) and lang.content_words(w)}
    return bool(rest_a) and rest_a == rest_b
