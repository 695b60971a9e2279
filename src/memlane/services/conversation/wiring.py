"""The conversation services, built from what they need, and their job handlers."""

from __future__ import annotations

from dataclasses import dataclass

from memlane.config import Settings
from memlane.domain.clock import Clock
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_INGEST,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.jobs.worker import Handler
from memlane.llm.client import ChatClient
from memlane.services.conversation.ingestion import IngestionService
from memlane.services.conversation.memories import MemoryService
from memlane.services.conversation.pipeline import LLMPipeline
from memlane.services.conversation.summaries import Summarizer
from memlane.services.conversation.tasks import TaskService
from memlane.services.conversation.webhook_targets import TargetPolicy
from memlane.services.conversation.webhooks import SummaryCallbacks
from memlane.services.embedding import EmbeddingService
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteService
from memlane.store.base import Store


@dataclass
class ConversationServices:
    ingestion: IngestionService
    memories: MemoryService
    tasks: TaskService
    summarizer: Summarizer
    callbacks: SummaryCallbacks

    def handlers(self) -> dict[str, Handler]:
        return {
            CONVERSATION_INGEST: self.ingestion.run_ingest,
            CONVERSATION_AGENT_MEMORY: self.ingestion.run_agent_memory,
            CONVERSATION_SUMMARY_CALLBACK: self.callbacks.run,
        }


def build_conversation(
    *,
    store: Store,
    reader: MemoryReader,
    embedding: EmbeddingService,
    writes: WriteService,
    settings: Settings,
    clock: Clock,
    llm: ChatClient | None,
    notify: object = None,
) -> ConversationServices:
    """The LLM pipeline runs when an LLM client is configured (the process's one client, so its
    concurrency cap and rate limit hold for the whole process); the offline extractor otherwise."""
    pipeline = LLMPipeline(llm) if llm is not None else None
    summarizer = Summarizer(clock=clock, pipeline=pipeline)
    return ConversationServices(
        ingestion=IngestionService(
            store=store, reader=reader, embedding=embedding, writes=writes, clock=clock, pipeline=pipeline
        ),
        memories=MemoryService(
            store=store,
            reader=reader,
            embedding=embedding,
            writes=writes,
            clock=clock,
            half_life_days=settings.recency_half_life_days,
        ),
        tasks=TaskService(store=store, clock=clock, max_attempts=settings.job_max_attempts, notify=notify),
        summarizer=summarizer,
        callbacks=SummaryCallbacks(
            store=store,
            clock=clock,
            summarizer=summarizer,
            timeout_sec=settings.webhook_timeout_sec,
            targets=TargetPolicy.from_setting(settings.webhook_allowed_hosts),
        ),
    )
