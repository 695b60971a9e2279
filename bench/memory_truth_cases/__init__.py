"""The cases of bench/memory_truth.py: facts that change, facts that only add, pairs for
consolidation and memories that expire, written for this project (none comes from a dataset).

Each case has a stable id and belongs to the ``tune`` or the ``untouched`` split, by a rule fixed
before any rule of memory was changed (catalog.py): within each group of cases (each kind of
update, the additive cases, the opposite pairs, the paraphrase pairs, the expiring memories),
the cases are ordered by the sha256 of their id and every third one, starting with the first,
is ``untouched``. Whoever works on the memory rules tunes on ``tune`` only; ``untouched`` says
whether the work generalises. The report prints a fingerprint of the untouched ids, so a
changed split shows.

How a note is recognised: a :class:`Fact` is a set of regular expressions (case-insensitive)
that must all match one sentence of the note, and others none of which may match it. A term
that begins with a letter or a digit matches from the start of a word ("peanut" matches
"peanuts", "Jen\\b" matches "Jen" and not "Jenna"). Matching sentence by sentence means that a
note that says the old value and the new one in two sentences ("lives in Porto. moved to
Lisbon") still states the old fact, while "moved to Lisbon, doesn't live in Porto anymore" does
not. :func:`check_cases` holds the data to that: each fact is said in the conversation where the
case says, and the stale one is never said again after the update.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: a negation, in any of the forms the conversation or its third-person rewrite may use
NEG = r"(?:\b(?:not|never|no longer|no more|no|none|nor|without)\b|n't\b)"

SPLITS = ("tune", "untouched")
UPDATE_KINDS = ("negation", "replacement", "correction", "cancellation", "implication")

#: a line of a session: the person's own words, or ``(role, words)`` for anyone else
Line = str | tuple[str, str]

_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|St|Mt|Prof|vs|etc)\.$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """Sentences of a note or a message; "Dr. Okafor" stays one sentence."""
    out: list[str] = []
    for part in _SENTENCE_END.split(text.strip()):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        elif part:
            out.append(part)
    return out


def _term(pattern: str) -> re.Pattern[str]:
    body = rf"\b(?:{pattern})" if pattern[:1].isalnum() else pattern
    return re.compile(body, re.IGNORECASE)


@dataclass(frozen=True)
class Fact:
    """What one sentence must say (every ``all`` term) and must not say (no ``none`` term)."""

    all: tuple[str, ...]
    none: tuple[str, ...] = ()
    _all: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _none: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_all", tuple(_term(t) for t in self.all))
        object.__setattr__(self, "_none", tuple(_term(t) for t in self.none))

    def in_sentence(self, sentence: str) -> bool:
        return all(p.search(sentence) for p in self._all) and not any(p.search(sentence) for p in self._none)

    def stated_in(self, text: str) -> bool:
        return any(self.in_sentence(s) for s in sentences(text))

    def describe(self) -> str:
        out = " & ".join(self.all)
        return f"{out} & not ({' | '.join(self.none)})" if self.none else out


def f(*terms: str, none: Sequence[str] = ()) -> Fact:
    return Fact(tuple(terms), tuple(none))


def states(text: str, facts: Iterable[Fact]) -> bool:
    """Whether a note states any of the facts."""
    return any(fact.stated_in(text) for fact in facts)


@dataclass(frozen=True)
class Question:
    """A question and how to recognise the current fact's note and the stale fact's note."""

    text: str
    current: tuple[Fact, ...]
    stale: tuple[Fact, ...] = ()


def _facts(x: Fact | Sequence[Fact]) -> tuple[Fact, ...]:
    return (x,) if isinstance(x, Fact) else tuple(x)


def q(text: str, current: Fact | Sequence[Fact], stale: Fact | Sequence[Fact] = ()) -> Question:
    return Question(text, _facts(current), _facts(stale))


@dataclass(frozen=True)
class Conversation:
    """Sessions of one person's chat, each sent as one ``POST /api/v1/memories``."""

    id: str
    sessions: tuple[tuple[Line, ...], ...]
    speaker: str = "user"
    user_id: str = ""

    def role_of(self, line: Line) -> str:
        return self.speaker if isinstance(line, str) else line[0]

    @staticmethod
    def words_of(line: Line) -> str:
        return line if isinstance(line, str) else line[1]


@dataclass(frozen=True)
class UpdateCase(Conversation):
    """A fact that changes. ``also_new``: facts said in the same message as the update, which
    must be kept as well (only their ``current`` is used)."""

    kind: str = ""
    questions: tuple[Question, ...] = ()
    also_new: tuple[Question, ...] = ()


@dataclass(frozen=True)
class AdditiveQuestion:
    text: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class AdditiveCase(Conversation):
    """Facts that only add: every one must stay active and be found."""

    questions: tuple[AdditiveQuestion, ...] = ()


@dataclass(frozen=True)
class MemoryText:
    title: str | None
    summary: str | None


@dataclass(frozen=True)
class ConsolidationPair:
    """Two graph nodes in a scope of their own, the older written first. ``opposite`` pairs must
    never merge; ``paraphrase`` pairs say the same thing and should. ``change`` says how an
    opposite pair differs (negation, antonym, number, name, place, date) and ``where`` in which
    field (title, summary, both)."""

    id: str
    kind: str
    change: str
    where: str
    older: MemoryText
    newer: MemoryText
    node_type: str = "event"


@dataclass(frozen=True)
class ExpiringMemory:
    """A memory that stops being true a moment after it is written.

    ``surface``: how it is written (``layered``: ``POST /v1/layers/write``; ``graph``: ``POST
    /v1/memory/write``; ``tool``: the ``memory_add`` tool). ``ends_by``: ``expiry`` (layered
    ``metadata.expiry``, the tool's ``metadata.expiresAt``) or ``invalid_at`` (the interval's
    end)."""

    id: str
    surface: str
    ends_by: str
    content: str
    query: str
    title: str | None = None
    layer: str | None = None
    scope: str = "default"
    task_id: str | None = None
    node_type: str = "event"


def update(
    case_id: str,
    kind: str,
    sessions: Sequence[Sequence[Line]],
    questions: Sequence[Question],
    *,
    also_new: Sequence[Question] = (),
    speaker: str = "user",
    user_id: str = "",
) -> UpdateCase:
    return UpdateCase(
        id=case_id,
        sessions=tuple(tuple(s) for s in sessions),
        speaker=speaker,
        user_id=user_id or speaker.lower(),
        kind=kind,
        questions=tuple(questions),
        also_new=tuple(also_new),
    )


def additive(
    case_id: str,
    sessions: Sequence[Sequence[Line]],
    questions: Sequence[tuple[str, Sequence[Fact]]],
    *,
    speaker: str = "user",
    user_id: str = "",
) -> AdditiveCase:
    return AdditiveCase(
        id=case_id,
        sessions=tuple(tuple(s) for s in sessions),
        speaker=speaker,
        user_id=user_id or speaker.lower(),
        questions=tuple(AdditiveQuestion(text, tuple(facts)) for text, facts in questions),
    )


#: :func:`additive` under a name no submodule shadows: once additive.py is imported,
#: ``bench.memory_truth_cases.additive`` is that module, not this function
additive_case = additive


def assistant(words: str) -> tuple[str, str]:
    return ("assistant", words)


# --- checks of the data itself -------------------------------------------------------------
def _sentences_by_session(case: Conversation) -> list[list[tuple[int, str]]]:
    """Per session, (line index, sentence) for every sentence of every line."""
    out = []
    for session in case.sessions:
        rows = [(i, s) for i, line in enumerate(session) for s in sentences(Conversation.words_of(line))]
        out.append(rows)
    return out


def _check_update(case: UpdateCase) -> list[str]:
    problems = []
    if case.kind not in UPDATE_KINDS:
        problems.append(f"{case.id}: kind {case.kind!r} is none of {UPDATE_KINDS}")
    if not case.questions:
        problems.append(f"{case.id}: no question")
    by_session = _sentences_by_session(case)
    first_update = len(case.sessions)
    for question in case.questions:
        where = [n for n, rows in enumerate(by_session) if any(states(s, question.current) for _, s in rows)]
        if not where:
            problems.append(f"{case.id}: no sentence states the current fact of {question.text!r}")
            continue
        u = where[0]
        first_update = min(first_update, u)
        if u == 0:
            problems.append(f"{case.id}: the current fact of {question.text!r} is said in the first session")
        if not question.stale:
            problems.append(f"{case.id}: {question.text!r} has no stale fact")
            continue
        if not any(states(s, question.stale) for rows in by_session[:u] for _, s in rows):
            problems.append(f"{case.id}: the stale fact of {question.text!r} is not said before the update")
        for rows in by_session[u:]:
            for _, s in rows:
                if states(s, question.stale):
                    problems.append(f"{case.id}: after the update, {s!r} still states the stale fact")
    for extra in case.also_new:
        found = False
        for n, session in enumerate(case.sessions):
            for line in session:
                words = Conversation.words_of(line)
                if states(words, extra.current):
                    if n < first_update:
                        problems.append(f"{case.id}: new fact {extra.text!r} is said before the update")
                    found = found or any(states(words, qu.current) for qu in case.questions)
        if not found:
            problems.append(f"{case.id}: new fact {extra.text!r} is not in the same message as an update")
    return problems


def _check_additive(case: AdditiveCase) -> list[str]:
    problems = []
    by_session = _sentences_by_session(case)
    for question in case.questions:
        sessions_used = set()
        for fact in question.facts:
            where = [n for n, rows in enumerate(by_session) if any(fact.in_sentence(s) for _, s in rows)]
            if not where:
                problems.append(f"{case.id}: no sentence states {fact.describe()} ({question.text!r})")
            sessions_used.update(where[:1])
        if len(question.facts) > 1 and len(sessions_used) < 2:
            problems.append(f"{case.id}: the facts of {question.text!r} are all said in one session")
    return problems


def check_cases(
    updates: Sequence[UpdateCase],
    additives: Sequence[AdditiveCase],
    pairs: Sequence[ConsolidationPair],
    expiring: Sequence[ExpiringMemory],
) -> list[str]:
    """What is wrong with the case data (empty when nothing): unique ids, facts said where the
    case says, the stale fact never said again after its update."""
    problems: list[str] = []
    ids = [u.id for u in updates] + [a.id for a in additives] + [p.id for p in pairs] + [e.id for e in expiring]
    problems += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    for u in updates:
        problems += _check_update(u)
    for a in additives:
        problems += _check_additive(a)
    for p in pairs:
        if p.kind not in ("opposite", "paraphrase") or p.where not in ("title", "summary", "both"):
            problems.append(f"{p.id}: kind {p.kind!r} / where {p.where!r}")
    for e in expiring:
        if e.surface not in ("layered", "graph", "tool") or e.ends_by not in ("expiry", "invalid_at"):
            problems.append(f"{e.id}: surface {e.surface!r} / ends_by {e.ends_by!r}")
    return problems
