"""Time awareness: when a memory happened, and which period a question is about.

A memory carries its time in ``slots.event_time`` (ISO-8601 date or date-time, set by the
writer: a conversation turn's session date, an event's date); without it, ``created_at``
stands in. A question that names a date ("on 9 November, 2022", "in May 2023", "in 2022")
favours memories from that period; questions without an explicit date are left alone.
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from memlane.domain.text_signals import stated_day

_MONTHS: dict[str, int] = {}
for _i in range(1, 13):
    _MONTHS[calendar.month_name[_i].lower()] = _i
    _MONTHS[calendar.month_abbr[_i].lower()] = _i
_MONTHS["sept"] = 9
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s*{_YEAR}\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s*{_YEAR}\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR_ONLY = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")


@dataclass(frozen=True, slots=True)
class Period:
    """An inclusive range of days named by a question."""

    start: date
    end: date

    def distance_days(self, day: date) -> int:
        if day < self.start:
            return (self.start - day).days
        if day > self.end:
            return (day - self.end).days
        return 0

    def closeness(self, day: date, scale_days: float) -> float:
        """1.0 inside the period, decaying exponentially with days outside it."""
        if scale_days <= 0:
            return 1.0 if self.distance_days(day) == 0 else 0.0
        return math.exp(-self.distance_days(day) / scale_days)


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def query_period(text: str) -> Period | None:
    """The first explicit date a question names, most specific form first; ``None`` if none."""
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        m = pattern.search(text)
        if m:
            day_s, month_s = (m.group(1), m.group(2)) if order == "dmy" else (m.group(2), m.group(1))
            d = _day(int(m.group(3)), _MONTHS[month_s.lower().rstrip(".")], int(day_s))
            if d is not None:
                return Period(d, d)
    m = _ISO_DATE.search(text)
    if m:
        d = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d is not None:
            return Period(d, d)
    m = _MONTH_YEAR.search(text)
    if m:
        year, month = int(m.group(2)), _MONTHS[m.group(1).lower().rstrip(".")]
        return Period(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))
    m = _YEAR_ONLY.search(text)
    if m:
        year = int(m.group(1))
        return Period(date(year, 1, 1), date(year, 12, 31))
    return None


def parse_event_time(value: Any) -> date | None:
    """``slots.event_time`` as a day: ISO-8601 date or date-time (``Z`` allowed), else ``None``."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.date()


#: slots that date a memory, first found wins: the documented ``event_time``, then what the
#: conversation surface writes on its notes (the date the note's event happened, then when its
#: latest source message was said)
DATING_SLOTS = ("event_time", "event_date", "occurred_at")


def memory_day(slots: dict[str, Any], created_at: datetime | None, text: str | None = None) -> date | None:
    """When a memory happened: the first of ``DATING_SLOTS`` that parses, else the date its text
    states (domain/text_signals.py: a client that writes no slots), else when it was written."""
    for key in DATING_SLOTS:
        day = parse_event_time(slots.get(key))
        if day is not None:
            return day
    day = stated_day(text)
    if day is not None:
        return day
    if created_at is None:
        return None
    if created_at.tzinfo is not None:
        created_at = created_at.astimezone(UTC)
    return created_at.date()
