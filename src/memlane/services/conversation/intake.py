"""The conversation surface's write use cases: messages in, a durable task (or a summary) out.

``POST /api/v1/memories``, ``/agent/memories`` and ``/agent/summaries`` share the ingestion
rules kept here: 1..``MAX_MESSAGES`` messages, unique message ids, and a message without a
timestamp takes its arrival time, in the order sent. What is accepted becomes a typed task
(services/conversation/task_payloads.py) committed before the API answers 202.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlane.domain.clock import Clock, iso
from memlane.domain.errors import InvalidRequest, UpstreamError
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import Job
from memlane.domain.visibility import Viewer
from memlane.llm.errors import LLMBudgetExhausted, LLMOutputInvalid
from memlane.services.conversation.messages import RAW_TEXT_ROLE, messages_from_payload, stamp_arrivals
from memlane.services.conversation.summaries import Summarizer, SummaryView
from memlane.services.conversation.task_payloads import (
    AgentMemoryTask,
    ConversationTask,
    IngestTask,
    SummaryCallbackTask,
    TaskMessage,
)
from memlane.services.conversation.tasks import TaskService
from memlane.services.conversation.webhook_targets import parse_target
from memlane.services.conversation.webhooks import SummaryCallbacks

MAX_IDEMPOTENCY_KEY = 200


@dataclass(frozen=True, slots=True)
class Submission:
    """A conversation request as the use cases take it. ``messages`` is a list, or one raw
    string where the endpoint accepts a transcript; ``request`` is the body as sent (JSON
    form): its digest tells an ``Idempotency-Key`` replay from a different request."""

    app_id: str
    user_id: str | None
    session_id: str | None
    messages: str | list[TaskMessage]
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Callback:
    """Where a summary is delivered, and the field the caller named it in (for a 400)."""

    url: str
    field: str
    headers: dict[str, str]


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    """A summary made now (no callback), or the job that will deliver it."""

    summary: SummaryView | None = None
    job: Job | None = None


def parse_idempotency_key(value: str | None) -> str | None:
    """An ``Idempotency-Key`` header as stored, or None; 400 naming the header otherwise."""
    if value is None:
        return None
    key = value.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable():
        raise InvalidRequest(
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable characters",
            details={"field": "Idempotency-Key"},
        )
    return key


def request_sha(kind: str, body: dict[str, Any]) -> str:
    return sha256_hex(kind + "\n" + json.dumps(body, sort_keys=True, separators=(",", ":"), default=str))


def message_list(items: list[TaskMessage], limit: int, now: datetime) -> tuple[TaskMessage, ...]:
    """Checks the count bound and unique ids; a message without a timestamp takes its arrival
    time, in the order sent (``stamp_arrivals``)."""
    if not 1 <= len(items) <= limit:
        raise InvalidRequest(
            f"messages must contain between 1 and {limit} messages (got {len(items)}); MAX_MESSAGES is {limit}",
            details={"field": "messages"},
        )
    seen: dict[str, int] = {}
    for i, m in enumerate(items):
        if m.id is None:
            continue
        if m.id in seen:
            raise InvalidRequest(
                f"messages[{i}].id {m.id!r} repeats messages[{seen[m.id]}].id; message ids must be unique",
                details={"field": f"messages[{i}].id"},
            )
        seen[m.id] = i
    stamped = stamp_arrivals([m.to_json() for m in items], now)
    return tuple(TaskMessage.from_json(m) for m in stamped)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationIntake:
    """What the write use cases need: the task queue, the summarizer and the webhook target
    check, the clock (arrival times), and ``MAX_MESSAGES``."""

    tasks: TaskService
    summarizer: Summarizer
    callbacks: SummaryCallbacks
    clock: Clock
    max_messages: int

    async def submit_memories(self, viewer: Viewer, given: Submission, *, idempotency_key: str | None) -> Job:
        """``POST /api/v1/memories``: the full ingestion pipeline, as a durable task."""
        task = IngestTask(
            **self._common(given, self._messages(given, "user")),
            producer_agent_id=viewer.agent_id,
            request_sha256=request_sha(IngestTask.kind, given.request),
        )
        return await self._submit(viewer, task, idempotency_key)

    async def submit_agent_memory(self, viewer: Viewer, given: Submission, *, idempotency_key: str | None) -> Job:
        """``POST /api/v1/agent/memories``: one note stored directly, as a durable task."""
        task = AgentMemoryTask(
            **self._common(given, self._messages(given, "agent")),
            producer_agent_id=viewer.agent_id,
            request_sha256=request_sha(AgentMemoryTask.kind, given.request),
        )
        return await self._submit(viewer, task, idempotency_key)

    async def summarize(
        self, viewer: Viewer, given: Submission, callback: Callback | None, *, idempotency_key: str | None
    ) -> SummaryOutcome:
        """``POST /api/v1/agent/summaries``: the summary now, or, with a callback, a durable
        task that delivers it. A callback URL that may not receive webhooks is a 400 naming
        the field it came in, and nothing is queued."""
        messages = self._messages(given, RAW_TEXT_ROLE)
        if callback is None:
            return SummaryOutcome(summary=await self._summary_now(messages))
        url = await self._checked_target(callback)
        key = parse_idempotency_key(idempotency_key)
        task = SummaryCallbackTask(
            **self._common(given, messages),
            callback_url=url,
            callback_headers=callback.headers,
            request_sha256=request_sha(SummaryCallbackTask.kind, {**given.request, "callback_url": url}),
        )
        return SummaryOutcome(job=await self._submit(viewer, task, key))

    # --- steps --------------------------------------------------------------------------
    def _messages(self, given: Submission, raw_role: str) -> tuple[TaskMessage, ...]:
        """The request's messages under the ingestion rules; one raw string is one message of
        ``raw_role``, said now."""
        now = self.clock.now()
        if isinstance(given.messages, str):
            return (TaskMessage(id=None, role=raw_role, content=given.messages, timestamp=iso(now)),)
        return message_list(given.messages, self.max_messages, now)

    @staticmethod
    def _common(given: Submission, messages: tuple[TaskMessage, ...]) -> dict[str, Any]:
        return {"app_id": given.app_id, "user_id": given.user_id, "session_id": given.session_id, "messages": messages}

    async def _submit(self, viewer: Viewer, task: ConversationTask, key: str | None) -> Job:
        job, _ = await self.tasks.submit(viewer, task, idempotency_key=key)
        return job

    async def _checked_target(self, callback: Callback) -> str:
        try:
            url = str(parse_target(callback.url).url)
            await self.callbacks.check_target(url)
        except ValueError as exc:  # TargetRefused included: a 400 naming the field, nothing queued
            raise InvalidRequest(f"{callback.field}: {exc}", details={"field": callback.field}) from None
        return url

    async def _summary_now(self, messages: tuple[TaskMessage, ...]) -> SummaryView:
        parsed = messages_from_payload([{**m.to_json(), "id": m.id or f"m{i}"} for i, m in enumerate(messages)])
        try:
            return await self.summarizer.summarize(parsed)
        except (LLMOutputInvalid, LLMBudgetExhausted) as exc:
            raise UpstreamError(f"summary failed: {exc.message}", code="upstream_llm_bad_output") from None
