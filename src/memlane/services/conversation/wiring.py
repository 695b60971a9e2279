"""The conversation services, built from what they need, and their job handlers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memlane.domain.clock import Clock
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_BATCHER_IDLE,
    CONVERSATION_INGEST,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.jobs.worker import Handler
from memlane.llm.client import ChatClient
from memlane.services.conversation.batcher import BatcherService
from memlane.services.conversation.ingestion import IngestionService
from memlane.services.conversation.intake import ConversationIntake
from memlane.services.conversation.memories import MemoryService
from memlane.services.conversation.pipeline import LLMPipeline
from memlane.services.conversation.summaries import Summarizer
from memlane.services.conversation.tasks import TaskService
from memlane.services.conversation.webhook_targets import TargetPolicy
from memlane.services.conversation.webhooks import SummaryCallbacks
from memlane.services.embedding import EmbeddingService
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteService
from memlane.store.batcher import BatcherStore
from memlane.store.contracts import Store


@dataclass(frozen=True, slots=True)
class ConversationConfig:
    """The conversation features' limits: the conversation settings of the same names, which
    the container reads (services never read Settings)."""

    max_messages: int
    recency_half_life_days: float
    close_by_succession: bool
    webhook_timeout_sec: float
    webhook_allowed_hosts: str
    batcher_batch_size: int
    batcher_idle_timeout_sec: float
    job_max_attempts: int


@dataclass
class ConversationServices:
    intake: ConversationIntake
    ingestion: IngestionService
    memories: MemoryService
    tasks: TaskService
    summarizer: Summarizer
    callbacks: SummaryCallbacks
    batcher: BatcherService

    def handlers(self) -> dict[str, Handler]:
        return {
            CONVERSATION_INGEST: self.ingestion.run_ingest,
            CONVERSATION_AGENT_MEMORY: self.ingestion.run_agent_memory,
            CONVERSATION_SUMMARY_CALLBACK: self.callbacks.run,
            CONVERSATION_BATCHER_IDLE: self.batcher.run_idle_flush,
        }


def build_conversation(
    *,
    store: Store,
    reader: MemoryReader,
    embedding: EmbeddingService,
    writes: WriteService,
    config: ConversationConfig,
    clock: Clock,
    llm: ChatClient | None,
    notify: Callable[[], None] | None = None,
) -> ConversationServices:
    """The LLM pipeline runs when an LLM client is configured (the process's one client, so its
    concurrency cap and rate limit hold for the whole process); the offline extractor otherwise."""
    pipeline = LLMPipeline(llm) if llm is not None else None
    summarizer = Summarizer(clock=clock, pipeline=pipeline)
    tasks = TaskService(store=store, clock=clock, max_attempts=config.job_max_attempts, notify=notify)
    callbacks = SummaryCallbacks(
        store=store,
        clock=clock,
        summarizer=summarizer,
        timeout_sec=config.webhook_timeout_sec,
        targets=TargetPolicy.from_setting(config.webhook_allowed_hosts),
    )
    return ConversationServices(
        intake=ConversationIntake(
            tasks=tasks,
            summarizer=summarizer,
            callbacks=callbacks,
            clock=clock,
            max_messages=config.max_messages,
        ),
        ingestion=IngestionService(
            store=store,
            reader=reader,
            embedding=embedding,
            writes=writes,
            clock=clock,
            pipeline=pipeline,
            close_by_succession=config.close_by_succession,
        ),
        memories=MemoryService(
            store=store,
            reader=reader,
            embedding=embedding,
            writes=writes,
            clock=clock,
            half_life_days=config.recency_half_life_days,
        ),
        tasks=tasks,
        summarizer=summarizer,
        callbacks=callbacks,
        batcher=BatcherService(
            store=BatcherStore(store),
            tasks=tasks,
            clock=clock,
            batch_size=config.batcher_batch_size,
            idle_timeout_sec=config.batcher_idle_timeout_sec,
            max_attempts=config.job_max_attempts,
            max_messages=config.max_messages,
        ),
    )
