"""Per-node boosts from the query: named entities and the period a question is about."""

from __future__ import annotations

from dataclasses import dataclass

from memlane.domain.model import Node
from memlane.domain.text_signals import speaker_of
from memlane.services.ranking.config import RankingConfig
from memlane.services.ranking.query_text import mentioned_any, words
from memlane.services.ranking.temporal import Period, memory_day, query_period


def node_names(n: Node) -> list[str]:
    """Who a memory is from or about: ``slots.speaker`` (str; else the speaker its text states)
    and ``slots.entities`` (list of str)."""
    names: list[str] = []
    speaker = speaker_of(n.slots, n.text)
    if speaker is not None:
        names.append(speaker)
    entities = n.slots.get("entities")
    if isinstance(entities, list):
        names.extend(e for e in entities if isinstance(e, str) and e.strip())
    return names


@dataclass(frozen=True, slots=True)
class QuerySignals:
    """What the query text says beyond its embedding; empty when there is no text."""

    config: RankingConfig
    query_words: frozenset[str]
    period: Period | None

    @classmethod
    def of(cls, text: str | None, config: RankingConfig) -> QuerySignals:
        if not text:
            return cls(config, frozenset(), None)
        period = query_period(text) if config.time else None
        return cls(config, frozenset(words(text)) if config.entity else frozenset(), period)

    @property
    def active(self) -> bool:
        return bool(self.query_words) or self.period is not None

    def factor(self, n: Node) -> float:
        """Multiplier >= 1 for a node: ``(1 + entity_boost)`` if the query names its speaker or
        an entity, times ``(1 + time_boost x closeness)`` if the query names a period."""
        entity, time = self.boosts(n)
        return entity * time

    def boosts(self, n: Node) -> tuple[float, float]:
        """The two factors of ``factor``, apart: ``(entity, time)``, each 1.0 when it does not apply."""
        entity = time = 1.0
        if self.query_words and self.config.entity_boost > 0 and mentioned_any(self.query_words, node_names(n)):
            entity = 1.0 + self.config.entity_boost
        if self.period is not None and self.config.time_boost > 0:
            day = memory_day(n.slots, n.created_at, n.text)
            if day is not None:
                time = 1.0 + self.config.time_boost * self.period.closeness(day, self.config.time_scale_days)
        return entity, time
