"""What a memory's own text says about who said it and when, for clients that use no slots.

A client that knows docs/retrieval.md writes ``slots.speaker`` and ``slots.event_time``; one
that does not often writes the same facts into the text, the way a transcript shows them:

* ``Caroline: words``
* ``Caroline (1:56 pm on 8 May, 2023): words`` or ``Caroline (2023-05-08): words``
* ``[2023-05-08 13:56] Caroline: words``

This module reads them back, conservatively, so ranking and the embedding context get the same
signals from either client (explicit slots always win; the callers ask these functions only
when a slot is missing):

* the **speaker** is a name of one to three capitalised words (or a single lower-case role
  such as ``user``) at the very start of the text, followed by a colon and a space, with
  nothing but an optional bracketed date before it or between it and the colon. Common labels
  (``Note:``, ``Re:``, ``TODO:``, ``Update:``, ...) are not speakers;
* the **date** is the date in that header; without a header, the one full date (day, month
  and year) the text states, if it states exactly one (a text naming two dates is about more
  than one moment, so it gets none);
* the **body** is the text after the header: what was said, which is what a slot-writing
  client would have written as the text.

Only full dates count (``8 May 2023``, ``May 8, 2023``, ``2023-05-08``, with an optional time
of day): a bare month or weekday dates nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_TIME = r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2}(?:\.\d+)?)?\s*(?P<ampm>[ap]\.?m\.?)?"
_ISO = re.compile(
    r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::\d{2}(?:\.\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?)?\b"
)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b", re.IGNORECASE)
_CLOCK = re.compile(rf"\b{_TIME}", re.IGNORECASE)

#: chat roles a transcript may name in lower case
ROLES = ("user", "assistant", "system", "human", "ai", "bot", "agent", "me")
#: a name: one to three capitalised words (letters, apostrophes, hyphens, dots), or a role
_NAME = r"(?P<name>[A-Z][\w'\-.]*(?:\s[A-Z][\w'\-.]*){0,2}|" + "|".join(ROLES) + ")"
#: ``[date] Name: body``, ``Name (date): body``, ``Name [date]: body``, ``Name: body``
_HEADER = re.compile(
    rf"^\s*(?:\[(?P<lead>[^\]\n]{{4,60}})\]\s*)?{_NAME}\s*(?:[(\[](?P<tail>[^)\]\n]{{4,60}})[)\]])?\s*:\s+(?P<body>\S.*)$",
    re.DOTALL,
)
#: words that start a labelled line rather than a speaker's words (compared lower-cased)
NOT_SPEAKERS = frozenset(
    [
        "note",
        "notes",
        "re",
        "fw",
        "fwd",
        "todo",
        "to-do",
        "update",
        "summary",
        "subject",
        "title",
        "warning",
        "error",
        "info",
        "debug",
        "important",
        "reminder",
        "question",
        "answer",
        "q",
        "a",
        "tip",
        "fact",
        "facts",
        "tl;dr",
        "tldr",
        "ps",
        "p.s",
        "edit",
        "status",
        "action",
        "task",
        "goal",
        "http",
        "https",
        "ftp",
        "mailto",
        "file",
        "url",
        "link",
        "source",
        "date",
        "time",
        "when",
        "where",
        "why",
        "how",
        "what",
        "who",
        "step",
        "example",
        "output",
        "input",
        "result",
        "results",
        "response",
        "request",
        "reply",
        "cc",
        "bcc",
        "from",
        "to",
        "meeting",
        "agenda",
        "shopping",
        "groceries",
        "decision",
        "decisions",
        "context",
        "problem",
        "solution",
        "issue",
        "bug",
        "fix",
        "plan",
        "idea",
        "ideas",
        "preference",
        "preferences",
        "name",
        "email",
        "phone",
        "address",
        "location",
        "birthday",
        "project",
        "deadline",
        "topic",
        "category",
        "type",
        "priority",
        "owner",
        "assignee",
        "tag",
        "tags",
        "memory",
        "observation",
        "conclusion",
        "description",
        "details",
        "detail",
        "comment",
        "comments",
        "correction",
        "clarification",
        "fyi",
        "nb",
        "announcement",
        "addendum",
        "follow-up",
        "followup",
        "aside",
        "disclaimer",
        "hint",
        "caution",
        "attention",
        "notice",
        "alert",
        "change",
        "changes",
        "bugfix",
        "feature",
        "release",
        "version",
        "recap",
        "background",
        "overview",
        "verdict",
        "outcome",
        "progress",
        "next",
        "later",
        "today",
        "tomorrow",
        "yesterday",
        "tonight",
        "weekend",
        "breakfast",
        "lunch",
        "dinner",
        "goals",
        "reminders",
        "appointment",
        "event",
        "call",
        "party",
        "trip",
        "travel",
        "vacation",
        "holiday",
        "work",
        "home",
        "family",
        "health",
        "diet",
        "allergy",
        "allergies",
        "medication",
        "medications",
        "hobby",
        "hobbies",
        "favorite",
        "favourite",
        "likes",
        "dislikes",
        "password",
        "username",
        "account",
        "warnings",
        "caveat",
        "pro",
        "pros",
        "con",
        "cons",
    ]
)


@dataclass(frozen=True, slots=True)
class Header:
    """The speaker and date a text states at its start, and the words after them."""

    speaker: str
    when: datetime | date | None
    body: str


def _clock(match: re.Match[str] | None) -> tuple[int, int] | None:
    if match is None or match.group("hour") is None:
        return None
    hour, minute = int(match.group("hour")), int(match.group("minute"))
    ampm = (match.groupdict().get("ampm") or "").lower().replace(".", "")
    if ampm == "pm" and hour < 12:
        hour += 12
    elif ampm == "am" and hour == 12:
        hour = 0
    return (hour, minute) if hour < 24 and minute < 60 else None


def _dates(text: str) -> list[tuple[int, int, datetime | date]]:
    """Every full date in ``text`` as (start, end, value); a time of day next to it is kept."""
    found: list[tuple[int, int, datetime | date]] = []
    for m in _ISO.finditer(text):
        try:
            day = date(int(m.group("y")), int(m.group("m")), int(m.group("d")))
        except ValueError:
            continue
        clock = _clock(m)
        value: datetime | date = datetime(day.year, day.month, day.day, *clock) if clock else day
        found.append((m.start(), m.end(), value))
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        for m in pattern.finditer(text):
            if any(s <= m.start() < e for s, e, _ in found):
                continue
            try:
                day = date(int(m.group("year")), _MONTHS[m.group("month").lower()], int(m.group("day")))
            except ValueError:
                continue
            found.append((m.start(), m.end(), day))
    return sorted(found, key=lambda f: f[0])


def parse_date(text: str) -> datetime | date | None:
    """The one full date ``text`` states, with its time of day when one is written beside it
    (``1:56 pm on 8 May, 2023``), else ``None`` (no date, or several different ones)."""
    found = _dates(text)
    days = {v.date() if isinstance(v, datetime) else v for _, _, v in found}
    if len(days) != 1:
        return None
    start, end, value = found[0]
    if isinstance(value, date) and not isinstance(value, datetime):
        clock = _clock(_CLOCK.search(text[max(0, start - 20) : start])) or _clock(_CLOCK.search(text[end : end + 12]))
        if clock is not None:
            return datetime(value.year, value.month, value.day, *clock)
    return value


#: texts whose reading is remembered: ranking asks about the same candidates several times
#: per query (speaker, date, episode, time statement) and the same memories across queries
CACHE_SIZE = 8192
#: longer texts are read afresh each time, so the caches hold at most ~2 x 8192 x 2 KB
CACHE_TEXT_MAX = 2000


def header(text: str | None) -> Header | None:
    """The speaker (and date) a text starts with, or ``None`` when it starts with no speaker."""
    if not text:
        return None
    return _header(text) if len(text) <= CACHE_TEXT_MAX else _header.__wrapped__(text)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _header(text: str) -> Header | None:
    m = _HEADER.match(text)
    if m is None:
        return None
    name = m.group("name").strip()
    if name.lower() in NOT_SPEAKERS or name.split()[0].lower() in NOT_SPEAKERS:
        return None
    lead, tail = m.group("lead"), m.group("tail")
    when = None
    for stated in (lead, tail):
        if stated is not None:
            when = parse_date(stated)
            if when is None:
                return None  # a bracket that is not a date: not a transcript header
    return Header(speaker=name, when=when, body=m.group("body").strip())


def stated_speaker(text: str | None) -> str | None:
    """Who the text says is speaking (``Name: ...``), else ``None``."""
    h = header(text)
    return h.speaker if h is not None else None


def stated_when(text: str | None) -> datetime | date | None:
    """When the text says it happened: its header's date, else the one full date it states."""
    if not text:
        return None
    return _stated_when(text) if len(text) <= CACHE_TEXT_MAX else _stated_when.__wrapped__(text)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _stated_when(text: str) -> datetime | date | None:
    h = header(text)
    if h is not None and h.when is not None:
        return h.when
    return parse_date(text)


def stated_day(text: str | None) -> date | None:
    """``stated_when`` as a day."""
    when = stated_when(text)
    return when.date() if isinstance(when, datetime) else when


def body(text: str) -> str:
    """The text without a stated speaker-and-date header: the words themselves."""
    h = header(text)
    return h.body if h is not None else text


def speaker_of(slots: Mapping[str, Any], text: str | None) -> str | None:
    """``slots.speaker`` when the writer gave one (it always wins), else the stated speaker."""
    given = slots.get("speaker")
    if isinstance(given, str) and given.strip():
        return given
    return stated_speaker(text)
