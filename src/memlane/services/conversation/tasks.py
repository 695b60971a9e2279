"""Tasks are durable jobs: submitting one commits the job row before the API answers 202,
and the task view is read back from that row (status, error, result).

``Idempotency-Key``: a retried POST with the same key returns the first task. Reusing a key
for a different request body is refused (409), so a client bug cannot silently drop work. A key
is the caller's own: it is stored under a digest of the caller's identity (agent, team, user
and role), so the same key sent by another caller is a new task, never the first caller's,
and a 409 can only name a task of the caller who sent it.

Who sees a task is decided by the one visibility function (domain/visibility.py): a task is
attributed like the notes it writes. It belongs to its user (every conversation request names
one), and within the user to its submitter: the submitter's agent, else its team, else the
tenant (a tenant-wide key). A memory batcher flush belongs to the buffer, that is to the user
alone, whoever's message filled it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso, new_id
from memlane.domain.errors import Conflict, NotFound
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import Job
from memlane.domain.visibility import Attribution, Viewer, visibility_of
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_INGEST,
    CONVERSATION_KINDS,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.services.conversation.task_payloads import (
    ConversationTask,
    IngestTask,
    SummaryCallbackTask,
    decode_task,
    encode_task,
)
from memlane.services.conversation.webhooks import MAX_ATTEMPTS as WEBHOOK_ATTEMPTS
from memlane.services.conversation.webhooks import delivery_result
from memlane.store.contracts.jobs import JobSubmitOps

TASK_STATUS = {"queued": "pending", "running": "processing", "done": "completed", "failed": "failed"}
#: hex digits of the caller digest an idempotency key is stored under (128 bits; with the
#: separator and a 200-character key it fits the 256-character column)
CALLER_DIGEST_CHARS = 32
TASK_KIND = {
    CONVERSATION_INGEST: "memory_creation",
    CONVERSATION_AGENT_MEMORY: "agent_memory_creation",
    CONVERSATION_SUMMARY_CALLBACK: "conversation_summary",
}


class TaskView(TypedDict):
    """A task as ``GET /api/v1/tasks/{task_id}`` answers it (api/conversation/responses.py)."""

    task_id: str
    kind: str
    status: str
    error: str | None
    result: dict[str, Any] | None
    attempts: int
    last_error: str | None
    app_id: str | None
    user_id: str | None
    session_id: str | None
    created_at: str | None
    updated_at: str | None


class TaskService:
    def __init__(
        self, *, store: JobSubmitOps, clock: Clock, max_attempts: int, notify: Callable[[], None] | None = None
    ):
        self.store = store
        self.clock = clock
        self.max_attempts = max_attempts
        self._notify = notify

    async def submit(self, viewer: Viewer, task: ConversationTask, *, idempotency_key: str | None) -> tuple[Job, bool]:
        """Commit the job; returns it and whether it is new (False: an idempotent replay).

        The job keeps the submitter (the task's ``submitter``): it reads and writes with the
        submitter's reach, and only the submitter sees the task."""
        scoped = caller_key(viewer, idempotency_key) if idempotency_key is not None else None
        job = self.new_job(viewer, task, idempotency_key=scoped)
        stored = (await self.store.enqueue([job], now=self.clock.now()))[0]
        if stored.id != job.id:
            if not _same_request(stored, task):
                raise Conflict(
                    f"Idempotency-Key {idempotency_key!r} was already used for a different request "
                    f"(your task {stored.id}); use a new key for new work",
                    code="idempotency_key_reused",
                )
            return stored, False
        self.notify()
        return stored, True

    def new_job(self, viewer: Viewer, task: ConversationTask, *, idempotency_key: str | None = None) -> Job:
        """The task's job row, not yet stored (the batcher stores it in its own transaction)."""
        task_id = new_id()
        task = replace(task.with_message_ids(task_id), submitter=viewer)
        attempts = WEBHOOK_ATTEMPTS + 2 if isinstance(task, SummaryCallbackTask) else self.max_attempts
        return Job(
            tenant_id=viewer.tenant_id,
            id=task_id,
            kind=task.kind,
            scope=task.app_id,
            payload=encode_task(task),
            max_attempts=attempts,
            idempotency_key=idempotency_key,
        )

    def notify(self) -> None:
        if self._notify is not None:
            self._notify()

    async def view(self, viewer: Viewer, task_id: str) -> TaskView:
        """A task the caller may see; any other id, whoever holds it, is the same 404."""
        job = await self.store.get_job(viewer.tenant_id, task_id)
        if job is None or job.kind not in CONVERSATION_KINDS or not visibility_of(viewer).can_see(attribution(job)):
            raise NotFound(f"task {task_id!r} not found", code="task_not_found")
        return task_view(job)


def caller_key(viewer: Viewer, key: str) -> str:
    """``key`` as stored: under a digest of who sent it (the tenant is a column of its own)."""
    who = canonical_json([viewer.agent_id, viewer.team_id, viewer.user_id, viewer.role])
    return f"{sha256_hex(who)[:CALLER_DIGEST_CHARS]}:{key}"


def _same_request(stored: Job, task: ConversationTask) -> bool:
    """Whether the task stored under an ``Idempotency-Key`` came from the same request."""
    return stored.kind in CONVERSATION_KINDS and decode_task(stored).request_sha256 == task.request_sha256


def attribution(job: Job) -> Attribution:
    """Who a task belongs to, in the visibility columns (the module docstring says why)."""
    task = decode_task(job)
    user = task.user_id
    if isinstance(task, IngestTask) and task.batcher is not None:
        return Attribution(user_id=user)
    submitter = task.acting_as(job.tenant_id)
    if submitter.agent_id is not None:
        return Attribution(memory_lane="private", owner_agent_id=submitter.agent_id, user_id=user)
    if submitter.team_id is not None:
        return Attribution(memory_lane="private", owner_team_id=submitter.team_id, user_id=user)
    return Attribution(user_id=user)


def task_view(job: Job) -> TaskView:
    task = decode_task(job)
    status = TASK_STATUS.get(job.status, job.status)
    progress = job.progress or {}
    result: dict[str, Any] | None = job.result
    if job.kind == CONVERSATION_SUMMARY_CALLBACK and result is None and progress:
        delivery = "failed" if job.status == "failed" else "pending"
        url = task.callback_url if isinstance(task, SummaryCallbackTask) else None
        result = dict(delivery_result(progress, delivery, url))
    elif result is None and progress:
        result = {"stage": progress.get("stage"), "llm_calls": int(progress.get("llm_calls", 0))}
    return {
        "task_id": job.id,
        "kind": TASK_KIND.get(job.kind, job.kind),
        "status": status,
        "error": job.last_error if job.status == "failed" else None,
        "result": result,
        "attempts": job.attempts,
        "last_error": job.last_error,
        "app_id": task.app_id,
        "user_id": task.user_id,
        "session_id": task.session_id,
        "created_at": iso(job.created_at),
        "updated_at": iso(job.updated_at),
    }
