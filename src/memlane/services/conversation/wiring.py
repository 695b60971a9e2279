"""Builds the conversation services once per process from the shared ``Services``.

Cached in ``services.extras["conversation"]``: the API and the worker share one LLM client,
so its concurrency cap and rate limit hold for the whole process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memlane.domain.model import Job
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_INGEST,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.llm.client import ChatClient
from memlane.llm.limits import CallGate
from memlane.services.conversation.ingestion import IngestionService
from memlane.services.conversation.memories import MemoryService
from memlane.services.conversation.pipeline import LLMPipeline
from memlane.services.conversation.summaries import Summarizer
from memlane.services.conversation.tasks import TaskService
from memlane.services.conversation.webhooks import SummaryCallbacks

if TYPE_CHECKING:
    from memlane.jobs.worker import Handler
    from memlane.services.container import Services

EXTRAS_KEY = "conversation"


@dataclass
class ConversationServices:
    ingestion: IngestionService
    memories: MemoryService
    tasks: TaskService
    summarizer: Summarizer
    callbacks: SummaryCallbacks
    llm: ChatClient | None


def conversation_services(svc: Services) -> ConversationServices:
    cached = svc.extras.get(EXTRAS_KEY)
    if isinstance(cached, ConversationServices):
        return cached
    s = svc.settings
    llm = None
    if s.llm_base_url:
        llm = ChatClient(
            s.llm_base_url,
            model=s.llm_model,
            api_key=s.llm_api_key,
            timeout_sec=s.llm_timeout_sec,
            gate=CallGate(
                max_concurrency=s.llm_max_concurrency, rate=s.llm_rate_limit_rps, burst=s.llm_rate_limit_burst
            ),
        )
    pipeline = LLMPipeline(llm) if llm is not None else None
    summarizer = Summarizer(clock=svc.clock, pipeline=pipeline)
    built = ConversationServices(
        ingestion=IngestionService(
            store=svc.store, embedder=svc.embedder, writes=svc.writes, clock=svc.clock, pipeline=pipeline
        ),
        memories=MemoryService(
            store=svc.store,
            embedder=svc.embedder,
            writes=svc.writes,
            clock=svc.clock,
            half_life_days=s.recency_half_life_days,
        ),
        tasks=TaskService(store=svc.store, clock=svc.clock, max_attempts=s.job_max_attempts, notify=svc.worker.notify),
        summarizer=summarizer,
        callbacks=SummaryCallbacks(
            store=svc.store, clock=svc.clock, summarizer=summarizer, timeout_sec=s.webhook_timeout_sec
        ),
        llm=llm,
    )
    svc.extras[EXTRAS_KEY] = built
    return built


def conversation_handlers(svc: Services) -> dict[str, Handler]:
    """Job handlers, built lazily: the services are made on the first job, not at start-up."""

    async def ingest(job: Job) -> dict[str, Any]:
        return await conversation_services(svc).ingestion.run_ingest(job)

    async def agent_memory(job: Job) -> dict[str, Any]:
        return await conversation_services(svc).ingestion.run_agent_memory(job)

    async def summary_callback(job: Job) -> dict[str, Any]:
        return await conversation_services(svc).callbacks.run(job)

    return {
        CONVERSATION_INGEST: ingest,
        CONVERSATION_AGENT_MEMORY: agent_memory,
        CONVERSATION_SUMMARY_CALLBACK: summary_callback,
    }
