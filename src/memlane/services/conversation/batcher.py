"""The memory batcher (``POST /api/v1/memory-batcher/messages``): clients stream a
conversation a message or two at a time; memlane keeps them in a durable buffer per
(tenant, app, user, session) and hands them to conversation ingestion in batches.

* **By size.** When a buffer holds ``batch_size`` messages (``MEMLANE_BATCHER_BATCH_SIZE``),
  the oldest ``batch_size`` become one ingestion task, the same durable task
  ``POST /api/v1/memories`` submits.
* **When idle.** The first message into an empty buffer schedules a durable job due
  ``MEMLANE_BATCHER_IDLE_TIMEOUT_SEC`` later. When it runs, a buffer idle that long is flushed
  whatever its size; one that received messages since is re-scheduled for its new idle time.
  A job row, not a timer: a restart neither loses nor repeats it.

Messages without a timestamp take their arrival time, never earlier than the message buffered
before them. A flush's task runs with the reach of the caller whose message triggered it (a
size flush), or of the caller who last appended (an idle flush); it belongs to the buffer's
user (services/conversation/tasks.py), so every caller acting for that user sees it.

A buffer is its user's: only a caller acting for that user (or the admin) reads or appends to
it, as the one visibility function decides (``Attribution`` in domain/visibility.py). The API
already refuses a ``user_id`` the credentials do not carry; the check here keeps the rule when
another caller of the service forgets to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso, new_id
from memlane.domain.errors import Forbidden, InvalidRequest
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import Job
from memlane.domain.visibility import Attribution, Viewer, visibility_of
from memlane.jobs.conversation_kinds import CONVERSATION_BATCHER_IDLE
from memlane.services.conversation.messages import parse_timestamp, stamp_arrivals
from memlane.services.conversation.task_payloads import BatchOrigin, IngestTask, TaskMessage
from memlane.services.conversation.tasks import TaskService
from memlane.store.batcher import STATE_FIELDS, BatcherStore, BufferKey, BufferState

#: what a flush hands the messages to (OmniMemory names its SDK call; memlane's equivalent is
#: the ingestion task of POST /api/v1/memories)
DELIVERY = "add_memory"
BatchStatus = Literal["pending", "flushed", "flushed_partial", "empty"]
FlushReason = Literal["batch_size", "idle_timeout"]
#: what an export carries of a buffer besides its key (not its idle job: jobs stay behind)
RESTORED_FIELDS = tuple(f for f in STATE_FIELDS if f != "idle_job_id")


class IdleFlush(TypedDict):
    """The idle-flush job's result: the tasks it queued, or when it looks again."""

    flushed_task_ids: list[str]
    rescheduled_for: str | None


class BufferView(TypedDict):
    """One buffer as answered (OmniMemory's fields first; api/conversation/responses.py)."""

    app_id: str
    user_id: str
    session_id: str | None
    pending_messages: int
    batch_size: int
    status: str
    last_delivery: str | None
    last_task_id: str | None
    flushed_task_ids: list[str]
    last_flush_at: str | None
    last_flush_reason: str | None
    flushed_messages: int
    idle_flush_at: str | None


@dataclass(slots=True)
class BatchOutcome:
    """A buffer after a call, and what the call flushed."""

    state: BufferState
    batch_size: int
    idle_timeout_sec: float
    flushed_task_ids: list[str] = field(default_factory=list)

    @property
    def status(self) -> BatchStatus:
        pending = len(self.state.messages)
        if self.flushed_task_ids:
            return "flushed_partial" if pending else "flushed"
        return "pending" if pending else "empty"

    def view(self) -> BufferView:
        s = self.state
        idle_at = None
        if s.messages and s.last_append_at is not None:
            idle_at = iso(s.last_append_at + timedelta(seconds=self.idle_timeout_sec))
        return {
            "app_id": s.key.app_id,
            "user_id": s.key.user_id,
            "session_id": s.key.session_id,
            "pending_messages": len(s.messages),
            "batch_size": self.batch_size,
            "status": self.status,
            "last_delivery": s.last_delivery,
            "last_task_id": s.last_task_id,
            "flushed_task_ids": list(self.flushed_task_ids),
            "last_flush_at": iso(s.last_flush_at),
            "last_flush_reason": s.last_flush_reason,
            "flushed_messages": s.flushed_messages,
            "idle_flush_at": idle_at,
        }


def _owned_key(viewer: Viewer, app_id: str, user_id: str, session_id: str | None) -> BufferKey:
    """The buffer's key, once the viewer may act on that user's buffer (403 otherwise)."""
    if not visibility_of(viewer).can_see(Attribution(user_id=user_id)):
        raise Forbidden(
            f"user_id {user_id!r}: the buffer belongs to a user you do not act for",
            code="identity_mismatch",
            details={"field": "user_id"},
        )
    return BufferKey(viewer.tenant_id, app_id, user_id, session_id)


class BatcherService:
    def __init__(
        self,
        *,
        store: BatcherStore,
        tasks: TaskService,
        clock: Clock,
        batch_size: int,
        idle_timeout_sec: float,
        max_attempts: int,
        max_messages: int | None = None,
    ):
        self.store = store
        #: messages one append may carry (MEMLANE_MAX_MESSAGES); None: no bound
        self.max_messages = max_messages
        self.tasks = tasks
        self.clock = clock
        self.batch_size = batch_size
        self.idle_timeout_sec = idle_timeout_sec
        self.max_attempts = max_attempts

    async def append(
        self, viewer: Viewer, app_id: str, user_id: str, session_id: str | None, messages: list[dict[str, Any]]
    ) -> BatchOutcome:
        """Buffer ``messages`` (role, content, optional timestamp) and flush full batches."""
        limit = self.max_messages
        if limit is not None and len(messages) > limit:
            raise InvalidRequest(
                f"messages must contain at most {limit} messages per request (got {len(messages)})",
                details={"field": "messages"},
            )
        key = _owned_key(viewer, app_id, user_id, session_id)
        now = self.clock.now()
        flushed: list[str] = []

        def change(state: BufferState) -> list[Job]:
            last = state.messages[-1].get("timestamp") if state.messages else None
            after = parse_timestamp(last) if isinstance(last, str) and last else None
            for m in stamp_arrivals(messages, now, after):
                state.messages.append({**m, "seq": state.next_seq})
                state.next_seq += 1
            if messages:
                state.last_append_at = now
                state.viewer = viewer.to_payload()
            out: list[Job] = []
            while len(state.messages) >= self.batch_size:
                batch, state.messages = state.messages[: self.batch_size], state.messages[self.batch_size :]
                out.append(self._flush(state, batch, viewer, "batch_size", now))
            flushed.extend(j.id for j in out)
            if state.messages and not state.idle_job_live:
                out.append(self._idle_job(state, now + timedelta(seconds=self.idle_timeout_sec)))
            return out

        state, new_jobs = await self.store.change(key, change, now=now)
        if new_jobs:
            self.tasks.notify()
        return BatchOutcome(state, self.batch_size, self.idle_timeout_sec, flushed)

    async def status(self, viewer: Viewer, app_id: str, user_id: str, session_id: str | None) -> BatchOutcome:
        key = _owned_key(viewer, app_id, user_id, session_id)
        state = await self.store.get(key) or BufferState(key=key)
        return BatchOutcome(state, self.batch_size, self.idle_timeout_sec)

    async def buffers(
        self,
        tenant_id: str | None,
        app_id: str | None = None,
        *,
        after: BufferKey | None = None,
        limit: int | None = None,
    ) -> list[BufferState]:
        return await self.store.buffers(tenant_id, app_id, after=after, limit=limit)

    async def restore(self, given: BufferState) -> bool:
        """Load a buffer as exported (services/transfer): its pending messages, counters and
        last flush, under its own key. A buffer already stored exactly so is left alone (a
        second import writes nothing). The exported idle job belonged to the other store: a
        restored buffer with pending messages gets an idle flush of its own here, due one idle
        timeout after its last message, so the messages are not stranded."""
        stored = await self.store.get(given.key)
        if stored is not None and all(getattr(stored, f) == getattr(given, f) for f in RESTORED_FIELDS):
            return False
        now = self.clock.now()

        def change(state: BufferState) -> list[Job]:
            for name in RESTORED_FIELDS:
                setattr(state, name, getattr(given, name))
            if not state.messages or state.idle_job_live:
                return []
            since = state.last_append_at or now
            return [self._idle_job(state, since + timedelta(seconds=self.idle_timeout_sec))]

        _, new_jobs = await self.store.change(given.key, change, now=now)
        if new_jobs:
            self.tasks.notify()
        return True

    async def run_idle_flush(self, job: Job) -> IdleFlush:
        """The idle-flush job: flush a buffer idle for the timeout, else wait for its new idle time."""
        p = job.payload
        key = BufferKey(job.tenant_id, p["app_id"], p["user_id"], p.get("session_id"))
        now = self.clock.now()
        flushed: list[str] = []
        rescheduled: list[str] = []

        def change(state: BufferState) -> list[Job]:
            if state.idle_job_id != job.id:
                return []  # another idle job has taken over this buffer
            state.idle_job_id = None
            if not state.messages or state.last_append_at is None:
                return []
            due = state.last_append_at + timedelta(seconds=self.idle_timeout_sec)
            if now < due:
                again = self._idle_job(state, due)
                rescheduled.append(iso(due) or "")
                return [again]
            submitter = Viewer.from_payload(job.tenant_id, state.viewer)
            out: list[Job] = []
            while state.messages:
                batch, state.messages = state.messages[: self.batch_size], state.messages[self.batch_size :]
                out.append(self._flush(state, batch, submitter, "idle_timeout", now))
            flushed.extend(j.id for j in out)
            return out

        _, new_jobs = await self.store.change(key, change, now=now)
        if new_jobs:
            self.tasks.notify()
        return {"flushed_task_ids": flushed, "rescheduled_for": rescheduled[0] if rescheduled else None}

    def _flush(
        self, state: BufferState, batch: list[dict[str, Any]], viewer: Viewer, reason: FlushReason, now: datetime
    ) -> Job:
        """One ingestion task for ``batch``; the buffer records it as its last delivery."""
        key = state.key
        messages = [{"id": None, **{k: m[k] for k in ("role", "content", "timestamp")}} for m in batch]
        origin = {"batcher": [key.app_id, key.user_id, key.session_id], "messages": messages}
        task = IngestTask(
            app_id=key.app_id,
            user_id=key.user_id,
            session_id=key.session_id,
            messages=tuple(TaskMessage.from_json(m) for m in messages),
            producer_agent_id=viewer.agent_id,
            request_sha256=sha256_hex(canonical_json(origin)),
            batcher=BatchOrigin(reason=reason, first_seq=batch[0]["seq"], last_seq=batch[-1]["seq"]),
        )
        job = self.tasks.new_job(viewer, task)
        state.last_delivery = DELIVERY
        state.last_task_id = job.id
        state.last_flush_at = now
        state.last_flush_reason = reason
        state.flushed_messages += len(batch)
        return job

    def _idle_job(self, state: BufferState, due: datetime) -> Job:
        key = state.key
        job = Job(
            tenant_id=key.tenant_id,
            id=new_id(),
            kind=CONVERSATION_BATCHER_IDLE,
            scope=key.app_id,
            payload={"app_id": key.app_id, "user_id": key.user_id, "session_id": key.session_id},
            max_attempts=self.max_attempts,
            run_after=due,
        )
        state.idle_job_id = job.id
        state.idle_job_live = True
        return job
