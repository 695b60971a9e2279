"""The LLM pipeline: episodic and summarizer agents in parallel, then one synthesis and
conflict-resolution call that writes the canonical note and decides CREATE / UPDATE /
DELETE / SKIP against the nearest existing notes.

Cost is bounded per request: three calls in the normal case, one corrective retry for a
malformed answer, and never more than :data:`LLM_CALLS_PER_REQUEST` whatever the number of
stored notes (the candidates are the :data:`CANDIDATES` nearest). Each stage's answer is
checkpointed on the task, so a worker that dies mid-pipeline resumes after the last finished
stage instead of paying for it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from memlane.domain.clock import iso
from memlane.domain.model import Node
from memlane.llm.client import ChatClient
from memlane.llm.structured import CallBudget, ask
from memlane.services.conversation import agents
from memlane.services.conversation.messages import Message
from memlane.services.conversation.notes import (
    CONSOLIDATED,
    CONTRADICTED,
    SUPERSEDED,
    ExistingChange,
    IngestionPlan,
    PlannedNote,
    note_id,
)

LLM_CALLS_PER_REQUEST = 4
CANDIDATES = 5

NeighboursByText = Callable[[str], Awaitable[list[tuple[Node, float]]]]


class Checkpoint(Protocol):
    """Progress stored on the task row; ``save`` commits ``data``."""

    data: dict[str, Any]

    async def save(self) -> None: ...


@dataclass(slots=True)
class NoteContext:
    tenant_id: str
    task_id: str
    user_id: str | None
    memory_kind: str
    #: the user's name when it is known (given in these messages or an earlier conversation)
    user_name: str | None = None


class LLMPipeline:
    def __init__(self, client: ChatClient):
        self.client = client

    @property
    def model(self) -> str:
        return self.client.model

    def budget(self, checkpoint: Checkpoint, limit: int = LLM_CALLS_PER_REQUEST) -> CallBudget:
        return CallBudget(limit=limit, used=int(checkpoint.data.get("llm_calls", 0)))

    async def plan(
        self, ctx: NoteContext, messages: list[Message], checkpoint: Checkpoint, neighbours: NeighboursByText
    ) -> IngestionPlan:
        budget = self.budget(checkpoint)
        try:
            episodic, summary = await self._agents(ctx, messages, checkpoint, budget)
            probe = " ".join([summary.summary, *episodic.facts[:10], *episodic.preferences[:5]])
            found = (await neighbours(probe))[:CANDIDATES]
            candidates = [
                {
                    "memory_id": n.id,
                    "document": n.text_summary or n.title or "",
                    "status": n.status,
                    "created_at": iso(n.created_at),
                    "occurred_at": n.slots.get("occurred_at"),
                }
                for n, _ in found
            ]
            known = {c["memory_id"] for c in candidates}

            def only_known_ids(answer: agents.ResolutionOutput) -> str | None:
                unknown = [t for t in answer.target_ids if t not in known]
                if unknown:
                    return f"target_ids {unknown} are not among the existing memories given"
                return None

            resolution = await ask(
                self.client,
                agents.ResolutionOutput,
                agent="synthesis",
                system=agents.SYNTHESIS_SYSTEM,
                user=agents.synthesis_prompt(
                    messages, episodic, summary, candidates, user_id=ctx.user_id, user_name=ctx.user_name
                ),
                budget=budget,
                check=only_known_ids,
            )
        finally:
            checkpoint.data["llm_calls"] = budget.used
        return self._plan(ctx, messages, resolution, summary)

    async def _agents(
        self, ctx: NoteContext, messages: list[Message], checkpoint: Checkpoint, budget: CallBudget
    ) -> tuple[agents.EpisodicOutput, agents.SummaryOutput]:
        """Both first-stage agents, in parallel; each answer is saved as soon as it is valid."""
        saved_ep, saved_sum = checkpoint.data.get("episodic"), checkpoint.data.get("summary")
        if saved_ep is not None and saved_sum is not None:
            return agents.EpisodicOutput.model_validate(saved_ep), agents.SummaryOutput.model_validate(saved_sum)
        prompt = agents.conversation_prompt(messages, user_id=ctx.user_id, user_name=ctx.user_name)
        work: dict[str, Awaitable[Any]] = {}
        if saved_ep is None:
            work["episodic"] = ask(
                self.client,
                agents.EpisodicOutput,
                agent="episodic",
                system=agents.EPISODIC_SYSTEM,
                user=prompt,
                budget=budget,
            )
        if saved_sum is None:
            work["summary"] = ask(
                self.client,
                agents.SummaryOutput,
                agent="summarizer",
                system=agents.SUMMARIZER_SYSTEM,
                user=prompt,
                budget=budget,
            )
        results = await asyncio.gather(*work.values(), return_exceptions=True)
        failure: BaseException | None = None
        for name, result in zip(work, results, strict=True):
            if isinstance(result, BaseException):
                failure = failure or result
            else:
                checkpoint.data[name] = result.model_dump()
        checkpoint.data["llm_calls"] = budget.used
        checkpoint.data["stage"] = "agents"
        await checkpoint.save()
        if failure is not None:
            raise failure
        return (
            agents.EpisodicOutput.model_validate(checkpoint.data["episodic"]),
            agents.SummaryOutput.model_validate(checkpoint.data["summary"]),
        )

    def _plan(
        self,
        ctx: NoteContext,
        messages: list[Message],
        resolution: agents.ResolutionOutput,
        summary: agents.SummaryOutput,
    ) -> IngestionPlan:
        out = resolution.note
        by_id = {m.id: m for m in messages}
        cited = [by_id[i] for i in dict.fromkeys(out.source_message_ids) if i in by_id] or messages
        sources = [m.source_ref() for m in cited]
        plan = IngestionPlan(pipeline="llm", memory_kind=ctx.memory_kind)
        if resolution.operation == "SKIP":
            plan.changes = [
                ExistingChange(
                    id=t,
                    operation="SKIP",
                    reason=resolution.reason or "already known",
                    add_sources=sources,
                    add_keywords=list(out.keywords),
                )
                for t in resolution.target_ids
            ]
            return plan
        note = PlannedNote(
            id=note_id(ctx.tenant_id, ctx.task_id, 0),
            client_id=f"conv:{ctx.task_id}:0",
            content=out.content,
            category=out.category,
            importance=out.importance,
            keywords=list(out.keywords),
            entities=list(out.entities),
            tags=list(dict.fromkeys([*out.tags, *summary.tags]))[:20],
            sources=sources,
            event_date=out.event_date,
            operation=resolution.operation,
            targets=list(resolution.target_ids),
            extra={"semantic_queries": summary.semantic_queries, "summary": summary.summary},
        )
        plan.notes.append(note)
        if resolution.operation in ("UPDATE", "DELETE"):
            status = CONTRADICTED if resolution.operation == "DELETE" else (
                SUPERSEDED if resolution.update_mode == "replace" else CONSOLIDATED
            )  # fmt: skip
            plan.changes = [
                ExistingChange(
                    id=t,
                    operation=resolution.operation,
                    reason=resolution.reason or f"{status} by a newer memory",
                    status=status,
                    next_id=note.id,
                )
                for t in resolution.target_ids
            ]
        return plan

    async def agent_note(self, messages: list[Message], checkpoint: Checkpoint) -> agents.AgentNoteOutput:
        """The fast path: one call (plus one retry if malformed), no conflict resolution."""
        budget = self.budget(checkpoint, limit=2)
        try:
            return await ask(
                self.client,
                agents.AgentNoteOutput,
                agent="agent-memory",
                system=agents.AGENT_NOTE_SYSTEM,
                user=agents.conversation_prompt(messages, user_id=None),
                budget=budget,
            )
        finally:
            checkpoint.data["llm_calls"] = budget.used
