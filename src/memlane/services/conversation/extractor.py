"""The offline extractor: conversation messages -> memory note drafts, with no model at all.

It is the default when no LLM is configured. Each message's salient sentences (first-person
facts, preferences, plans, dated events, sentences naming entities) become one note, rewritten
in the third person so it stands on its own ("I went there yesterday" said by Caroline on
8 May 2023 -> "Caroline went there yesterday (7 May 2023)."). Greetings, reactions and
questions are dropped. Every draft cites the message it came from.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.services.conversation import anaphora
from memlane.services.conversation import facts as fx
from memlane.services.conversation import language as lang
from memlane.services.conversation.messages import GENERIC_ROLES, NON_FACT_ROLES, Message

#: a sentence needs at least this salience to be remembered
KEEP_SCORE = 0.33
#: assistants explain more than they disclose; their sentences need more to be kept
ASSISTANT_EXTRA = 0.15
MAX_SENTENCES_PER_NOTE = 3
MAX_NOTE_CHARS = 1200
ASSISTANT_ROLES = {"assistant", "agent", "ai", "bot"}


@dataclass(slots=True)
class SentenceScore:
    text: str
    score: float
    category: str
    date: str | None


@dataclass(slots=True)
class NoteDraft:
    content: str
    category: str
    importance: float
    keywords: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    event_date: str | None = None
    #: what its sentences state (facts.Fact.to_slot, plus ``i``: the sentence of the note)
    facts: list[dict[str, Any]] = field(default_factory=list)
    #: the name the note calls the user by, when it is known
    subject_name: str | None = None


#: "Hi, I'm Priya", "my name is Priya", "call me Priya", "Priya here": a person giving a name
_NAME_STATEMENT = re.compile(
    r"^(?i:(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening))(?: there| all| everyone)?[,!.]?\s*)?"
    r"(?:(?i:i'm|i\u2019m|i am|my name is|my name's|call me|this is|it's|they call me|you can call me|name's)\s+"
    r"(?P<name>[A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+)?)|(?P<name2>[A-Z][a-z'\-]+) here)"
    r"(?=\s*[,.!;]|\s+(?:and|but|from)\b|\s*$)",
)
_NOT_NAMES = lang.wordset(
    """sorry fine good great ok okay well back home here there sure glad happy excited tired so not just
    really still new from in on at the a an"""
)


def stated_name(sentence: str) -> str | None:
    """The name a sentence introduces its speaker by, or None."""
    m = _NAME_STATEMENT.match(sentence.strip())
    if not m:
        return None
    name = m.group("name") or m.group("name2")
    return None if name.split()[0].lower() in _NOT_NAMES else name


def names_given(messages: list[Message]) -> str | None:
    """The first name a person (not an assistant) gives for themself in these messages."""
    for m in messages:
        if m.role.strip().lower() in ASSISTANT_ROLES or m.role.strip().lower() in NON_FACT_ROLES:
            continue
        for sentence in lang.sentences(m.content):
            name = stated_name(sentence)
            if name:
                return name
    return None


def _without_name(sentence: str) -> str:
    """The sentence without the greeting that introduces the speaker: "I'm Priya and I live in
    Porto" -> "I live in Porto"; "" when that was all of it."""
    text = sentence.strip()
    m = _NAME_STATEMENT.match(text)
    if not m:
        return text
    rest = text[m.end() :].strip(" .!,;")
    return re.sub(r"^(?:and|but)\s+", "", rest)


#: where one sentence holds two statements of the speaker: "I'm allergic to peanuts and I live
#: in Porto" is two sentences of a note, so a later message can end one and keep the other.
#: Not after a name ("Omar and I are getting married": one subject), and not at "but", which
#: joins what belongs together ("I used to get flat whites but now I order a cold brew").
_FACT_BOUNDARY = re.compile(
    r"(?<![A-Z][a-z])(?<![A-Z][a-z][a-z])(?<![A-Z][a-z][a-z][a-z])(?<![A-Z][a-z]{4})(?<![A-Z][a-z]{5})"
    r"\s*(?:,\s*|\s+)(?:and|so)\s+(?=(?:now\s+|also\s+)?(?:I|I'm|I've|I'd|I'll|my|My|we|We|we're|We're)\b)"
    r"|\s*;\s*"
)


#: a part of a sentence that says something: a first-person verb or an auxiliary
_FINITE = re.compile(
    r"\b(?:I|we|We)\s+\w+|\b(?:am|is|are|was|were|have|has|had|do|does|did|will|would|can|could)\b|'(?:m|s|re|ve|d|ll)\b"
)


def split_facts(sentence: str) -> list[str]:
    """A sentence as its statements, each a sentence of its own (subject kept, first letter
    capitalised, closing stop restored); a sentence of one statement is returned as it is."""
    parts = [p.strip(" ,") for p in _FACT_BOUNDARY.split(sentence.strip()) if p and p.strip(" ,")]
    if len(parts) < 2 or any(len(p.split()) < 3 or not _FINITE.search(p) for p in parts):
        # "My husband Carlos and I just celebrated ...": one subject, not two statements
        return [sentence] if sentence else []
    end = sentence.strip()[-1] if sentence.strip()[-1:] in ".!" else "."
    return [p[:1].upper() + p[1:] + ("" if p[-1:] in ".!" else end) for p in parts]


#: what a person speaks of as theirs without saying "my": "New number is ...", "Flight's at 6am"
_OWNED = lang.wordset(
    """number phone mobile email address postcode flight train bus appointment dentist doctor meeting interview
    shift class lesson birthday anniversary wedding party job office boss manager salary rent flat house car
    bike landlord gym school deadline exam surname budget holiday trip commute team hours schedule contract
    lease partner dog cat plan plans"""
)
_OWNING_ADJECTIVES = lang.wordset("new old current next latest usual")
#: a subjectless statement: an optional "new"/"old", one noun, then a verb that states its value
_FRAGMENT = re.compile(
    r"^(?P<adj>(?i:new|old|current|next|latest|usual)\s+)?(?P<noun>[A-Za-z]+)"
    r"(?P<verb>['\u2019]s|\s+(?:is|are|was|were|moved|changed|got|will be))\s+(?P<rest>.+)$"
)
#: words that make a weekday a fact in itself ("Saturday's off")
_DAY_STATES = re.compile(r"^(?:off|on|cancelled|canceled|postponed|free|booked|busy)\b", re.IGNORECASE)


def _carries_value(rest: str) -> bool:
    """A number, a date or a name in what a fragment says: something a note can hold."""
    if re.search(r"\d", rest) or re.search(r"\s[A-Z][a-z]", " " + rest):
        return True
    return any(w in lang.WEEKDAYS or w in lang.MONTHS for w in lang.words(rest.lower()))


def with_owner(sentence: str) -> str:
    """A subjectless fragment that states a value of the speaker's, as the speaker's own
    statement ("New number is 07700 900456." -> "My new number is 07700 900456."; "Saturday's
    off, sadly." -> "My Saturday is off, sadly."). Anything else is returned as it is: a
    greeting, a question, a named person ("Felix is turning six") or a fragment with no value."""
    m = _FRAGMENT.match(sentence.strip())
    if m is None or sentence.rstrip().endswith("?"):
        return sentence
    noun, rest = m.group("noun"), m.group("rest")
    adj = (m.group("adj") or "").strip().lower()
    if noun.lower() in lang.WEEKDAYS:
        owned = _DAY_STATES.match(rest) is not None
    else:
        owned = (noun.lower() in _OWNED or (adj in _OWNING_ADJECTIVES and noun.islower())) and _carries_value(rest)
    if not owned:
        return sentence
    verb = " is" if m.group("verb")[:1] in "'\u2019" else m.group("verb")
    head = noun.capitalize() if noun.lower() in lang.WEEKDAYS else noun.lower()
    return f"My {adj} {head}{verb} {rest}" if adj else f"My {head}{verb} {rest}"


#: a past verb a person begins a sentence with, the "I" left out ("Been busy volunteering at
#: the shelter", "Just got back from Lisbon", "Started a pottery class"); not before what makes
#: it a reaction or a thanks ("Got it", "Had to laugh", "Been there, done that")
_DROPPED_I = re.compile(
    r"^(?P<adv>(?:just|finally|also|recently|only)\s+)?"
    r"(?P<verb>been|got|went|finished|started|moved|booked|bought|joined|passed|signed|picked|adopted|visited|"
    r"spent|tried|took|had|met|sold|quit|left|lost|won|found|ran|broke|hurt)\s+"
    r"(?!(?:it|that|this|you|ya|there|to|me|a feeling|a point|nothing)\b)(?=\w)",
    re.IGNORECASE,
)


def with_subject(sentence: str) -> str:
    """A sentence that drops its "I" before a past verb, with the "I" restored ("Been busy
    volunteering." -> "I've been busy volunteering."; "Just got back from Lisbon." -> "I just
    got back from Lisbon."); anything else as it is."""
    m = _DROPPED_I.match(sentence.strip())
    if m is None or sentence.rstrip().endswith("?"):
        return sentence
    text = sentence.strip()
    adv = (m.group("adv") or "").lower()
    verb = m.group("verb").lower()
    head = f"I've {adv}been" if verb == "been" else f"I {adv}{verb}"
    return f"{head} {text[m.end() :]}"


#: fact kinds that change what a note holds: a sentence that states one is worth keeping
_CHANGES = frozenset({fx.CANCEL, fx.CORRECTION})
#: a thing that began, or an event called off by what happened to it ("have started coming",
#: "began to walk", "got rained off", "was called off"): news that changes what is true
_STARTED_OR_OFF = re.compile(
    r"\b(?:start(?:ed|s)|began|begun)\s+(?:\w+ing|to\s+\w+)\b"
    r"|\b(?:got|gets|been|was|were|is|are|being)\s+\w+(?:ed|en)\s+off\b",
    re.IGNORECASE,
)
#: words a sentence may begin with that are not a name ("Everyone's", "Nobody has")
_NOT_A_NAME = lang.wordset(
    """everyone everybody someone somebody anyone anybody nobody everything something anything nothing
    work life dinner lunch breakfast weather traffic today tonight let"""
)
#: a word before the subject, set off by a comma ("Good, she found a flat", "Yes, Rowan has ...")
_LEAD = r"^(?:[A-Za-z]+,\s+)?"
#: a verb in -ing after "is", not an opinion in -ing ("is coming", not "is amazing")
_DOING = (
    r"(?!(?:amazing|interesting|exciting|boring|relaxing|inspiring|thrilling|annoying|charming|stunning|"
    r"rewarding|refreshing|satisfying|challenging|disappointing|encouraging|frustrating|fascinating|"
    r"tiring|exhausting|worrying|surprising|touching|moving|heartwarming|terrifying|depressing)\b)\w+ing"
)
#: who the news is about, as the subject of a sentence ("Rowan won't be shooting on Sunday", "Mia
#: has been vegetarian since she was eight", "Good, she found a flat", "the boys had a sleepover"):
#: ``lang.entities`` passes over a sentence's first word, which any sentence has capitalised; a
#: name, a third person or a plural followed by an auxiliary of news (not "is" and an opinion:
#: "Yoga is amazing") is someone's news
_NAMED_SUBJECT = re.compile(
    _LEAD + r"(?P<name>[A-Z][a-z]+)(?:['\u2019]s|\s+(?:is|was))\s+(?:been|got|gone|not|just|finally|" + _DOING + r")\b"
    r"|" + _LEAD + r"(?P<name2>[A-Z][a-z]+)\s+"
    r"(?:has|had|will|did|(?:won|can|didn|doesn|isn|wasn|hasn|hadn)['\u2019]t)\b"
    r"|" + _LEAD + r"(?P<other>(?i:she|he|they|the \w+s))\s+"
    r"(?:(?:has|have|had|will|(?:won|didn|hasn|haven)['\u2019]t)\b"
    r"|(?:['\u2019]s|['\u2019]re|is|are|was|were)\s+(?:been|got|gone|" + _DOING + r")\b"
    r"|(?:\w+ed|found|got|went|made|took|came|left|lost|won|bought|sold|met|began|became|broke|gave|grew|ran|turned)\b)"
)
#: a weekday or a month named without "last/this/next" ("coming Thursday", "on Sundays", "in
#: March"): a time the sentence is anchored to, though not one a date can be resolved from
_NAMED_DAY = re.compile(
    r"\b(?:" + "|".join(calendar.day_name) + r")s?\b|(?<=\s)(?:" + "|".join(calendar.month_name[1:]) + r")\b"
)


def _says_more_than_the_day(text: str) -> bool:
    """Two words besides the day that are neither filler nor stopwords: "the bins go out on
    Tuesday night" says something of the day, "thanks, see you Monday!" does not."""
    days = set(lang.WEEKDAYS) | {f"{d}s" for d in lang.WEEKDAYS} | set(lang.MONTHS)
    said = [w for w in lang.words(text.lower()) if w not in lang.FILLER and w not in lang.STOPWORDS and w not in days]
    return len(said) >= 2


def _names_a_subject(text: str) -> bool:
    m = _NAMED_SUBJECT.match(text)
    if m is None:
        return False
    if m.group("other"):
        return True
    name = (m.group("name") or m.group("name2")).lower()
    return not (
        name.endswith("ing") or
        name in lang.STOPWORDS
        or name in lang.FILLER or name in lang.WEEKDAYS or name in lang.MONTHS
        or name in _NOT_A_NAME or name in lang.NEGATIONS
    )  # fmt: skip


def score_sentence(sentence: str, message: Message) -> SentenceScore:
    """Salience in [0, 1] and the kind of memory the sentence holds."""
    text = sentence.strip()
    if not text or text.endswith("?") or lang.is_filler(text):
        return SentenceScore(text, 0.0, "none", None)
    cw = lang.content_words(text)
    short_fact = len(cw) == 1 and lang.FIRST_PERSON.search(text) is not None and bool(fx.parse(text))
    if len(cw) < 2 and not short_fact:
        return SentenceScore(text, 0.0, "none", None)
    # "I have a sister": one content word, but a fact about the speaker
    score = 0.15 + min(len(cw), 8) * 0.03 + (0.05 if short_fact else 0.0)
    category = "fact"
    if lang.FIRST_PERSON.search(text):
        score += 0.15
    if lang.PREFERENCE.search(text):
        score += 0.25
        category = "preference"
    if lang.PLAN.search(text):
        score += 0.2
        if category == "fact":
            category = "plan"
    date = lang.resolve_relative_date(text, message.timestamp)
    if date:
        score += 0.2
        category = "event" if category == "fact" else category
    elif _NAMED_DAY.search(text) and _says_more_than_the_day(text):
        score += 0.1  # "the fitters are coming Thursday": a day, though not a date
    if lang.entities(text) or _names_a_subject(text):
        score += 0.1
    if re.search(r"\d", text):
        score += 0.05
    if _says_a_change(text):
        score += CHANGE_BONUS  # "the house fell through", "so that's off": what changes a stored fact is worth keeping
    return SentenceScore(text, min(score, 1.0), category, date)


#: what saying a change adds to a sentence's salience
CHANGE_BONUS = 0.15


def _says_a_change(text: str) -> bool:
    changes = lang.CHANGE_MARKER.search(text.lower()) or _STARTED_OR_OFF.search(text)
    return bool(changes) or any(f.kind in _CHANGES for f in fx.parse(text))


def _category(scored: list[SentenceScore]) -> str:
    order = ("preference", "plan", "event", "fact")
    present = {s.category for s in scored}
    return next((c for c in order if c in present), "fact")


def _topics(read: list[str], earlier: Sequence[anaphora.Turn]) -> list[tuple[anaphora.Gap, str] | None]:
    """Per sentence of a message, where it ends something it does not name ("Packed it in")
    and what an earlier turn of the request says that is (anaphora.py), or None."""
    out: list[tuple[anaphora.Gap, str] | None] = []
    for k, text in enumerate(read):
        gap = anaphora.gap_of(text)
        topic = anaphora.topic_before(read[:k], earlier) if gap is not None else None
        out.append((gap, topic) if gap is not None and topic else None)
    return out


def _name_what_is_called_off(fact: dict[str, Any], found: tuple[anaphora.Gap, str] | None) -> None:
    """ "Never happened, the coach cancelled the whole course" after "How was the first
    lesson?": the cancellation carries the topic's words, by which conflicts.py finds the plan."""
    if found is not None and fact.get("kind") == fx.CANCEL:
        words = [*str(fact.get("value") or "").split(), *lang.content_words(found[1])]
        fact["value"] = " ".join(dict.fromkeys(words))


def _said_with_topic(text: str, found: tuple[anaphora.Gap, str] | None, person: bool) -> str:
    return text if found is None else anaphora.with_topic(text, found[1], found[0], person=person)


def draft_from_message(
    message: Message, user_name: str | None = None, earlier: Sequence[anaphora.Turn] = ()
) -> NoteDraft | None:
    """One note from one message, or None when nothing in it is worth remembering. A message
    of the user is written about ``user_name`` when the name is known ("Priya is allergic to
    shellfish", not "The user is allergic to shellfish"). ``earlier``: the turns before it in
    the same request, which lend a change that names nothing its topic."""
    role = message.role.strip().lower()
    if role in NON_FACT_ROLES:
        return None
    bar = KEEP_SCORE + (ASSISTANT_EXTRA if role in ASSISTANT_ROLES else 0.0)
    said = [part for s in lang.sentences(message.content) for part in split_facts(_without_name(s)) if part]
    # what a person says of their own things without "my" is read as if they had said it
    read = said if role in ASSISTANT_ROLES else [with_owner(with_subject(s)) for s in said]
    # a change that names nothing is read as the note will say it, its topic named (anaphora.py)
    topics = _topics(read, earlier)
    person = role not in ASSISTANT_ROLES
    told = [_said_with_topic(text, found, person) for text, found in zip(read, topics, strict=True)]
    scored = [score_sentence(s, message) for s in told]
    for sc, found in zip(scored, topics, strict=True):
        if found is not None and not _says_a_change(sc.text):
            sc.score = min(1.0, sc.score + CHANGE_BONUS)  # "Didn't renew" ends something known: a change
    said_as = {id(sc): (text, found) for sc, text, found in zip(scored, read, topics, strict=True)}
    verbatim = {id(sc): text for sc, text in zip(scored, said, strict=True)}
    kept = [s for s in scored if s.score >= bar]
    if not kept:
        return None
    if len(kept) > MAX_SENTENCES_PER_NOTE:
        best = sorted(kept, key=lambda s: -s.score)[:MAX_SENTENCES_PER_NOTE]
        kept = [s for s in kept if s in best]
    named = user_name if user_name and role == "user" else None
    speaker = named or message.speaker
    keys = {speaker.lower(), message.role.strip().lower(), GENERIC_ROLES.get(role, "").lower()} - {""}
    # facts are read from the words as said: "scrapped it" is a cancellation of what was spoken of
    facts = [
        {**f.to_slot(), "i": i} for i, s in enumerate(kept) for f in fx.parse(said_as[id(s)][0], speaker_keys=keys)
    ]  # fmt: skip
    for fact in facts:
        _name_what_is_called_off(fact, said_as[id(kept[fact["i"]])][1])
    content = " ".join(lang.third_person(s.text, speaker) for s in kept)
    date = next((s.date for s in kept if s.date), None)
    if date and date not in content:
        content = f"{content.rstrip()} ({date})"
    content = content[:MAX_NOTE_CHARS]
    ents = lang.entities(" ".join(s.text for s in kept))
    if role not in GENERIC_ROLES and speaker not in ents:
        ents.insert(0, speaker)
    excerpt = " ".join(verbatim[id(s)].strip() for s in kept)
    return NoteDraft(
        content=content,
        category=_category(kept),
        importance=round(max(s.score for s in kept), 3),
        keywords=lang.keywords(content, limit=8, extra_stop=set(lang.content_words(speaker))),
        entities=ents[:12],
        sources=[message.source_ref(excerpt)],
        event_date=date,
        facts=facts,
        subject_name=named,
    )


def extract_notes(messages: list[Message], user_name: str | None = None) -> list[NoteDraft]:
    """Drafts in conversation order; conflicts between them are resolved later (conflicts.py).
    The user's name is ``user_name``, else the first name the user gives in these messages."""
    name = user_name or names_given(messages)
    drafts = []
    for k, m in enumerate(messages):
        earlier = [anaphora.Turn(p.content, p.role == m.role) for p in messages[max(0, k - anaphora.LOOKBACK) : k]]
        d = draft_from_message(m, name, earlier)
        if d is not None:
            if k > 0:
                _refer_to_previous(d, messages[k - 1])
            drafts.append(d)
    return drafts


def _refer_to_previous(draft: NoteDraft, previous: Message) -> None:
    """ "They scrapped it" answering "How's the big project at work going?": "it" is what the
    turn before spoke of, so an anaphoric cancellation carries that turn's words, by which
    conflicts.py finds the plan it calls off."""
    context = lang.content_words(previous.content)
    for fact in draft.facts:
        if fact.get("relation") == fx.ANAPHORIC and context:
            fact["value"] = " ".join(dict.fromkeys([*str(fact.get("value") or "").split(), *context]))


def agent_note(messages: list[Message]) -> NoteDraft:
    """The fast path's single note: the agent's text as given (it already chose what to
    store), trimmed to the note size, with keywords and entities for search."""
    text = "\n".join(f"{m.content}" if len(messages) == 1 else f"{m.role}: {m.content}" for m in messages)
    content = text if len(text) <= MAX_NOTE_CHARS else text[: MAX_NOTE_CHARS - 1].rstrip() + "…"
    scores = [score_sentence(s, m) for m in messages for s in lang.sentences(m.content)]
    importance = max([s.score for s in scores] + [0.3])
    date = next((s.date for s in scores if s.date), None)
    return NoteDraft(
        content=content,
        category=_category([s for s in scores if s.score > 0]) if any(s.score > 0 for s in scores) else "fact",
        importance=round(min(1.0, importance), 3),
        keywords=lang.keywords(text, limit=8),
        entities=lang.entities(text)[:12],
        sources=[m.source_ref(m.content) for m in messages],
        event_date=date,
    )
