"""The payloads of the conversation surface's durable tasks, typed.

A task's payload is a JSON object in the jobs table: written when the API accepts a request,
read by a worker later, possibly one of a newer release. So there is one encoder
(:func:`encode_task`) and one decoder (:func:`decode_task`), and the JSON keeps the keys every
release has stored (``app_id``, ``user_id``, ``session_id``, ``messages``, ``request_sha256``,
``viewer``, ``producer_agent_id``, ``batcher``, ``callback_url``, ``callback_headers``). The
decoder reads a key that an older row lacks as absent and ignores keys it does not know, so a
job queued before an upgrade runs after it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from memlane.domain.model import Job
from memlane.domain.visibility import Viewer
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_INGEST,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.services.conversation.messages import Message, derived_message_id, messages_from_payload


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class TaskMessage:
    """A message as a task stores it: the caller's id (or None until the task has an id of its
    own to derive one from) and the timestamp as sent (or stamped on arrival)."""

    id: str | None
    role: str
    content: str
    timestamp: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "content": self.content, "timestamp": self.timestamp}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> TaskMessage:
        return cls(
            id=_text(raw.get("id")),
            role=str(raw.get("role") or "user"),
            content=str(raw.get("content") or ""),
            timestamp=_text(raw.get("timestamp")),
        )


@dataclass(frozen=True, slots=True)
class BatchOrigin:
    """Which buffered messages a memory batcher flush handed over, and why."""

    reason: str
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationTask:
    """What every conversation task carries: where its notes go, the messages, the digest of
    the request (an ``Idempotency-Key`` replay must match it) and the submitter, whose reach
    the job has (set when the job is made: ``TaskService.new_job``)."""

    kind: ClassVar[str]
    app_id: str
    user_id: str | None
    session_id: str | None = None
    messages: tuple[TaskMessage, ...]
    request_sha256: str | None = None
    submitter: Viewer | None = None

    def acting_as(self, tenant_id: str) -> Viewer:
        """The submitter; a task stored without one acts as an authenticated reader with no
        identity (shared memory only), as ``Viewer.from_payload`` decides."""
        return self.submitter or Viewer.from_payload(tenant_id, None)

    def conversation(self) -> list[Message]:
        """The messages as the pipelines read them (every id set once the job exists)."""
        return messages_from_payload([m.to_json() for m in self.messages])

    def with_message_ids(self, task_id: str) -> ConversationTask:
        """The task with an id for every message that came without one, derived from the task
        id and the position (the same on every re-run)."""
        ids = [replace(m, id=m.id or derived_message_id(task_id, i)) for i, m in enumerate(self.messages)]
        return replace(self, messages=tuple(ids))


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestTask(ConversationTask):
    """``POST /api/v1/memories`` (and a memory batcher flush): the full ingestion pipeline."""

    kind: ClassVar[str] = CONVERSATION_INGEST
    producer_agent_id: str | None = None
    #: set on a memory batcher flush: the task then belongs to the buffer's user alone
    batcher: BatchOrigin | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentMemoryTask(ConversationTask):
    """``POST /api/v1/agent/memories``: one note, stored directly."""

    kind: ClassVar[str] = CONVERSATION_AGENT_MEMORY
    producer_agent_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryCallbackTask(ConversationTask):
    """``POST /api/v1/agent/summaries`` with a callback: summarise, then deliver by webhook."""

    kind: ClassVar[str] = CONVERSATION_SUMMARY_CALLBACK
    callback_url: str
    callback_headers: dict[str, str]


AnyTask = IngestTask | AgentMemoryTask | SummaryCallbackTask


def encode_task(task: ConversationTask) -> dict[str, Any]:
    """The job payload of ``task`` (the keys the module docstring lists)."""
    out: dict[str, Any] = {
        "app_id": task.app_id,
        "user_id": task.user_id,
        "session_id": task.session_id,
        "messages": [m.to_json() for m in task.messages],
        "request_sha256": task.request_sha256,
    }
    if isinstance(task, IngestTask | AgentMemoryTask):
        out["producer_agent_id"] = task.producer_agent_id
    if isinstance(task, IngestTask) and task.batcher is not None:
        b = task.batcher
        out["batcher"] = {"reason": b.reason, "first_seq": b.first_seq, "last_seq": b.last_seq}
    if isinstance(task, SummaryCallbackTask):
        out.update(callback_url=task.callback_url, callback_headers=dict(task.callback_headers))
    if task.submitter is not None:
        out["viewer"] = task.submitter.to_payload()
    return out


def decode_task(job: Job) -> AnyTask:
    """The task a conversation job carries, from any release's payload; ``ValueError`` for a
    job of another kind or a payload without ``app_id`` or ``messages``."""
    p = job.payload
    app_id, messages = p.get("app_id"), p.get("messages")
    if not isinstance(app_id, str) or not isinstance(messages, list):
        raise ValueError(f"job {job.id} ({job.kind}) carries no conversation task")
    common: dict[str, Any] = {
        "app_id": app_id,
        "user_id": _text(p.get("user_id")),
        "session_id": _text(p.get("session_id")),
        "messages": tuple(TaskMessage.from_json(m) for m in messages if isinstance(m, dict)),
        "request_sha256": _text(p.get("request_sha256")),
        "submitter": Viewer.from_payload(job.tenant_id, p["viewer"]) if isinstance(p.get("viewer"), dict) else None,
    }
    if job.kind == CONVERSATION_INGEST:
        return IngestTask(**common, producer_agent_id=_text(p.get("producer_agent_id")), batcher=_origin(p))
    if job.kind == CONVERSATION_AGENT_MEMORY:
        return AgentMemoryTask(**common, producer_agent_id=_text(p.get("producer_agent_id")))
    if job.kind == CONVERSATION_SUMMARY_CALLBACK:
        headers = p.get("callback_headers")
        return SummaryCallbackTask(
            **common,
            callback_url=str(p.get("callback_url") or ""),
            callback_headers={str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        )
    raise ValueError(f"job {job.id} is a {job.kind!r} job, not a conversation task")


def _origin(p: dict[str, Any]) -> BatchOrigin | None:
    raw = p.get("batcher")
    if raw is None:
        return None
    given = raw if isinstance(raw, dict) else {}
    return BatchOrigin(
        reason=str(given.get("reason") or ""),
        first_seq=int(given.get("first_seq") or 0),
        last_seq=int(given.get("last_seq") or 0),
    )
