"""Ingestion jobs: plan the notes (offline extractor or LLM pipeline), checkpoint the plan,
then apply it in one transaction.

Idempotent by construction: stage outputs and the plan are stored on the task before anything
is written, note ids are derived from (tenant, task, index), and changes to older notes are
re-computed from their current state by set union (evidence) and assignment (status,
``next_id``). A worker killed at any point re-runs the task from its last checkpoint and ends
with the same notes, never a second copy.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired

import numpy as np
from typing_extensions import TypedDict

from memlane.domain.clock import Clock
from memlane.domain.model import EdgeRef, Job, Node
from memlane.domain.visibility import Viewer
from memlane.services.conversation import word_meaning
from memlane.services.conversation.conflicts import resolve_offline
from memlane.services.conversation.extractor import NoteDraft, agent_note, extract_notes, names_given
from memlane.services.conversation.messages import Message
from memlane.services.conversation.notes import (
    ACTIVE,
    KIND_AGENT,
    KIND_CONVERSATION,
    NOTE_TAG,
    NOTE_TYPE,
    ExistingChange,
    IngestionPlan,
    PlanCounts,
    PlannedNote,
    merge_sources,
    note_id,
    note_slots,
    person_client_id,
    said_at,
)
from memlane.services.conversation.pipeline import CANDIDATES, LLMPipeline, NoteContext
from memlane.services.conversation.succession import NOTE_COSINE
from memlane.services.conversation.task_payloads import AgentMemoryTask, IngestTask, decode_task
from memlane.services.embedding import EmbeddingService
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec, WriteService
from memlane.store.base import Vector
from memlane.store.contracts.jobs import JobProgressOps

log = logging.getLogger(__name__)

#: conversation notes in any tier but ``archive`` take part in conflicts and queries
SEARCH_TIERS = ("hot", "warm", "cold")
#: the nearest notes a draft's facts are compared with: a changed fact must find the note it
#: changes even when the user has many notes that are about as similar
CONFLICT_CANDIDATES = 12
PERSON_FIELDS = frozenset(
    {"type", "client_id", "title", "text_summary", "slots", "importance", "salience", "user_id", "agent", "tags"}
    | {"memory_lane", "producer_agent_id"}
)
#: notes found by the words a correction or cancellation names
KEYWORD_CANDIDATES = 8
NEW_NOTE_FIELDS = frozenset(
    {
        "type",
        "client_id",
        "text_summary",
        "slots",
        "importance",
        "salience",
        "confidence",
        "status",
        "user_id",
        "session_id",
        "task_id",
        "agent",
        "tags",
        "memory_lane",
        "producer_agent_id",
        "embedding",
        "valid_at",
    }
)


@dataclass
class StoreCheckpoint:
    """Task progress kept in the job row, so a restarted worker knows what is already done."""

    store: JobProgressOps
    job: Job
    clock: Clock
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, store: JobProgressOps, job: Job, clock: Clock) -> StoreCheckpoint:
        return cls(store, job, clock, dict(job.progress or {}))

    async def save(self) -> None:
        await self.store.update_job_progress(self.job, self.data, now=self.clock.now())


@dataclass(frozen=True, slots=True)
class TaskRun:
    """One run of an ingestion job: the job row and the task it carries, decoded once."""

    job: Job
    task: IngestTask | AgentMemoryTask

    @classmethod
    def of(cls, job: Job) -> TaskRun:
        task = decode_task(job)
        if not isinstance(task, IngestTask | AgentMemoryTask):
            raise ValueError(f"job {job.id} is a {job.kind!r} job, not an ingestion")
        return cls(job, task)

    @property
    def viewer(self) -> Viewer:
        """The caller who submitted the task: the job reads and writes with that caller's reach."""
        return self.task.acting_as(self.job.tenant_id)


class AppliedNote(TypedDict):
    memory_id: str
    operation: str
    status: str
    targets: list[str]


class AppliedChange(TypedDict):
    """A change to an older note; ``applied`` is false when the note was gone by then."""

    memory_id: str
    operation: str
    status: NotRequired[str | None]
    applied: bool


class IngestResult(PlanCounts):
    """An ingestion task's result: the notes written, the changes to older ones, the counts,
    the commit; and the LLM calls and messages it took."""

    pipeline: str
    memories: list[AppliedNote]
    changes: list[AppliedChange]
    commit_id: str | None
    llm_calls: NotRequired[int]
    message_count: NotRequired[int]


class IngestionService:
    def __init__(
        self,
        *,
        store: JobProgressOps,
        reader: MemoryReader,
        embedding: EmbeddingService,
        writes: WriteService,
        clock: Clock,
        pipeline: LLMPipeline | None,
        close_by_succession: bool = False,
    ):
        self.store = store
        self.reader = reader
        self.embedding = embedding
        self.writes = writes
        self.clock = clock
        self.pipeline = pipeline
        #: the note cosine of the succession closing (succession.py), None when it is off
        self.succession_cosine = NOTE_COSINE if close_by_succession else None
        #: words' vectors for the succession's topic test by meaning (word_meaning.py), with the
        #: embedder its threshold was chosen for only
        self.word_vectors = (
            word_meaning.WordVectors(lambda words: embedding.vectors(words, urgent=False))
            if close_by_succession and embedding.embedder.model_id == word_meaning.MODEL_ID
            else None
        )

    # --- job handlers -------------------------------------------------------------------
    async def run_ingest(self, job: Job) -> IngestResult:
        """``POST /api/v1/memories``: the full pipeline with conflict resolution."""
        run = TaskRun.of(job)
        messages = run.task.conversation()
        ctx = NoteContext(job.tenant_id, job.id, run.task.user_id, KIND_CONVERSATION)
        checkpoint = StoreCheckpoint.of(self.store, job, self.clock)
        vectors: dict[str, tuple[str, Vector]] = {}
        plan = self._saved_plan(checkpoint)
        if plan is None:
            given, known = names_given(messages), await self._known_name(run)
            ctx.user_name = given or known
            try:
                if self.pipeline is not None:
                    plan = await self.pipeline.plan(
                        ctx, messages, checkpoint, lambda text: self._neighbours_by_text(run, text)
                    )
                else:
                    plan, vectors = await self._offline_plan(run, ctx, messages)
            except Exception:
                await checkpoint.save()
                raise
            # a name given now is kept for the user's later conversations in the app
            plan.person_name = given if given and given != known else None
            await self._save_plan(checkpoint, plan)
        result = await self._apply(run, plan, vectors)
        result["llm_calls"] = int(checkpoint.data.get("llm_calls", 0))
        result["message_count"] = len(messages)
        return result

    async def run_agent_memory(self, job: Job) -> IngestResult:
        """``POST /api/v1/agent/memories``: one note, stored directly, no conflict resolution."""
        run = TaskRun.of(job)
        messages = run.task.conversation()
        checkpoint = StoreCheckpoint.of(self.store, job, self.clock)
        plan = self._saved_plan(checkpoint)
        if plan is None:
            sources = [m.source_ref(m.content) for m in messages]
            if self.pipeline is not None:
                try:
                    out = await self.pipeline.agent_note(messages, checkpoint)
                except Exception:
                    await checkpoint.save()
                    raise
                draft = NoteDraft(
                    content=out.content,
                    category="fact",
                    importance=out.importance,
                    keywords=list(out.keywords),
                    sources=sources,
                )
                tags, pipeline = list(out.tags), "llm"
            else:
                draft, tags, pipeline = agent_note(messages), [], "offline"
            note = PlannedNote(
                id=note_id(job.tenant_id, job.id, 0),
                client_id=f"agent:{job.id}:0",
                content=draft.content,
                category=draft.category,
                importance=draft.importance,
                keywords=draft.keywords,
                entities=draft.entities,
                tags=tags,
                sources=draft.sources,
                event_date=draft.event_date,
            )
            plan = IngestionPlan(pipeline=pipeline, memory_kind=KIND_AGENT, notes=[note])
            await self._save_plan(checkpoint, plan)
        result = await self._apply(run, plan, {})
        result["llm_calls"] = int(checkpoint.data.get("llm_calls", 0))
        result["message_count"] = len(messages)
        return result

    # --- planning -----------------------------------------------------------------------
    @staticmethod
    def _saved_plan(checkpoint: StoreCheckpoint) -> IngestionPlan | None:
        saved = checkpoint.data.get("plan")
        return IngestionPlan.from_dict(saved) if isinstance(saved, dict) else None

    @staticmethod
    async def _save_plan(checkpoint: StoreCheckpoint, plan: IngestionPlan) -> None:
        checkpoint.data["plan"] = plan.to_dict()
        checkpoint.data["stage"] = "planned"
        await checkpoint.save()

    async def _offline_plan(
        self, run: TaskRun, ctx: NoteContext, messages: list[Message]
    ) -> tuple[IngestionPlan, dict[str, tuple[str, Vector]]]:
        job = run.job
        name = ctx.user_name
        drafts = extract_notes(messages, name)
        if not drafts:
            return IngestionPlan(pipeline="offline", memory_kind=ctx.memory_kind), {}
        vecs = await self.embedding.vectors([d.content for d in drafts], urgent=False)
        ids = [note_id(job.tenant_id, job.id, i) for i in range(len(drafts))]
        plan = await resolve_offline(
            drafts,
            [np.asarray(v, dtype=np.float32) for v in vecs],
            lambda v: self._neighbours(run, v, CONFLICT_CANDIDATES),
            keyword_neighbours=lambda text: self._keyword_neighbours(run, text),
            speaker_keys=[k for k in ("the user", (name or "").lower()) if k],
            ids=ids,
            client_ids=[f"conv:{job.id}:{i}" for i in range(len(drafts))],
            memory_kind=ctx.memory_kind,
            succession_cosine=self.succession_cosine,
            word_vectors=self.word_vectors,
        )
        vectors = {ids[i]: (d.content, np.asarray(vecs[i], dtype=np.float32)) for i, d in enumerate(drafts)}
        return plan, vectors

    async def _known_name(self, run: TaskRun) -> str | None:
        """The name this user gave in an earlier conversation of the app, if any."""
        user_id = run.task.user_id
        if not user_id:
            return None
        viewer, scope = run.viewer, run.task.app_id
        found = await self.reader.client_ids(viewer, scope, [person_client_id(user_id)])
        if not found:
            return None
        node = await self.reader.node(viewer, scope, next(iter(found.values())))
        name = node.slots.get("name") if node is not None else None
        return name if isinstance(name, str) and name else None

    async def _keyword_neighbours(self, run: TaskRun, text: str) -> list[tuple[Node, float]]:
        """Active notes of the same user that hold the words of ``text`` (a corrected name, a
        cancelled trip): candidates the nearest by meaning may miss."""
        viewer = run.viewer
        scope = run.task.app_id
        hits = await self.reader.keyword(
            viewer, scope, text, KEYWORD_CANDIDATES, tiers=SEARCH_TIERS, types=(NOTE_TYPE,), statuses=(ACTIVE,),
            user_id=run.task.user_id,
        )  # fmt: skip
        index = {n.id: n for n in await self.reader.nodes(viewer, scope, [h.id for h in hits])}
        return [(index[h.id], 0.0) for h in hits if h.id in index and index[h.id].task_id != run.job.id]

    async def _neighbours(self, run: TaskRun, vector: Vector, k: int) -> list[tuple[Node, float]]:
        """Nearest active notes of the same user in the app that the submitter may see,
        excluding this task's own notes (a re-run must not resolve a note against itself)."""
        viewer = run.viewer
        scope = run.task.app_id
        hits = await self.reader.nearest(
            viewer,
            scope,
            vector,
            k + 5,
            tiers=SEARCH_TIERS,
            types=(NOTE_TYPE,),
            statuses=(ACTIVE,),
            user_id=run.task.user_id,
        )
        index = {n.id: n for n in await self.reader.nodes(viewer, scope, [h.id for h in hits])}
        out = [(index[h.id], h.score) for h in hits if h.id in index and index[h.id].task_id != run.job.id]
        return out[:k]

    async def _neighbours_by_text(self, run: TaskRun, text: str) -> list[tuple[Node, float]]:
        return await self._neighbours(run, await self.embedding.query_vector(text), CANDIDATES)

    # --- writing ------------------------------------------------------------------------
    async def _apply(self, run: TaskRun, plan: IngestionPlan, vectors: dict[str, tuple[str, Vector]]) -> IngestResult:
        """One write: new notes (deterministic ids), lineage changes, ``next`` edges."""
        job = run.job
        existing = {n.id: n for n in await self.reader.nodes(run.viewer, run.task.app_id, [c.id for c in plan.changes])}
        vectors = await self._with_vectors(plan, vectors)
        # A note that replaces or contradicts another begins when it was said; the one it
        # replaces is closed then, not deleted (domain/validity.py)
        now = self.clock.now()
        said = {n.id: said_at(n, now) for n in plan.notes}
        specs = [
            self._note_spec(run, plan, n, vectors[n.id][1], valid_at=said[n.id] if n.targets else None)
            for n in plan.notes
        ]
        edges: list[WriteEdgeSpec] = []
        applied: list[AppliedChange] = []
        for change in plan.changes:
            node = existing.get(change.id)
            if node is None:
                log.info("task %s: note %s is gone; its %s is dropped", job.id, change.id, change.operation)
                applied.append({"memory_id": change.id, "operation": change.operation, "applied": False})
                continue
            spec = _change_spec(job, change, node, closed=said.get(change.next_id or "", now))
            specs.append(spec)
            if change.next_id:
                edges.append(WriteEdgeSpec(type="next", src=EdgeRef(id=node.id), dst=EdgeRef(id=change.next_id)))
            applied.append(
                {"memory_id": change.id, "operation": change.operation, "status": spec.status, "applied": True}
            )
        edges += [
            WriteEdgeSpec(type="next", src=EdgeRef(id=n.id), dst=EdgeRef(id=n.next_id)) for n in plan.notes if n.next_id
        ]
        if plan.person_name and run.task.user_id:
            specs.append(self._person_spec(run, run.task.user_id, plan.person_name))
        commit_id = await self._write(run, plan, specs, edges) if specs else None
        counts = plan.summary()
        return {
            "pipeline": plan.pipeline,
            "memories": [
                {"memory_id": n.id, "operation": n.operation, "status": n.status, "targets": n.targets}
                for n in plan.notes
            ],
            "changes": applied,
            "created": counts["created"],
            "updated": counts["updated"],
            "deleted": counts["deleted"],
            "skipped": counts["skipped"],
            "commit_id": commit_id,
        }

    async def _with_vectors(
        self, plan: IngestionPlan, vectors: dict[str, tuple[str, Vector]]
    ) -> dict[str, tuple[str, Vector]]:
        """``vectors`` with one for every planned note whose vector is missing or was computed for
        other text (the LLM pipeline plans without vectors)."""
        missing = [n for n in plan.notes if n.id not in vectors or vectors[n.id][0] != n.content]
        if not missing:
            return vectors
        fresh = await self.embedding.vectors([n.content for n in missing], urgent=False)
        return vectors | {
            n.id: (n.content, np.asarray(v, dtype=np.float32)) for n, v in zip(missing, fresh, strict=True)
        }

    async def _write(
        self, run: TaskRun, plan: IngestionPlan, specs: list[WriteNodeSpec], edges: list[WriteEdgeSpec]
    ) -> str:
        """The plan's one write commit, as the submitter; its id."""
        outcome = await self.writes.write(
            WriteCommand(
                tenant_id=run.job.tenant_id,
                scope=run.task.app_id,
                input_sha256=run.task.request_sha256 or "0" * 64,
                actor=f"conversation:{run.job.id}",
                kind="conversation_ingest",
                model_version=self.pipeline.model if plan.pipeline == "llm" and self.pipeline else "offline",
                nodes=specs,
                edges=edges,
                viewer=run.viewer,
            )
        )
        return outcome.result.commit.id

    @staticmethod
    def _person_spec(run: TaskRun, user_id: str, name: str) -> WriteNodeSpec:
        """The user's name in this app, kept for later conversations: an entity node, not a
        note, so a greeting never outranks what the user said (conversation queries read notes).
        Upserted by its client id; erased with the user."""
        producer = run.task.producer_agent_id
        return WriteNodeSpec(
            type="entity",
            client_id=person_client_id(user_id),
            title=name,
            text_summary=name,
            slots={"memory_kind": "person", "name": name, "task_id": run.job.id},
            importance=0.1,
            salience=0.1,
            user_id=user_id,
            agent=producer,
            tags=[NOTE_TAG, "person"],
            memory_lane="shared",
            producer_agent_id=producer,
            fields_set=PERSON_FIELDS,
        )

    def _note_spec(
        self, run: TaskRun, plan: IngestionPlan, note: PlannedNote, vector: Vector, *, valid_at: datetime | None
    ) -> WriteNodeSpec:
        task, job = run.task, run.job
        return WriteNodeSpec(
            type=NOTE_TYPE,
            id=note.id,
            client_id=note.client_id,
            text_summary=note.content,
            slots=note_slots(note, memory_kind=plan.memory_kind, pipeline=plan.pipeline, task_id=job.id),
            importance=note.importance,
            salience=note.importance,
            confidence=0.8 if plan.pipeline == "llm" else 0.6,
            status=note.status,
            user_id=task.user_id,
            session_id=task.session_id,
            task_id=job.id,
            agent=task.producer_agent_id,
            tags=list(dict.fromkeys([NOTE_TAG, *note.tags]))[:20],
            memory_lane="shared",
            producer_agent_id=task.producer_agent_id,
            embedding=[float(x) for x in vector],
            embedding_model=self.embedding.embedder.model_id,
            valid_at=valid_at,
            fields_set=NEW_NOTE_FIELDS,
        )


def _change_spec(job: Job, change: ExistingChange, node: Node, *, closed: datetime) -> WriteNodeSpec:
    """An older note as a change leaves it: its evidence and keywords merged, and either a new
    status (closed at ``closed``, when the newer note was said, unless it was closed already or
    began later) or the mark of the task that confirmed it."""
    slots = dict(node.slots)
    slots["source_messages"] = merge_sources(list(slots.get("source_messages") or []), change.add_sources)
    if change.add_keywords:
        slots["keywords"] = list(dict.fromkeys([*(slots.get("keywords") or []), *change.add_keywords]))[:20]
    status = node.status
    fields = {"type", "status", "slots"}
    if change.status is not None:
        status = change.status
        slots.update(status_reason=change.reason, next_id=change.next_id, changed_by_task=job.id)
        if node.invalid_at is None and (node.valid_at is None or closed > node.valid_at):
            fields.add("invalid_at")
    else:
        slots["confirmed_by_task"] = job.id
    return WriteNodeSpec(
        type=node.type,
        id=node.id,
        status=status,
        slots=slots,
        invalid_at=closed if "invalid_at" in fields else None,
        fields_set=frozenset(fields),
    )
