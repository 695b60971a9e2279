"""Success responses of the conversation surface (``/api/v1/*``), as built by
api/conversation/routes.py and services/conversation/."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.services.conversation.batcher import BufferView
from memlane.services.conversation.memories import MemoryView, ScoredMemoryView
from memlane.services.conversation.summaries import SummaryView
from memlane.services.conversation.tasks import TaskView


@closed
class Accepted(TypedDict):
    """202: the task is durably queued; poll ``Location`` (``/api/v1/tasks/{task_id}``)."""

    task_id: str
    status: str
    message: str
    app_id: str
    user_id: str
    session_id: str | None
    error: NotRequired[None]
    result: NotRequired[None]


@closed
class Memory(MemoryView):
    pass


@closed
class ScoredMemory(ScoredMemoryView):
    pass


@closed
class QueryReply(TypedDict):
    memories: list[ScoredMemory]
    count: int


@closed
class Deleted(TypedDict):
    success: bool
    message: str
    data: None


@closed
class EvolutionReply(TypedDict):
    """A memory's chain, oldest to newest; ``missing_link`` names a link that no longer resolves."""

    memories: list[Memory]
    count: int
    cycle_detected: bool
    missing_link: Any


class _Conversation(TypedDict):
    """Whose conversation a summary is of (the request's ids)."""

    app_id: str
    user_id: str
    session_id: str | None


@closed
class Summary(_Conversation, SummaryView):
    pass


@closed
class Task(TaskView):
    pass


@closed
class PoolStats(TypedDict):
    max_connections: int
    created_handlers: int
    active_handlers: int
    available_handlers: int
    initialized: bool


@closed
class BatcherReply(BufferView):
    """One memory batcher buffer after the request (OmniMemory's fields first)."""
