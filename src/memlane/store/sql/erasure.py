"""Erasure in SQL: everything of one subject (domain/erasure.py) removed in one transaction.

The steps, each a method: find the subject's nodes (with the knowledge items written for it
and their projections, and the nodes derived from any of them), lock the affected scopes'
heads in a fixed order, delete edges and nodes (vectors live in the node row; the keyword
index follows by trigger on SQLite and is a generated column on PostgreSQL), empty the
commits that name what was erased (hash kept, ``erased_at`` set), delete the jobs and recall
audits that name it, delete the knowledge rows, chain one erasure commit per affected scope
(its epoch bump makes every process's caches reload the scope), and store the receipt as an
audit event. The backends then make the removal physical (``_purge``): SQLite merges the
keyword index and truncates the WAL, PostgreSQL vacuums the tables.

What names an erased thing: stored JSON (payloads, results, diffs) is matched as canonical
text, by the subject's key/value pairs (``"user_id":"u1"``) and by the ids of erased nodes and
edges.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from memlane.domain.erasure import ErasureReceipt, ErasureSubject
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import CommitInfo
from memlane.store.batcher import batcher_buffers
from memlane.store.knowledge import knowledge_items, knowledge_sync_runs, knowledge_sync_state, knowledge_versions
from memlane.store.schema import audit_events, commits, edges, jobs, nodes, recall_audit, scope_heads
from memlane.store.sql.core import ScopeHead, SqlCore, chunks

_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: jobs that have finished: their records go when they name an erased node, while queued
#: ones that only list node ids (embedding) still have other nodes to work on
FINISHED = ("done", "failed")
#: derived nodes of derived nodes are followed this deep
DERIVATION_ROUNDS = 5
#: the tables an erasure writes, which the backends purge afterwards
ERASED_TABLES: tuple[str, ...] = (
    "nodes",
    "edges",
    "commits",
    "jobs",
    "recall_audit",
    "knowledge_items",
    "knowledge_versions",
    "knowledge_sync_state",
    "knowledge_sync_runs",
    "batcher_buffers",
)


@dataclass(slots=True)
class Doomed:
    """What an erasure removes, gathered before anything is removed."""

    #: node id -> (scope, kind, has a vector)
    nodes: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    scopes: set[str] = field(default_factory=set)

    def add(self, node_id: str, scope: str, slots: Any, has_vector: bool) -> None:
        self.nodes[node_id] = (scope, node_kind(slots), has_vector)
        self.scopes.add(scope)


def node_kind(slots: Any) -> str:
    """Which surface a node belongs to, for the receipt: its ``slots.kind`` (layered and tool
    memories, knowledge projections) or ``slots.memory_kind`` (conversation and agent notes),
    a compression summary, or a graph node."""
    if isinstance(slots, dict):
        if slots.get("summary_kind"):
            return "summary"
        for key in ("kind", "memory_kind"):
            kind = slots.get(key)
            if isinstance(kind, str) and kind:
                return kind
    return "graph"


def names_any(text: str, ids: set[str], needles: Sequence[str]) -> bool:
    """Whether canonical JSON text names an erased id or the subject."""
    return any(n in text for n in needles) or (bool(ids) and not ids.isdisjoint(_ID.findall(text)))


class Erasure(SqlCore):
    async def erase(
        self,
        subject: ErasureSubject,
        *,
        erasure_id: str,
        actor: str | None,
        now: datetime,
        knowledge_scope: str,
        subject_digest: str,
    ) -> ErasureReceipt:
        """In one transaction: gather what the subject owns, lock the scopes' heads, remove,
        and record the erasure in each scope's chain and as an audit event; then make the
        removal physical."""
        tenant = subject.tenant_id
        async with self._write_tx() as conn:
            doomed = await self._collect(conn, subject, knowledge_scope)
            scopes = sorted(doomed.scopes)
            # a fixed lock order across scopes: opposite orders deadlock on PostgreSQL
            heads = {sc: await self._lock_scope_head(conn, tenant, sc, now) for sc in scopes}
            receipt = ErasureReceipt(erasure_id, subject, subject_digest, actor, now, scopes=len(scopes))
            receipt.counts = await self._remove(conn, subject, doomed, scopes, now)
            await self._record(conn, receipt, heads)
        await self._purge(tenant, scopes)
        return receipt

    async def _collect(self, conn: AsyncConnection, subject: ErasureSubject, knowledge_scope: str) -> Doomed:
        """Everything the erasure removes, and the scopes it touches, before anything is removed."""
        doomed = Doomed()
        await self._subject_nodes(conn, subject, doomed)
        await self._subject_items(conn, subject, knowledge_scope, doomed)
        if subject.kind not in ("scope", "tenant"):  # a whole scope takes what was derived inside it anyway
            await self._derived_nodes(conn, subject.tenant_id, doomed)
        if subject.kind == "scope":
            doomed.scopes.add(subject.value)
        if subject.kind == "tenant":
            doomed.scopes.update(await self._tenant_scopes(conn, subject.tenant_id))
        return doomed

    async def _remove(
        self, conn: AsyncConnection, subject: ErasureSubject, doomed: Doomed, scopes: list[str], now: datetime
    ) -> dict[str, Any]:
        """Remove what was gathered, and what names it; the receipt's counts."""
        tenant = subject.tenant_id
        whole = subject.kind in ("scope", "tenant")
        counts: Counter[str] = Counter()
        edge_ids = await self._erase_edges(conn, tenant, scopes if whole else None, list(doomed.nodes))
        counts["edges"] = len(edge_ids)
        await self._erase_nodes(conn, tenant, list(doomed.nodes))
        counts["nodes"] = len(doomed.nodes)
        counts["embeddings"] = sum(1 for _, _, v in doomed.nodes.values() if v)
        counts["keyword_rows"] = len(doomed.nodes)
        kinds = Counter(kind for _, kind, _ in doomed.nodes.values())
        erased_ids = set(doomed.nodes) | edge_ids
        counts["commits"] = await self._erase_commits(conn, subject, scopes, erased_ids, now, whole=whole)
        job_kinds = await self._erase_jobs(conn, subject, erased_ids, doomed.items)
        counts["jobs"] = sum(job_kinds.values())
        counts["recall_audits"] = await self._erase_recall_audits(conn, subject, scopes, erased_ids)
        counts.update(await self._erase_knowledge(conn, tenant, doomed.items, whole=subject.kind == "tenant"))
        counts["batcher_buffers"] = await self._erase_batcher_buffers(conn, subject)
        return {
            **{k: counts.get(k, 0) for k in ("nodes", "edges", "embeddings", "keyword_rows", "commits")},
            "nodes_by_kind": dict(sorted(kinds.items())),
            "jobs": counts["jobs"],
            "jobs_by_kind": dict(sorted(job_kinds.items())),
            "recall_audits": counts["recall_audits"],
            **{k: counts.get(k, 0) for k in ("knowledge_items", "knowledge_versions", "knowledge_sync_runs")},
            "batcher_buffers": counts["batcher_buffers"],
        }

    async def _record(self, conn: AsyncConnection, receipt: ErasureReceipt, heads: dict[str, ScopeHead]) -> None:
        """An erasure commit in each scope's chain (its epoch bump makes every process reload
        the scope), and the receipt as an audit event."""
        tenant = receipt.subject.tenant_id
        info = CommitInfo(actor=receipt.actor, input_sha256=sha256_hex(receipt.id), kind="erasure")
        for sc, head in heads.items():
            diff = {"erasure": {"erasure_id": receipt.id}}
            await self._chain_commit(
                conn, tenant, sc, head, info, diff, receipt.created_at, bump_rev=True, bump_epoch=True
            )
        await conn.execute(
            audit_events.insert().values(
                tenant_id=tenant,
                id=receipt.id,
                kind="erasure",
                actor=receipt.actor,
                subject_kind=receipt.subject.kind,
                subject_sha256=receipt.subject_digest,  # the HMAC; the column keeps its first name
                counts={**receipt.counts, "scopes": receipt.scopes},
                created_at=receipt.created_at,
            )
        )

    async def _purge(self, tenant_id: str, scopes: Sequence[str]) -> None:
        """Make the removal physical, after the commit; each backend says how."""

    # --- what the subject owns ------------------------------------------------------------
    async def _subject_nodes(self, conn: AsyncConnection, subject: ErasureSubject, doomed: Doomed) -> None:
        cond: list[Any] = [nodes.c.tenant_id == subject.tenant_id]
        if subject.kind == "scope":
            cond.append(nodes.c.scope == subject.value)
        elif subject.kind == "user":
            cond.append(nodes.c.user_id == subject.value)
        elif subject.kind == "agent":
            v = subject.value
            cond.append(sa.or_(nodes.c.owner_agent_id == v, nodes.c.producer_agent_id == v, nodes.c.agent == v))
        await self._gather(conn, doomed, cond)

    async def _gather(self, conn: AsyncConnection, doomed: Doomed, cond: Sequence[Any]) -> list[str]:
        has_vector = nodes.c.embedding.is_not(None).label("has_vector")
        rows = await conn.execute(sa.select(nodes.c.id, nodes.c.scope, nodes.c.slots, has_vector).where(*cond))
        added = []
        for r in rows:
            if r.id not in doomed.nodes:
                doomed.add(r.id, r.scope, r.slots, bool(r.has_vector))
                added.append(r.id)
        return added

    async def _subject_items(
        self, conn: AsyncConnection, subject: ErasureSubject, knowledge_scope: str, doomed: Doomed
    ) -> None:
        """Knowledge items of the subject, and their projections into memory: items belong to
        the scope they are synced into, and to the user or agent a version was written for."""
        tenant = subject.tenant_id
        if subject.kind == "tenant" or (subject.kind == "scope" and subject.value == knowledge_scope):
            q = sa.select(knowledge_items.c.id).where(knowledge_items.c.tenant_id == tenant)
        elif subject.kind == "scope":
            q = sa.select(knowledge_sync_state.c.item_id).where(
                knowledge_sync_state.c.tenant_id == tenant, knowledge_sync_state.c.scope == subject.value
            )
        else:
            column = knowledge_versions.c.user_id if subject.kind == "user" else knowledge_versions.c.author
            q = sa.select(knowledge_versions.c.item_id).where(
                knowledge_versions.c.tenant_id == tenant, column == subject.value
            )
        doomed.items.update(r[0] for r in await conn.execute(q))
        for part in chunks(sorted(doomed.items)):
            synced = await conn.execute(
                sa.select(knowledge_sync_state.c.node_id).where(
                    knowledge_sync_state.c.tenant_id == tenant, knowledge_sync_state.c.item_id.in_(part)
                )
            )
            ids = [r[0] for r in synced]
            for ids_part in chunks(ids):
                await self._gather(conn, doomed, [nodes.c.tenant_id == tenant, nodes.c.id.in_(ids_part)])

    async def _derived_nodes(self, conn: AsyncConnection, tenant_id: str, doomed: Doomed) -> None:
        """Nodes made from erased ones: a summary citing them by a ``derived_from`` edge or
        in ``slots.source_ids``. Followed a few rounds (a summary of summaries)."""
        frontier = list(doomed.nodes)
        for _ in range(DERIVATION_ROUNDS):
            if not frontier:
                return
            wanted = set(frontier)
            found: set[str] = set()
            for part in chunks(frontier):
                rows = await conn.execute(
                    sa.select(edges.c.src_id).where(
                        edges.c.tenant_id == tenant_id, edges.c.type == "derived_from", edges.c.dst_id.in_(part)
                    )
                )
                found.update(r[0] for r in rows)
            for sc in sorted(doomed.scopes):
                rows = await conn.execute(
                    sa.select(nodes.c.id, nodes.c.slots).where(
                        nodes.c.tenant_id == tenant_id, nodes.c.scope == sc, nodes.c.type == "concept"
                    )
                )
                for r in rows:
                    cited = r.slots.get("source_ids") if isinstance(r.slots, dict) else None
                    if isinstance(cited, list) and not wanted.isdisjoint(str(x) for x in cited):
                        found.add(r.id)
            new = sorted(found - set(doomed.nodes))
            frontier = []
            for part in chunks(new):
                frontier += await self._gather(conn, doomed, [nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part)])

    async def _tenant_scopes(self, conn: AsyncConnection, tenant_id: str) -> set[str]:
        rows = await conn.execute(sa.select(scope_heads.c.scope).where(scope_heads.c.tenant_id == tenant_id))
        return {r[0] for r in rows}

    # --- removal -----------------------------------------------------------------------------
    async def _erase_edges(
        self, conn: AsyncConnection, tenant_id: str, scopes: Sequence[str] | None, node_ids: Sequence[str]
    ) -> set[str]:
        """Edges of the erased scopes, and edges touching an erased node; their ids."""
        gone: set[str] = set()
        conds: list[Any] = []
        if scopes is not None:
            conds += [edges.c.scope.in_(list(part)) for part in chunks(scopes)]
        for part in chunks(node_ids):
            conds.append(sa.or_(edges.c.src_id.in_(part), edges.c.dst_id.in_(part)))
        for cond in conds:
            where = [edges.c.tenant_id == tenant_id, cond]
            gone.update(r[0] for r in await conn.execute(sa.select(edges.c.id).where(*where)))
            await conn.execute(edges.delete().where(*where))
        return gone

    async def _erase_nodes(self, conn: AsyncConnection, tenant_id: str, node_ids: Sequence[str]) -> None:
        for part in chunks(node_ids):
            await conn.execute(nodes.delete().where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part)))

    async def _erase_commits(
        self,
        conn: AsyncConnection,
        subject: ErasureSubject,
        scopes: Sequence[str],
        erased_ids: set[str],
        now: datetime,
        *,
        whole: bool,
    ) -> int:
        """Empty the commits of the erased scopes (whole), or those naming what was erased:
        the diff becomes ``{}`` and the input digest empty, the hashes stay."""
        tenant = subject.tenant_id
        emptied: dict[str, Any] = {"diff": {}, "input_sha256": "", "erased_at": now}
        if whole:
            count = 0
            for part in chunks(scopes):
                cond = [commits.c.tenant_id == tenant, commits.c.scope.in_(part), commits.c.erased_at.is_(None)]
                values = {**emptied, "actor": None} if subject.kind == "tenant" else emptied
                count += int((await conn.execute(commits.update().where(*cond).values(**values))).rowcount or 0)
            return count
        needles = subject.needles()
        doomed: list[str] = []
        for sc in scopes:
            rows = await conn.execute(
                sa.select(commits.c.id, commits.c.diff, commits.c.actor).where(
                    commits.c.tenant_id == tenant, commits.c.scope == sc, commits.c.erased_at.is_(None)
                )
            )
            for r in rows:
                named = subject.kind == "agent" and r.actor == subject.value
                if named or names_any(canonical_json(r.diff), erased_ids, needles):
                    doomed.append(r.id)
        for part in chunks(doomed):
            cond = [commits.c.tenant_id == tenant, commits.c.id.in_(part)]
            await conn.execute(commits.update().where(*cond).values(**emptied))
            if subject.kind == "agent":
                await conn.execute(commits.update().where(*cond, commits.c.actor == subject.value).values(actor=None))
        return len(doomed)

    async def _erase_jobs(
        self, conn: AsyncConnection, subject: ErasureSubject, erased_ids: set[str], items: Iterable[str]
    ) -> Counter[str]:
        """Jobs of the subject (queued ones too: they would write its data again), and finished
        jobs naming what was erased (node and edge ids, knowledge item ids); with them go their
        idempotency keys, task results and progress, and webhook payloads. Counted by kind."""
        tenant = subject.tenant_id
        needles = subject.needles()
        item_needles = tuple(canonical_json(i) for i in items)
        cols = (jobs.c.id, jobs.c.kind, jobs.c.status, jobs.c.scope, jobs.c.payload, jobs.c.result, jobs.c.progress)
        doomed: list[str] = []
        kinds: Counter[str] = Counter()
        for r in await conn.execute(sa.select(*cols, jobs.c.last_error).where(jobs.c.tenant_id == tenant)):
            text = canonical_json([r.payload, r.result, r.progress, r.last_error])
            mine = subject.kind == "tenant" or (subject.kind == "scope" and r.scope == subject.value)
            finished_naming = r.status in FINISHED and names_any(text, erased_ids, item_needles)
            if mine or finished_naming or any(n in text for n in needles):
                doomed.append(r.id)
                kinds[r.kind] += 1
        for part in chunks(doomed):
            await conn.execute(jobs.delete().where(jobs.c.tenant_id == tenant, jobs.c.id.in_(part)))
        return kinds

    async def _erase_recall_audits(
        self, conn: AsyncConnection, subject: ErasureSubject, scopes: Sequence[str], erased_ids: set[str]
    ) -> int:
        """Recall audits of the erased scopes, whose seeds include an erased node, or made by
        the erased agent (with them go their query hashes)."""
        tenant = subject.tenant_id
        whole = subject.kind in ("scope", "tenant")
        doomed: list[str] = []
        for part in chunks(scopes):
            rows = await conn.execute(
                sa.select(recall_audit.c.id, recall_audit.c.seed_ids, recall_audit.c.consumer_agent_id).where(
                    recall_audit.c.tenant_id == tenant, recall_audit.c.scope.in_(part)
                )
            )
            for r in rows:
                by_agent = subject.kind == "agent" and r.consumer_agent_id == subject.value
                if whole or by_agent or not erased_ids.isdisjoint(str(s) for s in r.seed_ids or ()):
                    doomed.append(r.id)
        if subject.kind == "agent":
            rows = await conn.execute(
                sa.select(recall_audit.c.id).where(
                    recall_audit.c.tenant_id == tenant, recall_audit.c.consumer_agent_id == subject.value
                )
            )
            doomed += [r[0] for r in rows]
        doomed = sorted(set(doomed))
        for part in chunks(doomed):
            await conn.execute(
                recall_audit.delete().where(recall_audit.c.tenant_id == tenant, recall_audit.c.id.in_(part))
            )
        return len(doomed)

    async def _erase_batcher_buffers(self, conn: AsyncConnection, subject: ErasureSubject) -> int:
        """Memory batcher buffers hold messages not yet ingested: those of the scope (app), of
        the user, of every buffer an erased agent appended to, or of the whole tenant."""
        t = batcher_buffers
        cond = [t.c.tenant_id == subject.tenant_id]
        if subject.kind == "scope":
            cond.append(t.c.app_id == subject.value)
        elif subject.kind == "user":
            cond.append(t.c.user_id == subject.value)
        rows = (await conn.execute(sa.select(t.c.app_id, t.c.user_id, t.c.session_key, t.c.viewer).where(*cond))).all()
        if subject.kind == "agent":
            rows = [r for r in rows if isinstance(r.viewer, dict) and r.viewer.get("agent_id") == subject.value]
        for r in rows:
            await conn.execute(
                t.delete().where(
                    t.c.tenant_id == subject.tenant_id,
                    t.c.app_id == r.app_id,
                    t.c.user_id == r.user_id,
                    t.c.session_key == r.session_key,
                )
            )
        return len(rows)

    async def _erase_knowledge(
        self, conn: AsyncConnection, tenant_id: str, items: Iterable[str], *, whole: bool
    ) -> dict[str, int]:
        """Knowledge items with their versions and sync state; sync runs of the whole tenant,
        or those whose failures name an erased item."""
        ids = sorted(items)
        out = {"knowledge_items": 0, "knowledge_versions": 0, "knowledge_sync_runs": 0}
        for part in chunks(ids):
            for table, key, column in (
                (knowledge_versions, "knowledge_versions", knowledge_versions.c.item_id),
                (knowledge_sync_state, None, knowledge_sync_state.c.item_id),
                (knowledge_items, "knowledge_items", knowledge_items.c.id),
            ):
                result = await conn.execute(table.delete().where(table.c.tenant_id == tenant_id, column.in_(part)))
                if key is not None:
                    out[key] += int(result.rowcount or 0)
        wanted = [canonical_json(i) for i in ids]
        doomed = []
        for r in await conn.execute(
            sa.select(knowledge_sync_runs.c.id, knowledge_sync_runs.c.failed_items, knowledge_sync_runs.c.error).where(
                knowledge_sync_runs.c.tenant_id == tenant_id
            )
        ):
            if whole or any(w in canonical_json([r.failed_items, r.error]) for w in wanted):
                doomed.append(r.id)
        for part in chunks(doomed):
            await conn.execute(
                knowledge_sync_runs.delete().where(
                    knowledge_sync_runs.c.tenant_id == tenant_id, knowledge_sync_runs.c.id.in_(part)
                )
            )
        out["knowledge_sync_runs"] = len(doomed)
        return out


__all__ = ["ERASED_TABLES", "Erasure", "names_any", "node_kind"]
