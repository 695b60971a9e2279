"""The offline extractor: conversation messages -> memory note drafts, with no model at all.

It is the default when no LLM is configured. Each message's salient sentences (first-person
facts, preferences, plans, dated events, sentences naming entities) become one note, rewritten
in the third person so it stands on its own ("I went there yesterday" said by Caroline on
8 May 2023 -> "Caroline went there yesterday (7 May 2023)."). Greetings, reactions and
questions are dropped. Every draft cites the message it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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


def score_sentence(sentence: str, message: Message) -> SentenceScore:
    """Salience in [0, 1] and the kind of memory the sentence holds."""
    text = sentence.strip()
    if not text or text.endswith("?") or lang.is_filler(text):
        return SentenceScore(text, 0.0, "none", None)
    cw = lang.content_words(text)
    if len(cw) < 2:
        return SentenceScore(text, 0.0, "none", None)
    score = 0.15 + min(len(cw), 8) * 0.03
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
    if lang.entities(text):
        score += 0.1
    if re.search(r"\d", text):
        score += 0.05
    return SentenceScore(text, min(score, 1.0), category, date)


def _category(scored: list[SentenceScore]) -> str:
    order = ("preference", "plan", "event", "fact")
    present = {s.category for s in scored}
    return next((c for c in order if c in present), "fact")


def draft_from_message(message: Message) -> NoteDraft | None:
    """One note from one message, or None when nothing in it is worth remembering."""
    role = message.role.strip().lower()
    if role in NON_FACT_ROLES:
        return None
    bar = KEEP_SCORE + (ASSISTANT_EXTRA if role in ASSISTANT_ROLES else 0.0)
    scored = [score_sentence(s, message) for s in lang.sentences(message.content)]
    kept = [s for s in scored if s.score >= bar]
    if not kept:
        return None
    if len(kept) > MAX_SENTENCES_PER_NOTE:
        best = sorted(kept, key=lambda s: -s.score)[:MAX_SENTENCES_PER_NOTE]
        kept = [s for s in kept if s in best]
    speaker = message.speaker
    content = " ".join(lang.third_person(s.text, speaker) for s in kept)
    date = next((s.date for s in kept if s.date), None)
    if date and date not in content:
        content = f"{content.rstrip()} ({date})"
    content = content[:MAX_NOTE_CHARS]
    ents = lang.entities(" ".join(s.text for s in kept))
    if role not in GENERIC_ROLES and speaker not in ents:
        ents.insert(0, speaker)
    excerpt = " ".join(s.text for s in kept)
    return NoteDraft(
        content=content,
        category=_category(kept),
        importance=round(max(s.score for s in kept), 3),
        keywords=lang.keywords(content, limit=8, extra_stop=set(lang.content_words(speaker))),
        entities=ents[:12],
        sources=[message.source_ref(excerpt)],
        event_date=date,
    )


def extract_notes(messages: list[Message]) -> list[NoteDraft]:
    """Drafts in conversation order; conflicts between them are resolved later (conflicts.py)."""
    drafts = []
    for m in messages:
        d = draft_from_message(m)
        if d is not None:
            drafts.append(d)
    return drafts


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
