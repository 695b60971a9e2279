"""Small, dependency-free English text rules shared by the offline extractor and summariser.

No model but the embedder is available offline, so salience, negation, dates and entities are
recognised with rules. They are deliberately conservative: a missed fact costs less than a
stored greeting, and the embedder still finds paraphrases at query time.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from datetime import datetime, timedelta
from functools import lru_cache


def wordset(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list, as a set (word lists written as prose)."""
    return frozenset(text.split())


WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)?")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n+")

STOPWORDS = wordset(
    """
    a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't
    she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then
    there there's these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom
    why why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also just
    really so yeah yes oh ok okay well like get got gonna wanna thing things lot lots much many still even
    always never sometimes maybe quite pretty definitely actually totally sure know think feel one
    yesterday today tonight tomorrow week weeks month months year years last next ago weekend morning
    """
)
FILLER = wordset(
    """
    hey hi hello thanks thank you wow cool great awesome nice yeah yes no ok okay lol haha good see bye
    sure totally right amazing glad happy sounds love that's so too congrats congratulations agree true
    aww omg oh wonderful fantastic incredible indeed absolutely exactly hear it was is to and the a me
    """
)
NEGATIONS = wordset(
    """not no never nobody nothing neither nor none cannot can't don't doesn't didn't isn't aren't wasn't
    weren't won't wouldn't shouldn't couldn't mustn't needn't mightn't ain't shan't haven't
    hasn't hadn't anymore"""
)
CHANGE_CUES = wordset("now anymore instead switched moved changed new recently longer became become quit started")
PREFERENCE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|absolutely\s+|just\s+)?(?:love|like|enjoy|prefer|adore|hate|dislike|can't stand)\b"
    r"|\bmy\s+favou?rite\b|\bi'?m\s+(?:a\s+)?(?:big\s+)?fan\s+of\b|\bi'?m\s+(?:into|allergic|vegan|vegetarian)\b",
    re.IGNORECASE,
)
PLAN = re.compile(
    r"\b(?:i|we)(?:'ll|\s+will|\s+am going to|'m going to|\s+are going to|'re going to|'m planning|\s+plan|"
    r"\s+want to|\s+hope to|'d like to|\s+would like to|'m thinking (?:of|about)|\s+intend)\b"
    r"|\bnext\s+(?:week|month|year|weekend|summer|spring|fall|autumn|winter)\b|\btomorrow\b|\bsoon\b",
    re.IGNORECASE,
)
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|our|us)\b", re.IGNORECASE)
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
EXPLICIT_DATE = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + "|".join(calendar.month_name[1:]) + r")(?:,?\s+\d{4})?"
    r"|(?:" + "|".join(calendar.month_name[1:]) + r")\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|(?:in\s+)?(?:" + "|".join(calendar.month_name[1:]) + r")\s+\d{4}"
    r"|(?:in|since|back in)\s+(?:19|20)\d{2}"
    r"|\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
RELATIVE = re.compile(
    r"\b(?P<rel>yesterday|today|tonight|tomorrow|this morning|this afternoon|this evening|"
    r"last night|last weekend|this weekend|next weekend|"
    r"(?:last|this|next)\s+(?:week|month|year|summer|spring|fall|autumn|winter|" + "|".join(calendar.day_name) + r")|"
    r"(?P<num>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+"
    r"(?P<unit>day|week|month|year)s?\s+ago)\b",
    re.IGNORECASE,
)
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a few": 3, "a couple of": 2,
}  # fmt: skip
SEASONS = frozenset({"spring", "summer", "fall", "autumn", "winter"})

#: words that say a statement changes what was true: a closed class of English, unlike the
#: wordings of the facts themselves ("no longer", "anymore", "used to", "switched", "called off")
CHANGE_MARKER = re.compile(
    r"\b(?:no longer|any ?more|not any ?longer|after all|used to|these days|nowadays|switched|instead|quit|"
    r"stopped|gave up|given up|sold|(?:moved|relocated) (?:to|back|out|in|into|away|over)|no more|"
    r"changed (?:my|our|jobs|careers|banks|teams|to|over)|cancel(?:l)?ed|call(?:ed)? (?:it |that |this )?off|"
    r"postponed|pushed (?:back|to)|scrapped|fell through|decided (?:against|not to)|dropped out|backed out|"
    r"bailed|pulled out|(?:got|bought|have|found|started) (?:a |our |my )?new|upgraded|downgraded|traded|"
    r"replaced|retired|graduated|laid off|got fired|broke up|divorced|separated|now that|ever since|"
    r"since (?:i|we|my|our|the)|after (?:the|my|our|i|we)|actually|correction|typo|i meant|"
    r"got (?:it|that|this) wrong|right now|not .{1,40} anymore|now\s*(?:[.!,;]|$))"
)


def words(text: str) -> list[str]:
    return list(_words(text))


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """The words of a text, remembered: conflict resolution reads each earlier note's words
    once per new note it is compared with."""
    return tuple(WORD.findall(text))


def content_words(text: str) -> list[str]:
    """Lower-cased words minus stopwords and negations, lightly stemmed (plural ``s``)."""
    return list(_content_words(text))


@lru_cache(maxsize=4096)
def _content_words(text: str) -> tuple[str, ...]:
    out = []
    for w in words(text.lower()):
        if w.endswith("'s"):
            w = w[:-2]
        w = w.strip("'-")
        if w in STOPWORDS or w in NEGATIONS or len(w) < 2:
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith(("ss", "is", "us")):
            w = w[:-1]
        out.append(w)
    return tuple(out)


#: a sentence never ends at these ("Dr. Okafor", "a nurse at St. Mary's", "Mr. B.")
ABBREVIATION = re.compile(r"(?:^|\s)(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Mt|Ave|Rd|No|vs|etc|approx|e\.g|i\.e)\.$")


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[str, ...]:
    """The sentences of a text, remembered (see :func:`_words`)."""
    out: list[str] = []
    for part in (p.strip() for p in SENTENCE_END.split(text.strip())):
        if not part:
            continue
        if out and ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return tuple(out)


def is_negated(text: str) -> bool:
    return any(w in NEGATIONS for w in words(text.lower()))


def has_change_cue(text: str) -> bool:
    return any(w in CHANGE_CUES for w in words(text.lower()))


def is_filler(text: str) -> bool:
    """Greetings, thanks and reactions: every word is a filler word."""
    ws = words(text.lower())
    return not ws or all(w in FILLER or w in STOPWORDS for w in ws)


def entities(text: str) -> list[str]:
    """Capitalised words and runs that are not sentence-initial, plus any capitalised run of
    two or more words; a rule-based stand-in for named-entity recognition."""
    return list(_entities(text))


@lru_cache(maxsize=4096)
def _entities(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for sent in sentences(text):
        tokens = re.findall(r"[A-Za-z][\w'\-]*|[^\sA-Za-z]", sent)
        run: list[str] = []
        for i, tok in enumerate(tokens):
            capital = tok[:1].isupper() and tok.lower() not in ("i", "i'm", "i've", "i'd", "i'll")
            if capital and (i > 0 or (i + 1 < len(tokens) and tokens[i + 1][:1].isupper())):
                run.append(tok.strip("'"))
                continue
            if run:
                found.append(" ".join(run))
                run = []
        if run:
            found.append(" ".join(run))
    seen: dict[str, str] = {}
    for e in found:
        key = e.lower()
        if key in STOPWORDS or key in MONTHS or key in WEEKDAYS or len(key) < 2:
            continue
        seen.setdefault(key, e)
    return tuple(seen.values())


def keywords(text: str, *, limit: int = 8, extra_stop: set[str] | None = None) -> list[str]:
    counts = Counter(w for w in content_words(text) if not w.isdigit() and w not in (extra_stop or set()))
    return [w for w, _ in counts.most_common(limit)]


def jaccard(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def _fmt_day(d: datetime) -> str:
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


def _shift_months(d: datetime, months: int) -> datetime:
    total = d.year * 12 + (d.month - 1) + months
    year, month = divmod(total, 12)
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return d.replace(year=year, month=month + 1, day=day)


def resolve_relative_date(text: str, at: datetime | None) -> str | None:
    """The first relative time expression in ``text`` as an absolute date, given the time the
    message was sent ("yesterday" said on 8 May 2023 -> "7 May 2023"); explicit dates are
    returned as written. None when the text names no time."""
    explicit = EXPLICIT_DATE.search(text)
    if explicit:
        return re.sub(r"^(?:in|since|back in)\s+", "", explicit.group(0), flags=re.IGNORECASE)
    if at is None:
        return None
    m = RELATIVE.search(text)
    if not m:
        return None
    if m.group("unit"):
        n = NUMBER_WORDS.get(m.group("num").lower()) or int(m.group("num"))
        return _ago(n, m.group("unit").lower(), at)
    rel = m.group(0).lower()
    if rel in ("yesterday", "last night"):
        return _fmt_day(at - timedelta(days=1))
    if rel in ("today", "tonight", "this morning", "this afternoon", "this evening"):
        return _fmt_day(at)
    if rel == "tomorrow":
        return _fmt_day(at + timedelta(days=1))
    if rel.endswith("weekend"):
        return _weekend(rel, at)
    which, unit = rel.split(None, 1)
    return _named_period({"last": -1, "this": 0, "next": 1}[which], unit, at)


def _ago(n: int, unit: str, at: datetime) -> str:
    """ "3 days ago", "two weeks ago", "a month ago", "5 years ago"."""
    if unit == "day":
        return _fmt_day(at - timedelta(days=n))
    if unit == "week":
        return f"the week of {_fmt_day(at - timedelta(weeks=n))}"
    if unit == "month":
        d = _shift_months(at, -n)
        return f"{calendar.month_name[d.month]} {d.year}"
    return str(at.year - n)


def _weekend(rel: str, at: datetime) -> str:
    """ "last/this/next weekend"; said on a weekend, "last weekend" is the one just begun."""
    offset = {"last": -7, "this": 0, "next": 7}[rel.split()[0]]
    saturday = at + timedelta(days=(5 - at.weekday()) + offset)
    if rel.startswith("last") and at.weekday() >= 5:
        saturday = at - timedelta(days=at.weekday() - 5)
    return f"the weekend of {_fmt_day(saturday)}"


def _named_period(step: int, unit: str, at: datetime) -> str:
    """ "last/this/next" (``step`` -1, 0, 1) week, month, year, season or weekday."""
    if unit == "week":
        return f"the week of {_fmt_day(at + timedelta(weeks=step))}"
    if unit == "month":
        d = _shift_months(at, step)
        return f"{calendar.month_name[d.month]} {d.year}"
    if unit == "year":
        return str(at.year + step)
    if unit in SEASONS:
        return f"{unit} {at.year + step}"
    target = WEEKDAYS[unit]
    if step < 0:
        return _fmt_day(at - timedelta(days=(at.weekday() - target) % 7 or 7))
    return _fmt_day(at + timedelta(days=(target - at.weekday()) % 7 or 7))


#: "Tariq and I", "my husband and I", "I and my brother": a plural subject, whose verb is not
#: conjugated (not "we met and I fell", where "I" begins a clause of its own)
_COMPOUND_I = re.compile(r"\b(?P<other>(?:[A-Z][a-z]+|[Mm]y \w+) and )I\b|\bI(?= and (?:[A-Z][a-z]+|my \w+)\b)")
#: "I" before a negative contraction, as the third person says it: the negation is kept whole
#: ("I haven't" -> "has not" would do too, but the speaker's own word reads better)
_NEGATIVE_REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bI\s+(?:don['\u2019]t|do not)\b", re.IGNORECASE), "{N} doesn't"),
    (re.compile(r"\bI\s+haven['\u2019]t\b", re.IGNORECASE), "{N} hasn't"),
    (re.compile(r"\bI\s+(?:aren|ain)['\u2019]t\b", re.IGNORECASE), "{N} isn't"),
    (re.compile(r"\bI\s+weren['\u2019]t\b", re.IGNORECASE), "{N} wasn't"),
]
_FIRST_PERSON_REWRITES: list[tuple[re.Pattern[str], str]] = [
    *_NEGATIVE_REWRITES,
    (re.compile(r"\bI['\u2019]m\b|\bI am\b", re.IGNORECASE), "{N} is"),
    (re.compile(r"\bI['\u2019]ve\b|\bI have\b", re.IGNORECASE), "{N} has"),
    (re.compile(r"\bI['\u2019]d\b", re.IGNORECASE), "{N} would"),
    (re.compile(r"\bI['\u2019]ll\b", re.IGNORECASE), "{N} will"),
    (re.compile(r"\bI do\b", re.IGNORECASE), "{N} does"),
    (re.compile(r"\bI was\b", re.IGNORECASE), "{N} was"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "{N}"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "{N}'s"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "{N}'s"),
    (re.compile(r"(?<![\w'.@/-])me\b(?![.@/][\w])", re.IGNORECASE), "{N}"),
]
_I_VERB = re.compile(
    r"\bI\s+((?:(?:really|also|just|usually|always|often|still|now|never|actually|finally|recently|mostly|"
    r"sometimes|rarely|even|already|only|currently|honestly|definitely|totally|barely|hardly|no longer|"
    r"seldom|normally|generally|mainly|basically|literally|probably)\s+)*)([a-z]+)\b(?!['\u2019])"
)
_LONE_I = re.compile(r"\bI\b")
#: words after "I" that are not a present-tense verb to conjugate: modals, past forms, conjunctions
_KEEP_FORM = wordset(
    """can could will would shall should may might must was were did had went got made took came saw said
    told felt thought knew bought brought found gave left lost met paid put ran sat sent spent stood taught
    understood won wrote began became broke chose drove ate fell flew forgot grew heard held kept rode are
    sang slept spoke swam wore quit let set cut hit and or but too as in at to with for of myself alone used
    meant built dealt lent burnt learnt dreamt lit led fed fled shot stuck struck hung swung dug spun drank
    rang sank tore"""
)
_CONJUGATE = {"have": "has", "do": "does", "go": "goes", "am": "is", "be": "is"}


def _third_person(verb: str) -> str:
    """The third-person present of a verb that follows "I" ("avoid" -> "avoids", "take" ->
    "takes"); past forms and modals stay as they are."""
    if verb in _KEEP_FORM or verb.endswith("ed"):
        return verb
    if verb in _CONJUGATE:
        return _CONJUGATE[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str, name: str) -> str:
    """Rewrite what a speaker says about themself as a statement about them:
    "I love my dog" said by Caroline -> "Caroline loves Caroline's dog". Crude grammar, but a
    note must stand on its own when it is recalled out of the conversation."""
    out = _COMPOUND_I.sub(lambda m: f"{m.group('other') or ''}{name}", text)
    for pattern, repl in _FIRST_PERSON_REWRITES:
        out = pattern.sub(repl.replace("{N}", name), out)

    def verb(m: re.Match[str]) -> str:
        adverbs, v = m.group(1), m.group(2)
        return f"{name} {adverbs}{_third_person(v)}"

    out = _LONE_I.sub(name, _I_VERB.sub(verb, out))
    return out[:1].upper() + out[1:]
