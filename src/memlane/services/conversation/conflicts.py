"""Offline conflict resolution: each new draft against the nearest stored notes and the
drafts before it, by similarity plus negation and change rules.

Decisions, checked against candidates from the most similar down (first match wins):

* **DELETE** (the old note is ``contradicted``): the two disagree in polarity ("likes coffee"
  vs "doesn't like coffee") and are about the same thing (content-word Jaccard >= 0.5 or
  cosine >= 0.85).
* **SKIP** (nothing new; the old note gains the new evidence): same polarity and cosine >= 0.95
  or Jaccard >= 0.9.
* **UPDATE, replace** (the old note is ``superseded``): the new text carries a change cue
  ("now", "moved", "switched", "anymore"...) and Jaccard >= 0.4 or cosine >= 0.85.
* **UPDATE, merge** (the old note is ``consolidated``): same polarity and cosine >= 0.9 or
  Jaccard >= 0.7; the new note carries both notes' evidence.
* **CREATE** otherwise.

Every UPDATE/DELETE links the old note to the new one with ``next_id``: its evolution chain.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import numpy as np

from memlane.domain.model import Node
from memlane.services.conversation import language as lang
from memlane.services.conversation.extractor import NoteDraft
from memlane.services.conversation.notes import (
    CONSOLIDATED,
    CONTRADICTED,
    SUPERSEDED,
    ExistingChange,
    IngestionPlan,
    PlannedNote,
    merge_sources,
)
from memlane.store.base import Vector

CONTRADICT_JACCARD, CONTRADICT_COSINE = 0.5, 0.85
DUPLICATE_JACCARD, DUPLICATE_COSINE = 0.9, 0.95
REPLACE_JACCARD, REPLACE_COSINE = 0.4, 0.85
MERGE_JACCARD, MERGE_COSINE = 0.7, 0.9
MAX_MERGED_CHARS = 600

Neighbours = Callable[[Vector], Awaitable[list[tuple[Node, float]]]]


@dataclass(slots=True)
class Candidate:
    """A note a draft may conflict with: stored (``node``) or planned earlier in this request."""

    id: str
    content: str
    similarity: float
    node: Node | None = None
    planned: PlannedNote | None = None


@dataclass(slots=True)
class Verdict:
    operation: str
    status: str | None
    reason: str


def judge(draft_text: str, candidate_text: str, cosine: float) -> Verdict | None:
    """The rule that applies to one (draft, candidate) pair, or None when they are unrelated."""
    a, b = lang.content_words(draft_text), lang.content_words(candidate_text)
    jac = lang.jaccard(a, b)
    polarity_differs = lang.is_negated(draft_text) != lang.is_negated(candidate_text)
    if polarity_differs and (jac >= CONTRADICT_JACCARD or cosine >= CONTRADICT_COSINE):
        return Verdict("DELETE", CONTRADICTED, f"contradicted by a newer statement (similarity {cosine:.2f})")
    if not polarity_differs and (cosine >= DUPLICATE_COSINE or jac >= DUPLICATE_JACCARD):
        return Verdict("SKIP", None, f"already known (similarity {cosine:.2f})")
    if lang.has_change_cue(draft_text) and (jac >= REPLACE_JACCARD or cosine >= REPLACE_COSINE):
        return Verdict("UPDATE", SUPERSEDED, f"replaced by newer information (similarity {cosine:.2f})")
    if not polarity_differs and (cosine >= MERGE_COSINE or jac >= MERGE_JACCARD):
        return Verdict("UPDATE", CONSOLIDATED, f"consolidated into a newer note (similarity {cosine:.2f})")
    return None


def _cos(a: Vector, b: Vector) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


async def resolve_offline(
    drafts: list[NoteDraft],
    vectors: list[Vector],
    neighbours: Neighbours,
    *,
    ids: list[str],
    client_ids: list[str],
    memory_kind: str,
) -> IngestionPlan:
    """Plan the request's notes: which drafts become notes and what happens to older ones."""
    plan = IngestionPlan(pipeline="offline", memory_kind=memory_kind)
    changes: dict[str, ExistingChange] = {}
    planned_vectors: list[tuple[PlannedNote, Vector]] = []
    for i, (draft, vec) in enumerate(zip(drafts, vectors, strict=True)):
        candidates = [
            Candidate(n.id, n.text_summary or n.title or "", sim, node=n)
            for n, sim in await neighbours(vec)
            if n.id not in changes or changes[n.id].operation == "SKIP"
        ]
        candidates += [
            Candidate(p.id, p.content, _cos(vec, pv), planned=p) for p, pv in planned_vectors if p.status == "active"
        ]
        candidates.sort(key=lambda c: -c.similarity)
        verdict, target = None, None
        for cand in candidates:
            verdict = judge(draft.content, cand.content, cand.similarity)
            if verdict is not None:
                target = cand
                break
        if verdict is None or target is None:
            note = _note(draft, ids[i], client_ids[i], "CREATE")
            plan.notes.append(note)
            planned_vectors.append((note, vec))
            continue
        if verdict.operation == "SKIP":
            _skip_into(target, draft, changes)
            continue
        note = _note(draft, ids[i], client_ids[i], verdict.operation)
        note.targets = [target.id]
        if verdict.status == CONSOLIDATED:
            old_sources = (
                target.planned.sources
                if target.planned
                else list(target.node.slots.get("source_messages", []) if target.node else [])
            )
            note.sources = merge_sources(old_sources, note.sources)
            note.keywords = list(dict.fromkeys(note.keywords + _keywords_of(target)))[:12]
            if lang.jaccard(lang.content_words(target.content), lang.content_words(draft.content)) < 0.8:
                merged = f"{target.content.rstrip()} {note.content}"
                if len(merged) <= MAX_MERGED_CHARS:
                    note.content = merged
        if target.planned is not None:
            target.planned.status = verdict.status or target.planned.status
            target.planned.status_reason = verdict.reason
            target.planned.next_id = note.id
        else:
            earlier = changes.get(target.id)  # a SKIP earlier in this request keeps its evidence
            changes[target.id] = ExistingChange(
                id=target.id, operation=verdict.operation, reason=verdict.reason, status=verdict.status,
                next_id=note.id, add_sources=earlier.add_sources if earlier else [],
                add_keywords=earlier.add_keywords if earlier else [],
            )  # fmt: skip
        plan.notes.append(note)
        planned_vectors.append((note, vec))
    plan.changes = list(changes.values())
    return plan


def _keywords_of(c: Candidate) -> list[str]:
    if c.planned is not None:
        return c.planned.keywords
    if c.node is not None:
        kws = c.node.slots.get("keywords")
        return [str(k) for k in kws] if isinstance(kws, list) else []
    return []


def _skip_into(target: Candidate, draft: NoteDraft, changes: dict[str, ExistingChange]) -> None:
    """A duplicate adds its evidence to the note it repeats instead of becoming a note."""
    if target.planned is not None:
        target.planned.sources = merge_sources(target.planned.sources, draft.sources)
        return
    change = changes.get(target.id)
    if change is None:
        change = changes[target.id] = ExistingChange(
            id=target.id, operation="SKIP", reason="repeated by a newer message"
        )
    change.add_sources = merge_sources(change.add_sources, draft.sources)
    change.add_keywords = list(dict.fromkeys(change.add_keywords + draft.keywords))


def _note(draft: NoteDraft, note_id: str, client_id: str, operation: str) -> PlannedNote:
    return PlannedNote(
        id=note_id,
        client_id=client_id,
        content=draft.content,
        category=draft.category,
        importance=draft.importance,
        keywords=list(draft.keywords),
        entities=list(draft.entities),
        tags=[draft.category],
        sources=list(draft.sources),
        event_date=draft.event_date,
        operation=operation,
    )
