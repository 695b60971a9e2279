"""Tasks are durable jobs: submitting one commits the job row before the API answers 202,
and the task view is read back from that row (status, error, result).

``Idempotency-Key``: a retried POST with the same key returns the first task. Reusing a key
for a different request body is refused (409), so a client bug cannot silently drop work.
"""

from __future__ import annotations

from typing import Any

from memlane.domain.clock import Clock, iso, new_id
from memlane.domain.errors import Conflict, NotFound
from memlane.domain.model import Job
from memlane.domain.visibility import Viewer
from memlane.jobs.conversation_kinds import (
    CONVERSATION_AGENT_MEMORY,
    CONVERSATION_INGEST,
    CONVERSATION_KINDS,
    CONVERSATION_SUMMARY_CALLBACK,
)
from memlane.services.conversation.webhooks import MAX_ATTEMPTS as WEBHOOK_ATTEMPTS
from memlane.services.conversation.webhooks import delivery_result
from memlane.store.base import Store

TASK_STATUS = {"queued": "pending", "running": "processing", "done": "completed", "failed": "failed"}
TASK_KIND = {
    CONVERSATION_INGEST: "memory_creation",
    CONVERSATION_AGENT_MEMORY: "agent_memory_creation",
    CONVERSATION_SUMMARY_CALLBACK: "conversation_summary",
}


class TaskService:
    def __init__(self, *, store: Store, clock: Clock, max_attempts: int, notify: Any = None):
        self.store = store
        self.clock = clock
        self.max_attempts = max_attempts
        self._notify = notify

    async def submit(
        self, viewer: Viewer, kind: str, payload: dict[str, Any], *, idempotency_key: str | None
    ) -> tuple[Job, bool]:
        """Commit the job; returns it and whether it is new (False: an idempotent replay).

        The job keeps the submitter (``payload.viewer``): it reads and writes with the
        submitter's reach, and only the submitter sees the task."""
        job = self.new_job(viewer, kind, payload, idempotency_key=idempotency_key)
        task_id = job.id
        stored = (await self.store.enqueue([job], now=self.clock.now()))[0]
        if stored.id != task_id:
            if stored.payload.get("request_sha256") != payload.get("request_sha256"):
                raise Conflict(
                    f"Idempotency-Key {idempotency_key!r} was already used for a different request "
                    f"(task {stored.id}); use a new key for new work",
                    code="idempotency_key_reused",
                )
            return stored, False
        self.notify()
        return stored, True

    def new_job(self, viewer: Viewer, kind: str, payload: dict[str, Any], *, idempotency_key: str | None = None) -> Job:
        """The task's job row, not yet stored (the batcher stores it in its own transaction)."""
        task_id = new_id()
        payload = {**payload, "viewer": viewer.to_payload()}
        if "messages" in payload:
            payload = {
                **payload,
                "messages": [{**m, "id": m.get("id") or f"{task_id}:{i}"} for i, m in enumerate(payload["messages"])],
            }
        attempts = WEBHOOK_ATTEMPTS + 2 if kind == CONVERSATION_SUMMARY_CALLBACK else self.max_attempts
        return Job(
            tenant_id=viewer.tenant_id,
            id=task_id,
            kind=kind,
            scope=payload.get("app_id"),
            payload=payload,
            max_attempts=attempts,
            idempotency_key=idempotency_key,
        )

    def notify(self) -> None:
        if self._notify is not None:
            self._notify()

    async def view(self, viewer: Viewer, task_id: str) -> dict[str, Any]:
        job = await self.store.get_job(viewer.tenant_id, task_id)
        if job is None or job.kind not in CONVERSATION_KINDS or not _submitted_by(job, viewer):
            raise NotFound(f"task {task_id!r} not found", code="task_not_found")
        return task_view(job)


def _submitted_by(job: Job, viewer: Viewer) -> bool:
    """A task is the submitter's: an agent sees its own tasks, a team its team's, the admin
    all; a task submitted with no identity is the tenant's."""
    submitter = Viewer.from_payload(job.tenant_id, job.payload.get("viewer"))
    if viewer.admin or (submitter.agent_id is None and submitter.team_id is None):
        return True
    if submitter.agent_id is not None:
        return submitter.agent_id == viewer.agent_id
    return submitter.team_id == viewer.team_id


def task_view(job: Job) -> dict[str, Any]:
    status = TASK_STATUS.get(job.status, job.status)
    progress = job.progress or {}
    result: dict[str, Any] | None = job.result
    if job.kind == CONVERSATION_SUMMARY_CALLBACK and result is None and progress:
        delivery = "failed" if job.status == "failed" else "pending"
        result = delivery_result(progress, delivery, job.payload.get("callback_url"))
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
        "app_id": job.payload.get("app_id"),
        "user_id": job.payload.get("user_id"),
        "session_id": job.payload.get("session_id"),
        "created_at": iso(job.created_at),
        "updated_at": iso(job.updated_at),
    }
