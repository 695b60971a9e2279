"""Whether a later sentence ends or changes what an earlier one states about the same topic:
the second test of closing by succession (succession.py), for changes the merge guard's
whole-sentence comparison misses (issue #27).

The guard (services/opposition.py) sees a negation only between two sentences that share half
their content words, so "Priya has been vegetarian for about five years" and "Priya is not
vegetarian anymore, Priya started eating fish again" pass as compatible. Here the two are
compared on what they are *about*, as a person would: a salient topic word both use (a content
word, lightly stemmed, not a generic one like "user", "day", "thing", not the name of whom the
sentence is about) or, when they share none and the later sentence says an ending, a
replacement or a correction, two salient words one in *meaning* (word_meaning.py: "insulin jab"
and "injections", "broadband" and "fibre", "manager" and "boss"; not two members of one kind,
same_kind.py: tea and coffee, a cello and a violin), and then, in the part of the later sentence
that carries that topic and names no other member of a kind than the earlier one,

* an **ending**: the topic negated in a present or lasting sense ("not vegetarian anymore",
  "doesn't have a gym membership now", "not on nights these days", "didn't renew the season
  ticket") or a verb of the class that ends a state or a plan (stop, quit, give up, come off,
  drop, leave, sell, close, shut, cancel, shelve, scrap, wind up, pull, retire, pay off ...);
* a **changed value** of the topic (a name, number, time, date or code that differs on both
  sides) with a word that says it replaced the old one ("now", "these days", "switched",
  "transferred", "in the end", "instead"); or
* a **correction** of a value: a word that says the earlier one was wrong ("correction",
  "wrong", "mixed up", "misread", "swapped", "typo", "I meant") or "not <the old value>", and
  a value that differs, on the same topic or spelled nearly alike ("Aidan" → "Aiden with an
  e", "LS6 2AB" → "LS6 2BA"); a value in lower case counts when another word one in meaning
  takes its slot ("allergic to penicillin" → "my mistake, it's amoxicillin I'm allergic to").

A sentence that says it adds ("also", "too", "another", "again" ...: succession.ADDS) never
changes anything, and neither does a sentence about another named one of a kind
(succession.different_subjects, checked by the caller).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher
from functools import lru_cache

from memlane.services.conversation import language as lang
from memlane.services.conversation import same_kind, word_meaning
from memlane.services.conversation.facts.lexicon import KIN

#: words that name no topic of their own: who (the rewritten first person), when, how much,
#: and verbs that say nothing of what a fact is about
_GENERIC = (
    lang.wordset(
        """
    user users people person someone everyone thing stuff time times day days week month year weekend
    minut minute hour second tonight today now these days nowadays ago every each most lot bit
    go goe going gone went get gett got make mak made take tak took come com came do doe doing did done
    say said tell told see saw seen look want need like love think feel know keep put let
    good great nice bad new old first last next little big small long short much more less well
    back way kind sort part end home there here yes no still just even really pretty quite always never
    can will would could should might may must one two three four five six seven eight nine ten
    give gave keep kept try tried let help start started wish bet hard since photo pic picture share shares
    find found
    """
    )
    | frozenset(lang.MONTHS)
    | frozenset(lang.WEEKDAYS)
)

#: verbs and phrases that end a state, a habit or a plan, as a class
_ENDING = re.compile(
    r"\b(?:stop(?:s|ped|ping)?(?! and| to)|quit(?:s|ting)?|g[ai]ve(?:n)? up|giving up|c[oa]me off|coming off"
    r"|drop(?:s|ped|ping)?(?! off| by| in| round)"
    r"|(?:left|leaving) (?:the|my|our|his|her|their|its|[A-Z]\w*)|sold|sell(?:s|ing)|clos(?:ed|ing)|shut"
    r"|cancell?(?:ed|ing)|called off|calling off|shelved|scrapped|wound (?:\w+ ){0,3}up"
    r"|pulled (?:out|the|it|its|their|our)|fell through|fallen through|knocked (?:\w+ ){0,3}on the head"
    r"|let us down|retired|retiring|paid (?:\w+ ){1,5}off|broke up|moved out|gave (?:\w+ ){0,2}away|no more"
    r"|not going ahead|(?:packed|jacked|packing|jacking) (?:\w+ ){0,2}in|(?:stood|stepped|standing|stepping) down"
    r"|binned|ditched|axed|dumped|(?:rained|called|written) off|pulled the plug|turned down"
    r"|handed (?:\w+ ){0,2}back)\b",
    re.IGNORECASE,
)
#: "used to" and the few words it puts in the past ("used to cycle in", "used to have a dog")
_USED_TO = re.compile(r"\bused to\s+(?P<what>(?:[\w'-]+\s+){0,3}[\w'-]+)", re.IGNORECASE)
#: a negation just before a verb of ending turns it into going on ("never give up", "won't quit",
#: "can't stop writing")
_NOT_ENDING = re.compile(
    r"(?:\b(?:not|never|no)|n't)\s+(?:\w+\s+){0,2}(?:stop|quit|give up|giving up|gave up|drop|leave|let go)",
    re.IGNORECASE,
)
#: a negation that says a state no longer holds ("not ... anymore", "doesn't ... now")
_NEGATED = re.compile(r"\b(?:not|no|never|no longer|none)\b|n't\b", re.IGNORECASE)
#: words that put a negation in the present or say it lasts: with them a negation ends a state
_LASTING = re.compile(
    r"\b(?:now|anymore|any more|any longer|no longer|these days|nowadays|after all|at all|for good)\b",
    re.IGNORECASE,
)
#: a state not had since a time: it ended then ("hasn't had a migraine since March", "not needed
#: the inhaler since the summer"); a place not been to since is a visit, not a state
_NOT_SINCE = re.compile(r"(?:n't|\bnot|\bnever)\s+(?:\w+\s+)?(?:had|needed|used)\b[^,;]*\bsince\b", re.IGNORECASE)
#: a negated verb of going on ("didn't renew", "not continuing", "won't be going back")
_NOT_GOING_ON = re.compile(
    r"(?:n't|\bnot|\bnever)\s+(?:\w+\s+)?(?:renew|renewing|continu\w*|extend\w*|go(?:ing)? ahead|go(?:ing)? back"
    r"|keep\w*|happen\w*|got going|get going)\b",
    re.IGNORECASE,
)
#: words that say a value was replaced, with a shared topic (a time word suffices here)
_REPLACED = re.compile(
    r"\b(?:now|these days|nowadays|switched|swapped|changed|transferred|moved|instead|in the end|went with"
    r"|gone with|no longer|any ?more)\b",
    re.IGNORECASE,
)
#: words that say a value was replaced, not only when a fact holds: a topic found by meaning
#: alone asks for one ("I can hold a conversation in Spanish now" adds to "I speak Welsh")
_SWITCHED = re.compile(
    r"\b(?:switched|swapped|changed|transferred|moved|instead|in the end|went with|gone with|no longer|any ?more)\b",
    re.IGNORECASE,
)
#: words that say the earlier value was wrong
_CORRECTION = re.compile(
    r"\b(?:correction|corrected|wrong|mistake|mistaken|mixed (?:\w+ )?up|mix-up|misread\w*|misheard"
    r"|mix(?:es|ing)? (?:them|those|these|it|that|the two) up"
    r"|misremember\w*|muddl\w*"
    r"|swapped|transpos\w*|typo|i meant|meant to say|spelled|spelt|with an? (?:\w|extra \w)\b"
    r"|sorry(?!\s+(?:to|for|about|that|you|\w+ (?:hasn't|didn't|couldn't|can't|won't))\b))",
    re.IGNORECASE,
)
#: a value: an email address, a phone number, a number, time, amount or ordinal; a code of
#: letters and digits; a capitalised name that does not open the sentence
_VALUE = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\d[\d ]{6,}\d|\b[A-Za-z]+\d+[A-Za-z\d]*\b|\b\d+(?!st|nd|rd|th)[A-Za-z]+\b"
    r"|£?\$?€?\d+(?:[.,:]\d+)*(?:st|nd|rd|th|am|pm|k|m|%)?|(?<=\s)[A-Z][\w'-]*"
)
#: clause boundaries inside a sentence
_CLAUSE = re.compile(r"[,;:]\s+|\s+(?:and|but|so|because|though|while)\s+|\s+-\s+")
#: "not <value>": the old value denied in so many words ("it's Jenna, not Jen", "9:30, not 8:45")
_NOT_VALUE = re.compile(r"\bnot\s+(?P<value>\S+)", re.IGNORECASE)
#: two values spelled this alike are one value corrected (Aidan/Aiden, 2AB/2BA, 1,450/1,540)
_ALIKE = 0.7


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A word lower-cased, a possessive and the commonest endings left off ("drives",
    "driving" → "driv"; "nights" → "night"): enough to see two sentences use one word."""
    w = word.lower().strip("'-")
    w = re.sub(r"['\u2019]s$", "", w)
    for suffix in ("ings", "ing", "ed", "es"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    else:
        if w.endswith("s") and len(w) >= 4 and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


#: the stems of the generic words
_GENERIC_STEMS = frozenset(stem(w) for w in _GENERIC)


def _subjects(text: str) -> set[str]:
    return set(_subjects_of(text))


@lru_cache(maxsize=4096)
def _subjects_of(text: str) -> frozenset[str]:
    """Whom a text is about by name: a name before a verb or one that owns something
    ("Priya is ...", "Wes's mobile"). The person is not the topic."""
    out = {stem(m.group(1)) for m in re.finditer(r"\b([A-Z][\w-]*)['\u2019]s\b", text)}
    out |= {stem(m.group(1)) for m in _NAME_THEN_VERB.finditer(text)}
    return frozenset(out)


#: a name followed by a verb: the subject of its clause ("... , Maria has been volunteering")
_NAME_THEN_VERB = re.compile(
    r"\b([A-Z][a-z][\w-]*)\s+(?:is|was|has|had|have|will|would|can|could|does|did|just|also|really|still|isn't"
    r"|wasn't|hasn't|can't|won't|doesn't|didn't|[a-z]+s|[a-z]+ed)\b"
)


def _topic_words(text: str, subjects: set[str]) -> set[str]:
    words = {stem(w) for w in lang.content_words(text) if not w[:1].isdigit()}
    return {w for w in words if len(w) > 2 and w not in _GENERIC_STEMS and w not in subjects}


def shared_topic(old: str, new: str) -> set[str]:
    """The salient words (stemmed) two texts share, not counting whom they are about."""
    subjects = _subjects(old) | _subjects(new)
    return _topic_words(old, subjects) & _topic_words(new, subjects)


def _meaning_words(text: str, subjects: set[str]) -> dict[str, str]:
    """The salient words of a text that may be compared by meaning, by stem: those written in
    lower case (a name is a value, and two names alike are two named ones of a kind: Warsaw
    and Krakow), not a word for one's people or pets (a brother and a sister are two), and
    not a verb's "-ing" or "-ed" form: a topic is a thing, and an action is near in meaning to
    too many ("eating" to "breakfast", "porridge", "dinner"); but an "-ing" form that a verb of
    ending takes as its object names what ended ("packed in puffing", "gave up smoking")."""
    out: dict[str, str] = {}
    ended = {m.start("what") for m in _ENDED_ACTION.finditer(text)}
    for m in _LOWER_WORD.finditer(text):
        word = re.sub(r"['\u2019]s$", "", m.group(0)).strip("'-")
        key = stem(word)
        action = _ACTION.search(word) and m.start() not in ended
        if word in lang.STOPWORDS or word in lang.NEGATIONS or len(key) <= 2 or action:
            continue
        if key in _GENERIC_STEMS or key in subjects or key in _PEOPLE_STEMS:
            continue
        out[key] = word
    return out


#: a verb's "-ing" or "-ed" form
_ACTION = re.compile(r"(?:ing|ed)$")
#: an "-ing" form right after a verb of ending: the activity that ended
_ENDED_ACTION = re.compile(rf"(?:{_ENDING.pattern})\s+(?P<what>[a-z]+ing)\b", re.IGNORECASE)
#: a word in lower case
_LOWER_WORD = re.compile(r"(?<![\w'-])[a-z][a-z'-]*")


def _related(old: str, new: str, *, changed: bool = False) -> set[tuple[str, str]]:
    """The pairs of salient words (stems: one of ``old``, one of ``new``) that are one topic by
    meaning (word_meaning.py); with ``changed``, only words the other text does not use (a
    value in the old's slot replaced by another: "penicillin" by "amoxicillin")."""
    subjects = _subjects(old) | _subjects(new)
    a, b = _meaning_words(old, subjects), _meaning_words(new, subjects)
    if changed:
        a, b = {k: w for k, w in a.items() if k not in b}, {k: w for k, w in b.items() if k not in a}
    pairs = {(x, y) for x, y in word_meaning.related(a, b) if x != y}
    pairs = {(x, y) for x, y in pairs if _activity_to_activity(a[x], old, b[y], new)}
    return {(x, y) for x, y in pairs if not _of_another_kind(a[x], old, b[y], new)}


def _activity_to_activity(old_word: str, old: str, new_word: str, new: str) -> bool:
    """Whether a pair may be one topic as far as activities go: an activity that ended ("packed
    in puffing") is compared with what the earlier note says its subject does ("Dev vapes"),
    not with the things it names ("stopped eating after 8pm" says nothing of "porridge for
    breakfast")."""
    if _ACTION.search(new_word):
        return stem(old_word) in _verbs(old)
    if _ACTION.search(old_word):
        return stem(new_word) in _verbs(new)
    return True


#: a clause's subject and the word after it (its verb, past an adverb): "Dev vapes", "the user
#: often cycles", "I play"
_SUBJECT_VERB = re.compile(
    r"(?:^|[,;]\s*|\band\s+)(?:[Tt]he user|I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|[A-Z][a-z][\w-]*)\s+"
    r"(?:(?:always|usually|often|still|also|just|really|never|sometimes|\w+ly)\s+)?(?P<verb>[a-z][a-z'-]*)"
)


def _verbs(text: str) -> set[str]:
    """The stems of the verbs a text's clauses say their subjects do."""
    return {stem(m.group("verb")) for m in _SUBJECT_VERB.finditer(text)}


#: words that say one thing took another's place ("switched from tea to coffee", "coffee
#: instead", "swapped the cello for a violin"), not only that something ended or when
_REPLACEMENT = re.compile(
    r"\b(?:switch\w*|swap\w*|chang(?:ed|ing)|replac\w*|trad(?:ed|ing) in|instead|rather than|in place of"
    r"|(?:moved|moving|gone|went|going) (?:over |on )?(?:from|to|onto)|from \w+(?: \w+)? to)\b",
    re.IGNORECASE,
)


def _of_another_kind(old_word: str, old: str, new_word: str, new: str) -> bool:
    """Whether two words near in meaning are two members of one kind (same_kind.py: tea and
    coffee, a cello and a violin), each text about its own ("drinks green tea", "gave up
    coffee"), while the new sentence neither corrects a value nor says, in the clause that
    names its word, that one took the other's place ("switched from tea to coffee")."""
    if not (
        same_kind.another_of_its_kind(new_word, lang.words(old))
        or same_kind.another_of_its_kind(old_word, lang.words(new))
    ):
        return False
    return not _replaces(new, lambda clause: re.search(rf"\b{re.escape(new_word)}\b", clause, re.IGNORECASE))


def _replaces(sentence: str, names: Callable[[str], object]) -> bool:
    """Whether a sentence corrects a value, or says in a clause that ``names`` accepts that one
    thing took another's place."""
    if _CORRECTION.search(sentence):
        return True
    return any(_REPLACEMENT.search(c) and names(c) for c in (sentence[a:b] for a, b in _clauses(sentence)))


@lru_cache(maxsize=4096)
def another_thing(old: str, text: str) -> bool:
    """Whether ``text`` (a sentence or a clause) is about another member of a kind than
    ``old`` ("stopped playing the violin" beside "plays the cello"; "gave up coffee" beside
    "drinks green tea"), and does not say that one replaced the other: then what it ends or
    changes is not what ``old`` states, whatever words the two share ("play"). Remembered
    per pair: the topic and the value tests both ask it of each sentence pair."""
    old_words = lang.words(old)
    others = [w for w in lang.words(text) if same_kind.another_of_its_kind(w, old_words)]
    if not others:
        return False
    return not _replaces(text, lambda clause: any(re.search(rf"\b{re.escape(w)}\b", clause) for w in others))


def _meaning_topic(old: str, new: str) -> set[str]:
    """The stems, of both texts, of the salient words that are one topic by meaning."""
    return {w for pair in _related(old, new) for w in pair}


def _clauses(sentence: str) -> list[tuple[int, int]]:
    """Where the clauses of a sentence start and end."""
    spans, start = [], 0
    for m in _CLAUSE.finditer(sentence):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(sentence)))
    return [(a, b) for a, b in spans if sentence[a:b].strip()]


def _ends_in(pattern: re.Pattern[str], sentence: str, span: tuple[int, int]) -> bool:
    """Whether ``pattern`` matches the sentence at a place inside the clause ``span`` (read
    on past the clause's end, so "stop and admire" is not "stop")."""
    return any(span[0] <= m.start() < span[1] for m in pattern.finditer(sentence))


def _values(text: str) -> set[str]:
    return set(_values_of(text))


@lru_cache(maxsize=4096)
def _values_of(text: str) -> frozenset[str]:
    """The values a text names (see ``_VALUE``), remembered per text (see
    succession.py's ``spoken``)."""
    found = {re.sub(r"['\u2019]s$", "", m.group(0).strip(",.!?").lower()) for m in _VALUE.finditer(text)}
    return frozenset(v for v in found if v and v not in lang.STOPWORDS and v != "i")


def _alike(a: set[str], b: set[str]) -> bool:
    return any(x != y and SequenceMatcher(None, x, y).ratio() >= _ALIKE for x in a for y in b)


_KIN = KIN
#: the stems of the words for one's people and pets, of whom one may have several: a word
#: for one of them is never the topic of another by meaning ("brother" and "sister" are two
#: people); a boss, a manager and a teacher are roles one has one of at a time
_PEOPLE_STEMS = frozenset(stem(w) for w in [*re.sub(r"\?|s\?", "", _KIN).split("|"), "parents", "fiance"]) - {
    "boss",
    "manager",
    "teacher",
}
_SOMEONES = re.compile(
    rf"^(?:(?P<owner>[A-Z][\w-]*|[Tt]he user)['\u2019]s|(?P<mine>[Mm]y|[Oo]ur))\s+(?:\w+\s+)?(?P<noun>{_KIN})s?\b"
    r"(?:\s+(?P<name>[A-Z][\w-]*))?"
)
#: how a sentence names its subject when it opens with them
_OPENER = re.compile(r"^(?:(?P<user>[Tt]he user|I|We)\b|(?P<name>[A-Z][\w-]*)\s+(?=[a-z]))")


def _opener(sentence: str) -> str | None:
    m = _OPENER.match(sentence.strip())
    if m is None:
        return None
    return "the user" if m.group("user") else m.group("name").lower()


def _someone_elses(a: str, b: str) -> bool:
    """Whether ``a`` opens with someone's relative or pet ("Angus's wife drives a Volvo",
    "my sister lives in Leeds") and ``b`` opens with that someone ("Angus drives a Fiat now"),
    not mentioning the relative (by that word or that name): two people, not a change."""
    m = _SOMEONES.match(a.strip())
    if m is None:
        return False
    owner = "the user" if m.group("mine") else m.group("owner").lower()
    lower, name = b.lower(), m.group("name")
    mentioned = _names_kin(lower, m.group("noun").lower()) or (name and name.lower() in lower)
    return _opener(b) == owner and not mentioned


def _names_kin(text: str, noun: str) -> bool:
    """Whether a text names a relative by its word or another word for one ("mum" for
    "mother", "boss" for "manager")."""
    one = _KIN_ALIKE.get(noun, noun)
    words = re.findall(r"[a-z][a-z-]*", text.lower())
    return any(_KIN_ALIKE.get(w, w) == one for word in words for w in (word, word.removesuffix("s")))


#: one person, said in other words ("mum" and "mother")
_KIN_ALIKE = {
    "mum": "mother",
    "mom": "mother",
    "dad": "father",
    "grandma": "grandmother",
    "nan": "grandmother",
    "grandad": "grandfather",
    "grandpa": "grandfather",
    "neighbor": "neighbour",
    "fiancee": "fiance",
    "parent": "parents",
    "in-law": "in-laws",
    "boss": "manager",
}


def _relative_of(sentence: str) -> tuple[str, str, str | None] | None:
    """Whose relative or pet a sentence opens with, which one, and its name if given
    ("my sister Keira moved ...": ("the user", "sister", "keira")), or None."""
    m = _SOMEONES.match(sentence.strip())
    if m is None:
        return None
    owner = "the user" if m.group("mine") else m.group("owner").lower()
    noun = m.group("noun").lower()
    name = m.group("name")
    return owner, _KIN_ALIKE.get(noun, noun), name.lower() if name else None


def _two_relatives(a: str, b: str) -> bool:
    """Whether two sentences open with two different people of someone's ("my brother works
    at the bakery", "my sister quit her job at the bakery"; "Sam's sister", "my sister"),
    neither mentioning the other one's word or name."""
    ra, rb = _relative_of(a), _relative_of(b)
    if ra is None or rb is None or ra[:2] == rb[:2]:
        return False
    return not _names_one_of(a, rb) and not _names_one_of(b, ra)


def _names_one_of(text: str, relative: tuple[str, str, str | None]) -> bool:
    """Whether a text names a relative by its word (or another word for one) or its name."""
    name = relative[2]
    return _names_kin(text, relative[1]) or bool(name and re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE))


def same_subject(old: str, new: str) -> bool:
    """Whether two sentences may be about the same one: neither opens with someone's
    relative or pet while the other opens with that someone, and they do not open with two
    different relatives or pets."""
    return not _someone_elses(old, new) and not _someone_elses(new, old) and not _two_relatives(old, new)


def ending(old: str, new: str, adds: re.Pattern[str]) -> str | None:
    """Why ``new`` (one sentence) ends what ``old`` (one sentence) states about a topic both
    name, or None: the clause of ``new`` that names the topic negates it lastingly or ends it
    with a verb of ending, while ``old`` states it without a negation."""
    if _says(_NEGATED, old) or not same_subject(old, new):
        return None
    topic = shared_topic(old, new) or (_meaning_topic(old, new) if _may_end(new) else set())
    if not topic:
        return None
    for span in _clauses(new):
        clause = new[span[0] : span[1]]
        if adds.search(clause) or not (_topic_words(clause, set()) & topic):
            continue
        if _NOT_ENDING.search(clause) or another_thing(old, clause):
            continue
        if _ends_in(_ENDING, new, span) or _NOT_GOING_ON.search(clause) or _past_topic(clause, topic):
            return f"ended ({', '.join(sorted(topic))})"
        if (_NEGATED.search(clause) and _LASTING.search(clause)) or _NOT_SINCE.search(clause):
            return f"no longer ({', '.join(sorted(topic))})"
    return None


@lru_cache(maxsize=4096)
def _may_end(sentence: str) -> bool:
    """Whether a sentence says anything that may end a topic (before its topic is looked for
    by meaning, which costs the words' vectors)."""
    if _ENDING.search(sentence) or _NOT_GOING_ON.search(sentence) or _USED_TO.search(sentence):
        return True
    return bool(_NEGATED.search(sentence) and _LASTING.search(sentence)) or bool(_NOT_SINCE.search(sentence))


def _past_topic(clause: str, topic: set[str]) -> bool:
    """Whether the clause puts the topic in the past: "used to" a few words before it."""
    return any(_topic_words(m.group("what"), set()) & topic for m in _USED_TO.finditer(clause))


@lru_cache(maxsize=16384)
def _says(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` is found in ``text``, remembered: a new note's sentence is searched
    for the same cues once per candidate it is compared with."""
    return pattern.search(text) is not None


def changed_value(old: str, new: str, adds: re.Pattern[str]) -> str | None:
    """Why ``new`` (one sentence) replaces or corrects a value ``old`` (one sentence) states,
    or None (see the module's docstring)."""
    if _says(adds, new) or not same_subject(old, new) or another_thing(old, new):
        return None
    if _says(_CORRECTION, new) and _denies(new, _plain_words(old) - lang.STOPWORDS - _GENERIC):
        return "corrected value"
    va, vb = _values(old), _values(new)
    gone = {v for v in va - vb if v not in _plain_words(new)}
    came = {v for v in vb - va if v not in _plain_words(old)}
    if not gone or not came:
        return _changed_word(old, new)
    topic = shared_topic(old, new)
    if not topic and (_CORRECTION.search(new) or _denies(new, va) or _SWITCHED.search(new)):
        topic = _meaning_topic(old, new)
    if _CORRECTION.search(new) or _denies(new, va):
        if topic or _alike(gone, came) or _same_sort(gone, came) or _denies(new, va):
            return "corrected value"
        return None
    if topic and _REPLACED.search(new) and not _NEGATED.search(new):
        return f"changed value ({', '.join(sorted(topic))})"
    if _same_kind(gone, came) and (_REPLACED.search(new) or re.search(r"\bnew\b", new, re.IGNORECASE)):
        return "changed value (of one kind)"
    return None


def _changed_word(old: str, new: str) -> str | None:
    """Why ``new`` corrects or replaces a value written in lower case: it says so (a word of
    correction, or of replacement without a negation), shares a topic word with ``old``, and
    puts another word in the old one's slot, one of its meaning ("allergic to penicillin" →
    "my mistake, it's amoxicillin I'm allergic to")."""
    corrects = _says(_CORRECTION, new)
    if not corrects and not (_says(_SWITCHED, new) and not _says(_NEGATED, new)):
        return None
    if not shared_topic(old, new):
        return None
    pairs = _related(old, new, changed=True)
    if not pairs:
        return None
    what = ", ".join(f"{a} → {b}" for a, b in sorted(pairs))
    return f"corrected value ({what})" if corrects else f"changed value ({what})"


#: values of a kind that one person has one of: an email address, a phone number
_KINDS = (re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$"), re.compile(r"^\+?\d[\d ]{6,}\d$"))


def _same_kind(gone: set[str], came: set[str]) -> bool:
    """Whether a value gone and a value come are of one kind a person has one of (an email
    address replaced by another, a phone number by another)."""
    return any(any(k.match(a) for a in gone) and any(k.match(b) for b in came) for k in _KINDS)


def _plain_words(text: str) -> set[str]:
    return set(_plain_words_of(text))


@lru_cache(maxsize=4096)
def _plain_words_of(text: str) -> frozenset[str]:
    return frozenset(re.sub(r"['\u2019]s$", "", w.lower()) for w in lang.words(text))


def _denies(new: str, old_values: set[str]) -> bool:
    """Whether ``new`` says "not <an old value>", in the singular or the plural ("not Fridays"
    denies "Friday")."""
    for m in _NOT_VALUE.finditer(new):
        value = m.group("value").strip(",.!?").lower()
        if value in old_values or (value.endswith("s") and value[:-1] in old_values):
            return True
    return False


#: sorts of value a slot holds one of: a weekday, a month, a day of the month, a clock time
_SORTS = (
    re.compile(rf"^(?:{'|'.join(lang.WEEKDAYS)})s?$"),
    re.compile(rf"^(?:{'|'.join(lang.MONTHS)})$"),
    re.compile(r"^\d{1,2}(?:st|nd|rd|th)$"),
    re.compile(r"^\d{1,2}(?::\d\d)?(?:am|pm)$|^\d{1,2}:\d\d$"),
)


def _same_sort(gone: set[str], came: set[str]) -> bool:
    """Whether a value gone and a value come are of one sort (Tuesday and Wednesday, the 9th
    and the 19th, 8:45 and 9:30): a correction that puts one in place of the other corrects
    the slot both fill."""
    return any(any(k.match(a) for a in gone) and any(k.match(b) for b in came) for k in _SORTS)
