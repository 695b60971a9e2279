"""What a memory note is in the store, and the plan that creates or evolves notes.

Both ingestion paths (offline extractor, LLM pipeline) produce an :class:`IngestionPlan`;
one function turns it into node writes, so both write exactly the same node shape:
a node of type ``event`` in scope ``app_id`` whose ``text_summary`` is the note and whose
``slots`` hold the lineage (``status_reason``, ``next_id``) and the evidence
(``source_messages``: id, role, timestamp of every message the note came from).

Note ids are derived from (tenant, task, note index), so a re-run of a task writes the same
ids: an upsert, never a duplicate.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from typing_extensions import TypedDict

from memlane.domain.clock import iso
from memlane.domain.model import Node
from memlane.services.conversation.messages import parse_timestamp

NOTE_TYPE = "event"
NOTE_TAG = "conversation"
KIND_CONVERSATION = "conversation_note"
KIND_AGENT = "agent_note"
ACTIVE = "active"
#: lineage statuses: merged into a newer note / replaced by a newer value / refuted by a newer note
CONSOLIDATED = "consolidated"
SUPERSEDED = "superseded"
CONTRADICTED = "contradicted"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "SKIP")
_NAMESPACE = uuid.UUID("6f1d3a52-35a8-4d5e-9a59-6c0f1f6c7d11")


def person_client_id(user_id: str) -> str:
    """The client id of the node that keeps a user's name in an app (one per user and app)."""
    return f"person:{user_id}"


def note_id(tenant_id: str, task_id: str, index: int) -> str:
    """Stable per (tenant, task, note index): the key of idempotent re-runs."""
    return str(uuid.uuid5(_NAMESPACE, f"{tenant_id}/{task_id}/{index}"))


@dataclass(slots=True)
class PlannedNote:
    id: str
    client_id: str
    content: str
    category: str
    importance: float
    keywords: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    event_date: str | None = None
    status: str = ACTIVE
    status_reason: str | None = None
    next_id: str | None = None
    operation: str = "CREATE"
    targets: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ExistingChange:
    """What the plan does to a note that was already stored (UPDATE, DELETE or SKIP)."""

    id: str
    operation: str
    reason: str
    status: str | None = None
    next_id: str | None = None
    add_sources: list[dict[str, Any]] = field(default_factory=list)
    add_keywords: list[str] = field(default_factory=list)


class PlanCounts(TypedDict):
    """How many notes a plan creates, updates and deletes, and how many changes it skips."""

    created: int
    updated: int
    deleted: int
    skipped: int


@dataclass(slots=True)
class IngestionPlan:
    pipeline: str
    memory_kind: str
    notes: list[PlannedNote] = field(default_factory=list)
    changes: list[ExistingChange] = field(default_factory=list)
    #: a name the user gave in this conversation, kept for later conversations (person node)
    person_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngestionPlan:
        return cls(
            pipeline=data["pipeline"],
            memory_kind=data["memory_kind"],
            notes=[PlannedNote(**n) for n in data.get("notes", [])],
            changes=[ExistingChange(**c) for c in data.get("changes", [])],
            person_name=data.get("person_name"),
        )

    def summary(self) -> PlanCounts:
        counts: PlanCounts = {"created": 0, "updated": 0, "deleted": 0, "skipped": 0}
        for n in self.notes:
            if n.operation == "UPDATE":
                counts["updated"] += 1
            elif n.operation == "DELETE":
                counts["deleted"] += 1
            else:
                counts["created"] += 1
        counts["skipped"] = sum(1 for c in self.changes if c.operation == "SKIP")
        return counts


def merge_sources(current: list[dict[str, Any]], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Union by message id, order kept: re-applying the same evidence changes nothing."""
    seen = {str(s.get("id")) for s in current}
    out = list(current)
    for s in extra:
        if str(s.get("id")) not in seen:
            seen.add(str(s.get("id")))
            out.append(s)
    return out


def source_times(sources: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """Earliest and latest message time of a note's evidence (ISO strings)."""
    stamps: list[datetime] = []
    for s in sources:
        ts = s.get("timestamp")
        if isinstance(ts, str) and ts:
            try:
                stamps.append(parse_timestamp(ts))
            except ValueError:
                continue
    if not stamps:
        return None, None
    return iso(min(stamps)), iso(max(stamps))


def note_slots(note: PlannedNote, *, memory_kind: str, pipeline: str, task_id: str) -> dict[str, Any]:
    first, last = source_times(note.sources)
    slots: dict[str, Any] = {
        "memory_kind": memory_kind,
        "category": note.category,
        "keywords": note.keywords,
        "entities": note.entities,
        "source_messages": note.sources,
        "event_date": note.event_date,
        "first_message_at": first,
        "occurred_at": last,
        "status_reason": note.status_reason,
        "next_id": note.next_id,
        "operation": note.operation,
        "supersedes": note.targets,
        "pipeline": pipeline,
        "task_id": task_id,
    }
    for key, value in note.extra.items():
        slots.setdefault(key, value)
    return slots


def note_metadata(node: Node) -> dict[str, Any]:
    """The spec's ``metadata`` object: the note's slots plus its indexed attributes."""
    meta: dict[str, Any] = {k: v for k, v in node.slots.items() if k != "embedding"}
    meta.setdefault("next_id", None)
    meta.setdefault("status_reason", None)
    meta.setdefault("source_messages", [])
    meta.update(
        app_id=node.scope,
        user_id=node.user_id,
        session_id=node.session_id,
        task_id=node.task_id or meta.get("task_id"),
        type=node.type,
        status=node.status,
        importance=node.importance,
        tags=list(node.tags),
        created_at=iso(node.created_at),
        updated_at=iso(node.updated_at),
        embedding_status=node.embedding_status,
    )
    if node.valid_at is not None or node.invalid_at is not None:
        meta.update(valid_at=iso(node.valid_at), invalid_at=iso(node.invalid_at), expired_at=iso(node.expired_at))
    return meta


def said_at(note: PlannedNote, now: datetime) -> datetime:
    """When a planned note was said: its latest source message with a time, never later than
    ``now`` (a client's clock ahead of ours must not make a fact begin in the future)."""
    times = []
    for source in note.sources:
        raw = source.get("timestamp") if isinstance(source, dict) else None
        if isinstance(raw, str) and raw:
            try:
                times.append(parse_timestamp(raw))
            except ValueError:
                continue
    return min(max(times), now) if times else now


def event_time(node: Node) -> datetime | None:
    """When the remembered thing was said: the latest source message, else the write time."""
    occurred = node.slots.get("occurred_at")
    if isinstance(occurred, str) and occurred:
        try:
            return parse_timestamp(occurred)
        except ValueError:
            pass
    return node.created_at
