"""Conversation summaries: the summarizer agent when an LLM is configured, else an extractive
summariser that picks the most salient sentences.

Both return the same fields: ``summary``, ``key_points`` (a string of "- " lines, as the spec's
example shows a string), ``tags``, ``keywords``, ``semantic_queries``, ``metadata``
(``conversation_complexity`` 1-5, message and speaker counts, which generator ran) and
``generated_at``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso
from memlane.llm.structured import CallBudget, ask
from memlane.services.conversation import agents
from memlane.services.conversation import language as lang
from memlane.services.conversation.extractor import score_sentence
from memlane.services.conversation.messages import NON_FACT_ROLES, RAW_TEXT_ROLE, Message
from memlane.services.conversation.pipeline import LLMPipeline

SUMMARY_SENTENCES = 3
KEY_POINTS = 5
#: a sync summary may use one call and one corrective retry
SUMMARY_CALLS = 2


def complexity(messages: list[Message]) -> int:
    """1 (a line or two) to 5 (long, many speakers, wide vocabulary)."""
    speakers = {m.role for m in messages}
    vocabulary = {w for m in messages for w in lang.content_words(m.content)}
    return 1 + sum((len(messages) > 5, len(messages) > 15, len(speakers) > 2, len(vocabulary) > 150))


class SummaryView(TypedDict):
    """A conversation's summary, as answered (``POST /api/v1/agent/summaries``) or delivered
    to the callback; the route adds who the conversation was of."""

    summary: str
    key_points: str
    tags: list[str]
    keywords: list[str]
    semantic_queries: list[str]
    metadata: dict[str, Any]
    generated_at: str | None


class Summarizer:
    def __init__(self, *, clock: Clock, pipeline: LLMPipeline | None):
        self.clock = clock
        self.pipeline = pipeline

    async def summarize(self, messages: list[Message], *, budget: CallBudget | None = None) -> SummaryView:
        if self.pipeline is None:
            return self.extractive(messages)
        budget = budget or CallBudget(SUMMARY_CALLS)
        out = await ask(
            self.pipeline.client,
            agents.SummaryOutput,
            agent="summarizer",
            system=agents.SUMMARIZER_SYSTEM,
            user=agents.conversation_prompt(messages, user_id=None),
            budget=budget,
        )
        return {
            "summary": out.summary,
            "key_points": "\n".join(f"- {p}" for p in out.key_points),
            "tags": out.tags,
            "keywords": out.keywords,
            "semantic_queries": out.semantic_queries,
            "metadata": self._metadata(messages, out.conversation_complexity, "llm", self.pipeline.model),
            "generated_at": iso(self.clock.now()),
        }

    def extractive(self, messages: list[Message]) -> SummaryView:
        """Top sentences by salience plus how central their words are to the conversation."""
        spoken = [m for m in messages if m.role.strip().lower() not in NON_FACT_ROLES] or messages
        freq = Counter(w for m in spoken for w in lang.content_words(m.content))
        ranked: list[tuple[float, int, str, str]] = []
        position = 0
        for m in spoken:
            for sent in lang.sentences(m.content):
                position += 1
                s = score_sentence(sent, m)
                if s.score <= 0:
                    continue
                words = lang.content_words(sent)
                centrality = sum(freq[w] for w in set(words)) / (max(freq.values()) * max(len(set(words)), 1))
                rewritten = sent if m.role == RAW_TEXT_ROLE else lang.third_person(sent, m.speaker)
                if s.date and s.date not in rewritten:
                    rewritten = f"{rewritten.rstrip()} ({s.date})"
                ranked.append((s.score + 0.5 * centrality, position, rewritten, s.category))
        best = sorted(ranked, key=lambda r: (-r[0], r[1]))
        chosen = sorted(best[:SUMMARY_SENTENCES], key=lambda r: r[1])
        if chosen:
            summary = " ".join(r[2] for r in chosen)
        else:
            first = spoken[0] if spoken else None
            summary = f"{first.speaker[:1].upper()}{first.speaker[1:]}: {first.content}"[:500] if first else ""
        text = "\n".join(m.content for m in spoken)
        keywords = lang.keywords(text, limit=10)
        ents = lang.entities(text)
        categories = [c for c in ("preference", "plan", "event") if any(r[3] == c for r in best)]
        queries = []
        for r in best[:3]:
            words = lang.content_words(r[2])
            if words:
                queries.append(" ".join(dict.fromkeys(words[:6])))
        return {
            "summary": summary,
            "key_points": "\n".join(f"- {r[2]}" for r in sorted(best[:KEY_POINTS], key=lambda r: r[1])),
            "tags": list(dict.fromkeys([*(e.lower() for e in ents[:3]), *categories]))[:8],
            "keywords": keywords,
            "semantic_queries": list(dict.fromkeys(queries)),
            "metadata": self._metadata(messages, complexity(messages), "extractive", None),
            "generated_at": iso(self.clock.now()),
        }

    @staticmethod
    def _metadata(messages: list[Message], level: int, generator: str, model: str | None) -> dict[str, Any]:
        return {
            "conversation_complexity": level,
            "message_count": len(messages),
            "speakers": sorted({m.role for m in messages}),
            "generator": generator,
            "model": model,
        }
