"""Compression rollups: ``concept`` nodes with ``slots.summary_kind="compression_rollup"`` that
summarise a group of events and are linked ``derived_from`` each of them.

Recall renders such summaries first and leaves the events they cite out of ``context.text``
(services/recall/context.py), so a rollup turns many event lines into one paragraph with evidence.

Groups, all within one scope:

* **hub groups**: the events that are ``part_of`` a topic, entity or (non-rollup) concept;
* **session groups**: events with a ``session_id`` that belong to no hub group.

A group is split by memory lane and owner (a summary never mixes two agents' private events)
and by user (nor two users' events: the rollup is the user's, domain/visibility.py), and
then, in (created_at, id) order, into chunks of at most ``max_events``; a chunk is
summarised once it has ``min_events`` events. Chunks are stable while events only arrive
later, so re-running updates only the growing last chunk. A rollup's ``client_id`` is derived
from its group key, so a re-run updates it in place; an unchanged source set
(``slots.source_sha256``) is skipped; derived_from edges to events that left a chunk are
deleted; a rollup whose chunk no longer exists (events deleted or aliased) is archived with
``slots.retired_at``, so recall stops rendering it. Aliased duplicates (``slots.alias_of``) are
left out in favour of their canonical node.

The summariser is extractive and offline: sentences of the group's events, scored by how
central their content words are in the group (sum of document frequencies over the square
root of the sentence's word count), picked greedily while not redundant (Dice < 0.7 with a
picked sentence, unless it says the opposite of it: services/opposition.py), up to
``max_sentences`` / ``max_chars``, in their original order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Protocol

from memlane.domain.clock import Clock, iso
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import CommitInfo, EdgeRef, Node
from memlane.services.lifecycle.consolidation import ProgressFn, tokens
from memlane.services.opposition import opposition
from memlane.services.recall.context import is_compression_summary
from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec, WriteService
from memlane.store.base import NodePatch
from memlane.store.contracts.graph_reads import EdgeReadOps, NodeReadOps
from memlane.store.contracts.maintenance import ScopeScanOps, scan_all_nodes

ACTOR: Final = "memlane:compress"
METHOD: Final = "extractive-v1"
HUB_TYPES: Final = ("topic", "entity", "concept")
CLIENT_PREFIX: Final = "memlane:rollup:"
#: what a rollup's write sets; the rest keeps the node defaults (or, on an update, the stored values)
ROLLUP_FIELDS: Final = frozenset(
    {
        "client_id",
        "title",
        "text_summary",
        "slots",
        "tier",
        "memory_lane",
        "owner_agent_id",
        "owner_team_id",
        "user_id",
        "salience",
        "importance",
        "confidence",
    }
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP_TEXT = (
    "a an the and or of to in on at for with by from is are was were be been it its this that i you he "
    "she we they my your his her our their as do does did has have had will would can could"
)
_STOP: Final = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class CompressionOptions:
    min_events: int = 4
    max_events: int = 50
    max_sentences: int = 5
    max_chars: int = 1200

    def __post_init__(self) -> None:
        if not 2 <= self.min_events <= self.max_events:
            raise ValueError("min_events must be at least 2 and at most max_events")
        if self.max_sentences < 1 or self.max_chars < 80:
            raise ValueError("max_sentences must be >= 1 and max_chars >= 80")

    def as_dict(self) -> dict[str, int]:
        return {
            "min_events": self.min_events,
            "max_events": self.max_events,
            "max_sentences": self.max_sentences,
            "max_chars": self.max_chars,
        }


def _words(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in _STOP and len(w) > 2}


#: a sentence of the texts: its place in reading order, its text, its words
Sentence = tuple[int, str, set[str]]


def _redundant(item: Sentence, picked: Sentence) -> bool:
    """A sentence that says what a picked one says: Dice >= 0.7 of their words, and no
    opposition between them ("is vegetarian" / "is not vegetarian" are two facts, not one)."""
    if 2 * len(item[2] & picked[2]) / (len(item[2]) + len(picked[2])) < 0.7:
        return False
    return opposition(item[1], picked[1]) is None


def extractive_summary(texts: Sequence[str], *, max_sentences: int = 5, max_chars: int = 1200) -> str:
    """The most central, non-redundant sentences of ``texts``, in their original order."""
    sentences = _sentences(texts)
    if not sentences:
        return ""
    picked = _pick(sentences, max_sentences=max_sentences, max_chars=max_chars)
    out = []
    for _, text, _ in sorted(picked, key=lambda s: s[0]):
        out.append(text if text[-1:] in ".!?…" else text + ".")
    return " ".join(out)


def _sentences(texts: Sequence[str]) -> list[Sentence]:
    """Every sentence with words, numbered in reading order, with its word set."""
    sentences: list[Sentence] = []
    for text in texts:
        for part in _SENTENCE.split(text.strip()):
            part = part.strip()
            words = _words(part)
            if words:
                sentences.append((len(sentences), part, words))
    return sentences


def _pick(sentences: list[Sentence], *, max_sentences: int, max_chars: int) -> list[Sentence]:
    """The most central sentences first (words many sentences share), skipping one a picked one
    already says, within ``max_chars`` (the first one cut to fit when it alone is too long)."""
    df: Counter[str] = Counter()
    for _, _, words in sentences:
        df.update(words)

    def score(item: Sentence) -> float:
        return sum(df[w] for w in item[2]) / math.sqrt(len(item[2]))

    picked: list[Sentence] = []
    used = 0
    for item in sorted(sentences, key=lambda s: (-score(s), s[0])):
        if len(picked) >= max_sentences:
            break
        if any(_redundant(item, p) for p in picked):
            continue
        cost = len(item[1]) + (1 if picked else 0)
        if used + cost > max_chars:
            if picked:
                continue
            item = (item[0], item[1][: max_chars - 1].rstrip() + "…", item[2])
            cost = len(item[1])
        picked.append(item)
        used += cost
    return picked


def _event_text(n: Node) -> str:
    return n.text_summary or n.title or ""


@dataclass(slots=True)
class RollupPlan:
    key: str
    client_id: str
    title: str
    summary: str
    source_ids: list[str]
    source_sha256: str
    group: dict[str, Any]
    lane: str
    owner_agent_id: str | None
    owner_team_id: str | None
    hub_id: str | None
    user_id: str | None = None
    status: str = "new"
    rollup_id: str | None = None
    salience: float = 0.5
    importance: float = 0.5
    confidence: float = 0.5

    def as_dict(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "rollup_id": self.rollup_id,
            "status": self.status,
            "title": self.title,
            "summary": self.summary,
            "source_count": len(self.source_ids),
            "group": self.group,
        }


@dataclass(slots=True)
class CompressionReport:
    tenant_id: str
    scope: str
    applied: bool
    events: int = 0
    rollups: list[RollupPlan] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    stale_edges_removed: int = 0
    #: rollups whose chunk no longer exists (events deleted or aliased): archived on apply
    retire: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        counts = Counter(r.status for r in self.rollups)
        return {
            "tenant_id": self.tenant_id,
            "scope": self.scope,
            "applied": self.applied,
            "events": self.events,
            "rollups": [r.as_dict() for r in self.rollups],
            "new": counts.get("new", 0),
            "changed": counts.get("changed", 0),
            "unchanged": counts.get("unchanged", 0),
            "commits": self.commits,
            "stale_edges_removed": self.stale_edges_removed,
            "retired": self.retire,
        }


class CompressionStore(ScopeScanOps, NodeReadOps, EdgeReadOps, Protocol):
    """Whole scopes of events, the rollups already stored, and the edges between them."""


class CompressionService:
    def __init__(self, store: CompressionStore, writes: WriteService, *, clock: Clock):
        self.store = store
        self.writes = writes
        self.clock = clock

    async def _scan(self, tenant_id: str, scope: str, types: Sequence[str]) -> list[Node]:
        return await scan_all_nodes(self.store, tenant_id, scope, types=types)

    async def plan(
        self, tenant_id: str, scope: str, opts: CompressionOptions, progress: ProgressFn | None = None
    ) -> CompressionReport:
        report = CompressionReport(tenant_id, scope, applied=False)
        events = {n.id: n for n in await self._scan(tenant_id, scope, ("event",)) if n.slots.get("alias_of") is None}
        report.events = len(events)
        hub_scan = await self._scan(tenant_id, scope, HUB_TYPES)
        hubs = {n.id: n for n in hub_scan if not is_compression_summary(n) and n.slots.get("alias_of") is None}
        live_rollups = [
            n
            for n in hub_scan
            if is_compression_summary(n) and (n.client_id or "").startswith(CLIENT_PREFIX) and n.tier != "archive"
        ]
        members: dict[str, set[str]] = {}
        hub_ids = sorted(hubs)
        for start in range(0, len(hub_ids), 200):
            part = hub_ids[start : start + 200]
            found = await self.store.edges_touching(
                tenant_id, scope, part, min_weight=0.0, min_confidence=0.0, limit=1_000_000, types=["part_of"]
            )
            for e in found:
                if e.src_id in events and e.dst_id in hubs:
                    members.setdefault(e.dst_id, set()).add(e.src_id)
            if progress is not None:
                progress("group", min(start + 200, len(hub_ids)), len(hub_ids))
        grouped = {eid for ids in members.values() for eid in ids}
        sessions: dict[str, set[str]] = {}
        for n in events.values():
            if n.id not in grouped and n.session_id:
                sessions.setdefault(n.session_id, set()).add(n.id)

        groups: list[tuple[dict[str, Any], str | None, str, list[Node]]] = []
        for hid in sorted(members):
            hub = hubs[hid]
            label = f"Summary: {hub.title or hub.text_summary or hub.type}"
            groups.append(({"kind": "hub", "id": hid}, hid, label, [events[i] for i in members[hid]]))
        for sid in sorted(sessions):
            groups.append(
                ({"kind": "session", "id": sid}, None, f"Summary of session {sid}", [events[i] for i in sessions[sid]])
            )
        for group, hub_id, label, group_events in groups:
            report.rollups.extend(self._chunks(group, hub_id, label, group_events, opts))
        await self._mark_existing(tenant_id, scope, report)
        planned = {r.client_id for r in report.rollups}
        report.retire = sorted(n.id for n in live_rollups if n.client_id not in planned)
        return report

    def _chunks(
        self, group: dict[str, Any], hub_id: str | None, label: str, group_events: list[Node], opts: CompressionOptions
    ) -> list[RollupPlan]:
        lanes: dict[tuple[str, str | None, str | None, str | None], list[Node]] = {}
        for n in group_events:
            key = (
                (n.memory_lane, n.owner_agent_id, n.owner_team_id, n.user_id)
                if n.memory_lane != "shared"
                else ("shared", None, None, n.user_id)
            )
            lanes.setdefault(key, []).append(n)
        plans: list[RollupPlan] = []
        for (lane, owner_agent, owner_team, user), items in sorted(
            lanes.items(), key=lambda kv: tuple(x or "" for x in kv[0])
        ):
            items.sort(key=lambda n: (iso(n.created_at) or "", n.id))
            for index in range(0, len(items), opts.max_events):
                chunk = items[index : index + opts.max_events]
                if len(chunk) < opts.min_events:
                    continue
                number = index // opts.max_events
                # a user's chunk names its user; chunks of no user keep the key they always had
                parts = [group["kind"], group["id"], lane, owner_agent, owner_team, number]
                group_key = canonical_json([*parts, user] if user is not None else parts)
                source_ids = [n.id for n in chunk]
                source_sha = sha256_hex(canonical_json([[n.id, _event_text(n)] for n in chunk]))
                summary = extractive_summary(
                    [_event_text(n) for n in chunk], max_sentences=opts.max_sentences, max_chars=opts.max_chars
                )
                if not summary:
                    continue
                part = f" (part {number + 1})" if len(items) > opts.max_events else ""
                plans.append(
                    RollupPlan(
                        key=group_key,
                        client_id=CLIENT_PREFIX + sha256_hex(group_key)[:40],
                        title=f"{label}{part}, {len(chunk)} events"[:2000],
                        summary=summary,
                        source_ids=source_ids,
                        source_sha256=source_sha,
                        group={**group, "chunk": number, "lane": lane},
                        lane=lane,
                        owner_agent_id=owner_agent,
                        owner_team_id=owner_team,
                        hub_id=hub_id,
                        user_id=user,
                        salience=max(n.salience for n in chunk),
                        importance=max(n.importance for n in chunk),
                        confidence=sum(n.confidence for n in chunk) / len(chunk),
                    )
                )
        return plans

    async def _mark_existing(self, tenant_id: str, scope: str, report: CompressionReport) -> None:
        ids = await self.store.resolve_client_ids(tenant_id, scope, [r.client_id for r in report.rollups])
        stored = {n.id: n for n in await self.store.get_nodes(tenant_id, scope, list(ids.values()))}
        for r in report.rollups:
            rid = ids.get(r.client_id)
            node = stored.get(rid) if rid else None
            if node is None:
                continue
            r.rollup_id = node.id
            r.status = "unchanged" if node.slots.get("source_sha256") == r.source_sha256 else "changed"

    async def run(
        self,
        tenant_id: str,
        scope: str,
        opts: CompressionOptions,
        *,
        apply: bool,
        progress: ProgressFn | None = None,
    ) -> CompressionReport:
        """Dry-run (the default): what would be written. With ``apply``: one write commit for the
        new and changed rollups (embedded by the usual job), then stale edges removed."""
        report = await self.plan(tenant_id, scope, opts, progress)
        if not apply:
            return report
        report.applied = True
        todo = [r for r in report.rollups if r.status != "unchanged"]
        params = {
            "options": opts.as_dict(),
            "rollups": [[r.client_id, r.source_sha256] for r in todo],
            "retire": report.retire,
        }
        input_sha = sha256_hex(canonical_json(params))
        if todo:
            await self._write_rollups(tenant_id, scope, todo, input_sha, report)
        if report.retire:
            await self._retire(tenant_id, scope, report, input_sha)
        return report

    async def _write_rollups(
        self, tenant_id: str, scope: str, todo: list[RollupPlan], input_sha: str, report: CompressionReport
    ) -> None:
        """One write commit for the rollups of ``todo`` and their edges; then the derived_from
        edges of changed rollups to events that left their chunk are deleted."""
        now = self.clock.now()
        nodes = [_rollup_spec(r, now) for r in todo]
        edges = [edge for r in todo for edge in _rollup_edges(r)]
        cmd = WriteCommand(
            tenant_id=tenant_id,
            scope=scope,
            input_sha256=input_sha,
            actor=ACTOR,
            auto_embed=True,
            nodes=nodes,
            edges=edges,
            kind="compress",
        )
        outcome = await self.writes.write(cmd)
        report.commits.append(outcome.result.commit.id)
        by_client = {n.client_id: n.id for n in outcome.result.nodes}
        for r in todo:
            r.rollup_id = by_client.get(r.client_id, r.rollup_id)
        stale = await self._stale_edges(tenant_id, scope, todo)
        if stale:
            info = CommitInfo(actor=ACTOR, input_sha256=input_sha, kind="compress")
            commit = await self.writes.delete_edges(tenant_id, scope, stale, info)
            if commit is not None:
                report.commits.append(commit.id)
                report.stale_edges_removed = len(stale)

    async def _stale_edges(self, tenant_id: str, scope: str, todo: list[RollupPlan]) -> list[str]:
        """The derived_from edges of changed rollups to events no longer in their chunk."""
        stale: list[str] = []
        for r in todo:
            if r.status != "changed" or r.rollup_id is None:
                continue
            keep = set(r.source_ids)
            found = await self.store.edges_touching(
                tenant_id,
                scope,
                [r.rollup_id],
                min_weight=0.0,
                min_confidence=0.0,
                limit=100_000,
                types=["derived_from"],
            )
            stale += [e.id for e in found if e.src_id == r.rollup_id and e.dst_id not in keep]
        return stale

    async def _retire(self, tenant_id: str, scope: str, report: CompressionReport, input_sha: str) -> None:
        """Archive rollups whose chunk is gone, so recall stops rendering a stale summary."""
        now = self.clock.now()
        retire = set(report.retire)

        def mutate(found: list[Node]) -> tuple[list[NodePatch], dict[str, Any]]:
            patches = []
            for n in found:
                if n.id in retire and is_compression_summary(n) and n.tier != "archive":
                    slots = {**n.slots, "retired_at": iso(now), "retired_reason": "source chunk no longer exists"}
                    patches.append(NodePatch(id=n.id, tier="archive", slots=slots))
            return patches, {"compress": {"retired": sorted(p.id for p in patches)}}

        info = CommitInfo(actor=ACTOR, input_sha256=input_sha, kind="compress")
        commit = await self.writes.mutate(tenant_id, scope, sorted(retire), mutate, info)
        if commit is not None:
            report.commits.append(commit.id)


def _rollup_spec(r: RollupPlan, now: datetime) -> WriteNodeSpec:
    """A rollup as a hot ``concept`` node in its chunk's lane, owned like its events."""
    slots = {
        "summary_kind": "compression_rollup",
        "method": METHOD,
        "source_ids": r.source_ids,
        "source_count": len(r.source_ids),
        "source_sha256": r.source_sha256,
        "group": r.group,
        "generated_at": iso(now),
    }
    return WriteNodeSpec(
        type="concept",
        fields_set=ROLLUP_FIELDS,
        client_id=r.client_id,
        tier="hot",
        memory_lane=r.lane,
        owner_agent_id=r.owner_agent_id,
        owner_team_id=r.owner_team_id,
        user_id=r.user_id,
        title=r.title,
        text_summary=r.summary,
        slots=slots,
        salience=r.salience,
        importance=r.importance,
        confidence=round(r.confidence, 6),
    )


def _rollup_edges(r: RollupPlan) -> list[WriteEdgeSpec]:
    """``derived_from`` each source event, and ``part_of`` the group's hub when it has one."""
    ref = EdgeRef(client_id=r.client_id)
    edges = [
        WriteEdgeSpec(type="derived_from", src=ref, dst=EdgeRef(id=sid), weight=0.9, confidence=1.0)
        for sid in r.source_ids
    ]
    if r.hub_id is not None:
        edges.append(WriteEdgeSpec(type="part_of", src=ref, dst=EdgeRef(id=r.hub_id), weight=0.8))
    return edges
