"""What SQLite and PostgreSQL share: one SQLAlchemy Core implementation of the Store protocol.

Backends override only what differs: how a transaction takes the write lock, how row
numbers are allocated, vector and keyword search, and job leasing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memlane.domain.clock import iso, new_id
from memlane.domain.errors import Conflict, InvalidRequest, ServiceUnavailable
from memlane.domain.hashing import canonical_json, commit_hash, sha256_hex
from memlane.domain.model import (
    CLIENT_EMBEDDING_MODEL,
    Commit,
    CommitInfo,
    Edge,
    EdgeUpsert,
    Job,
    Node,
    NodeBrief,
    NodeUpsert,
    RecallAudit,
    ScoredId,
    SeedFilter,
    Visibility,
    WriteResult,
)
from memlane.store import migrate
from memlane.store.base import (
    EdgeRedirectResult,
    FollowUpJobs,
    NodeMutation,
    NodePatch,
    PendingEmbedding,
    Vector,
    commit_from_row,
    edge_from_row,
    job_from_row,
    node_from_row,
)
from memlane.store.schema import (
    NODE_BRIEF_FIELDS,
    NODE_COLUMNS_NO_VECTOR,
    commits,
    edges,
    jobs,
    nodes,
    recall_audit,
    scope_heads,
)

#: SQLite allows 32766 bound parameters; stay far below for IN lists and multi-row inserts.
CHUNK = 500

#: node columns an upsert may change, by WriteNode field name
UPDATABLE_NODE_FIELDS: tuple[str, ...] = (
    "type",
    "tier",
    "title",
    "text_summary",
    "slots",
    "raw_ref",
    "evidence_ref",
    "memory_lane",
    "producer_agent_id",
    "owner_agent_id",
    "owner_team_id",
    "salience",
    "importance",
    "confidence",
    "status",
    "topic_state",
    "layer",
    "user_id",
    "session_id",
    "task_id",
    "agent",
    "tags",
    "expires_at",
)


@dataclass(slots=True)
class ScopeHead:
    head_commit_id: str | None
    head_hash: str | None
    commit_seq: int
    rev: int
    epoch: int


def job_row(job: Job, now: datetime) -> dict[str, Any]:
    """A new job's column values; a job starts unleased, without error, result or progress."""
    return {
        "tenant_id": job.tenant_id,
        "id": job.id,
        "scope": job.scope,
        "kind": job.kind,
        "payload": job.payload,
        "status": job.status,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "idempotency_key": job.idempotency_key,
        "run_after": job.run_after,
        "lease_owner": None,
        "lease_expires_at": None,
        "last_error": None,
        "result": None,
        "progress": None,
        "created_at": now,
        "updated_at": now,
    }


def chunks(items: Sequence[Any], size: int = CHUNK) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def node_content_sha(node: Node) -> str:
    """A digest of what a node says, recorded in the commit diff for audit."""
    return sha256_hex(
        canonical_json(
            {
                "type": node.type,
                "title": node.title,
                "text_summary": node.text_summary,
                "slots": node.slots,
                "tier": node.tier,
                "memory_lane": node.memory_lane,
                "owner_agent_id": node.owner_agent_id,
                "owner_team_id": node.owner_team_id,
                "status": node.status,
            }
        )
    )


class SqlStore:
    """Shared implementation; subclasses set ``backend`` and the dialect hooks."""

    backend = "sql"

    def __init__(self, url: str, *, vector_dim: int):
        self.url = url
        self.vector_dim = vector_dim
        self._engine: AsyncEngine | None = None

    # --- lifecycle ----------------------------------------------------------------------
    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise ServiceUnavailable("store is not open")
        return self._engine

    def _create_engine(self) -> AsyncEngine:
        raise NotImplementedError

    async def open(self) -> None:
        self._engine = self._create_engine()
        current = await migrate.current_revision(self._engine)
        head = migrate.head_revision()
        if current != head:
            raise ServiceUnavailable(
                f"database schema is at revision {current!r}, this memlane needs {head!r}: run `memlane migrate`"
            )

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
            return True
        except Exception:
            return False

    async def pool_stats(self) -> dict[str, Any]:
        pool = self.engine.pool
        size = int(getattr(pool, "size", lambda: 0)())
        checked_out = int(getattr(pool, "checkedout", lambda: 0)())
        checked_in = int(getattr(pool, "checkedin", lambda: 0)())
        overflow = int(getattr(pool, "overflow", lambda: 0)())
        max_overflow = int(getattr(pool, "_max_overflow", 0))
        return {
            "backend": self.backend,
            "pool_class": type(pool).__name__,
            "max_connections": size + max(max_overflow, 0),
            "created_connections": checked_out + checked_in,
            "checked_out": checked_out,
            "idle": checked_in,
            "overflow": overflow,
        }

    def _in_scope(self, column: Any, scope: str) -> Any:
        """The scope test of lookups by id. SQLite overrides it so its planner keeps to the
        id index instead of scanning the whole scope through a (tenant, scope, ...) index."""
        return column == scope

    def _one_of(self, column: Any, values: Sequence[str]) -> Any:
        """``column IN (values)``; PostgreSQL overrides it with ``= ANY(array)`` so the
        statement's text does not change with the number of values and stays prepared."""
        return column.in_(list(values))

    # --- transactions -------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _write_tx(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.begin() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as conn:
            yield conn

    async def _lock_scope_head(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> ScopeHead:
        raise NotImplementedError

    async def _allocate_row_numbers(self, conn: AsyncConnection, count: int) -> list[int]:
        raise NotImplementedError

    async def _chain_commit(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        head: ScopeHead,
        info: CommitInfo,
        diff: dict[str, Any],
        now: datetime,
        *,
        bump_rev: bool,
        bump_epoch: bool = False,
        commit_id: str | None = None,
    ) -> Commit:
        if info.parent_commit_id is not None and info.parent_commit_id != head.head_commit_id:
            raise Conflict(
                f"parent_commit_id {info.parent_commit_id} is not the head of scope {scope!r} "
                f"(head is {head.head_commit_id}); re-read and retry",
                code="parent_commit_mismatch",
                details={"field": "parent_commit_id", "head_commit_id": head.head_commit_id},
            )
        cid = commit_id or new_id()
        chash = commit_hash(head.head_hash, diff)
        seq = head.commit_seq + 1
        await conn.execute(
            commits.insert().values(
                tenant_id=tenant_id,
                id=cid,
                scope=scope,
                seq=seq,
                parent_id=head.head_commit_id,
                parent_hash=head.head_hash,
                commit_hash=chash,
                actor=info.actor,
                input_sha256=info.input_sha256,
                kind=info.kind,
                model_version=info.model_version,
                prompt_version=info.prompt_version,
                diff=diff,
                created_at=now,
            )
        )
        await conn.execute(
            scope_heads.update()
            .where(scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope)
            .values(
                head_commit_id=cid,
                head_hash=chash,
                commit_seq=seq,
                rev=head.rev + (1 if bump_rev else 0),
                epoch=head.epoch + (1 if bump_epoch else 0),
                updated_at=now,
            )
        )
        return Commit(
            tenant_id=tenant_id,
            id=cid,
            scope=scope,
            parent_id=head.head_commit_id,
            parent_hash=head.head_hash,
            commit_hash=chash,
            actor=info.actor,
            input_sha256=info.input_sha256,
            kind=info.kind,
            diff=diff,
            created_at=now,
        )

    async def _insert_rows(self, conn: AsyncConnection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
        """Insert many rows that share one set of keys (a write's new nodes, or its new edges)."""
        for part in chunks(rows, 200):
            await conn.execute(table.insert(), list(part))

    async def _bump_rev(self, conn: AsyncConnection, tenant_id: str, scope: str, now: datetime) -> int:
        head = await self._lock_scope_head(conn, tenant_id, scope, now)
        await conn.execute(
            scope_heads.update()
            .where(scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope)
            .values(rev=head.rev + 1, updated_at=now)
        )
        return head.rev + 1

    # --- graph writes -------------------------------------------------------------------
    async def apply_write(
        self,
        tenant_id: str,
        scope: str,
        nodes_in: Sequence[NodeUpsert],
        edges_in: Sequence[EdgeUpsert],
        commit: CommitInfo,
        *,
        now: datetime,
        follow_up: FollowUpJobs | None = None,
        writer: Visibility | None = None,
    ) -> WriteResult:
        vectors = self._vectors_for(nodes_in)
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            rev = head.rev + 1
            # Known before any row is written, so every row is written once, already stamped
            # (a second UPDATE per row halved bulk-write throughput, and on PostgreSQL re-inserted
            # each row into every index).
            commit_id = new_id()
            existing = await self._existing_for_upserts(conn, tenant_id, scope, nodes_in)

            inserts: list[dict[str, Any]] = []
            updates: list[dict[str, Any]] = []
            written: list[Node] = []
            pending: list[str] = []
            diff_nodes: list[dict[str, Any]] = []
            seen_ids: set[str] = set()
            for position, up in enumerate(nodes_in):
                node = up.node
                node.tenant_id, node.scope = tenant_id, scope
                prior = self._match_existing(up, existing)
                if (
                    prior is not None
                    and writer is not None
                    and not writer.can_see(prior.memory_lane, prior.owner_agent_id, prior.owner_team_id)
                ):
                    raise Conflict(
                        f"nodes[{len(seen_ids)}]: client_id or id {prior.client_id or prior.id!r} belongs to a "
                        "node in another agent's private lane",
                        code="client_id_in_use",
                        details={"field": f"nodes[{len(seen_ids)}]"},
                    )
                if prior is not None:
                    node.id = prior.id
                if node.id in seen_ids:
                    raise InvalidRequest(
                        f"node {node.id} (client_id {node.client_id!r}) appears twice in one write",
                        code="duplicate_node",
                        details={"field": "nodes", "id": node.id},
                    )
                seen_ids.add(node.id)
                vector = vectors[position]
                if prior is None:
                    node.created_at = node.updated_at = now
                    node.commit_id = commit_id
                    row = self._node_insert_row(node, vector, up, rev)
                    inserts.append(row)
                    status = row["embedding_status"]
                    op = "create"
                else:
                    row, merged = self._node_update_row(prior, up, vector, rev, now)
                    row["commit_id"] = merged.commit_id = commit_id
                    updates.append(row)
                    node = merged
                    status = row.get("embedding_status", prior.embedding_status)
                    op = "update"
                node.embedding_status = status
                if status == "pending":
                    pending.append(node.id)
                written.append(node)
                diff_nodes.append(
                    {
                        "op": op,
                        "id": node.id,
                        "client_id": node.client_id,
                        "type": node.type,
                        "content_sha256": node_content_sha(node),
                    }
                )

            if inserts:
                numbers = await self._allocate_row_numbers(conn, len(inserts))
                for row, number in zip(inserts, numbers, strict=True):
                    row["row_no"] = number
                await self._insert_rows(conn, nodes, inserts)
            for row in updates:
                node_id = row.pop("_id")
                await conn.execute(
                    nodes.update().where(nodes.c.tenant_id == tenant_id, nodes.c.id == node_id).values(**row)
                )

            written_edges, diff_edges = await self._upsert_edges(
                conn, tenant_id, scope, written, edges_in, now, writer, commit_id=commit_id, rev=rev
            )

            diff = {"nodes": diff_nodes, "edges": diff_edges}
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, commit_id=commit_id
            )
            result = WriteResult(commit=chained, nodes=written, edges=written_edges, pending_node_ids=pending)
            if follow_up is not None:
                follow = follow_up(result)
                if follow:
                    await self._insert_jobs(conn, follow, now)
            return result

    @staticmethod
    def _vectors_for(ups: Sequence[NodeUpsert]) -> list[np.ndarray | None]:
        """Unit-length float32 vectors of the upserts that bring one, normalised together
        (one array conversion for a bulk write instead of one per node) and before the write
        transaction, which other writers wait for."""
        out: list[np.ndarray | None] = [None] * len(ups)
        given = [i for i, up in enumerate(ups) if up.embedding is not None and not up.force_reembed]
        by_dim: dict[int, list[int]] = {}
        for i in given:
            by_dim.setdefault(len(ups[i].embedding or ()), []).append(i)
        for rows in by_dim.values():
            matrix = np.array([ups[i].embedding for i in rows], dtype=np.float32)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = np.divide(matrix, norms, out=matrix, where=norms > 0)
            for i, vec in zip(rows, matrix, strict=True):
                out[i] = vec
        return out

    def _node_insert_row(self, node: Node, vector: np.ndarray | None, up: NodeUpsert, rev: int) -> dict[str, Any]:
        ready = vector is not None
        return {
            "tenant_id": node.tenant_id,
            "id": node.id,
            "scope": node.scope,
            "client_id": node.client_id,
            "type": node.type,
            "tier": node.tier,
            "title": node.title,
            "text_summary": node.text_summary,
            "slots": node.slots,
            "raw_ref": node.raw_ref,
            "evidence_ref": node.evidence_ref,
            "memory_lane": node.memory_lane,
            "producer_agent_id": node.producer_agent_id,
            "owner_agent_id": node.owner_agent_id,
            "owner_team_id": node.owner_team_id,
            "salience": node.salience,
            "importance": node.importance,
            "confidence": node.confidence,
            "embedding": vector,
            "embedding_status": "ready" if ready else "pending",
            "embedding_model": node.embedding_model if ready else None,
            "embedding_dim": int(vector.shape[0]) if ready and vector is not None else None,
            "status": node.status,
            "topic_state": node.topic_state,
            "layer": node.layer,
            "user_id": node.user_id,
            "session_id": node.session_id,
            "task_id": node.task_id,
            "agent": node.agent,
            "tags": node.tags,
            "expires_at": node.expires_at,
            "created_at": node.created_at,
            "updated_at": node.updated_at,
            "last_activated": node.last_activated,
            "commit_id": node.commit_id,
            "rev": rev,
        }

    def _node_update_row(
        self, prior: Node, up: NodeUpsert, vector: np.ndarray | None, rev: int, now: datetime
    ) -> tuple[dict[str, Any], Node]:
        node = up.node
        row: dict[str, Any] = {"_id": prior.id, "rev": rev, "updated_at": now}
        text_changed = ("title" in up.fields_set and node.title != prior.title) or (
            "text_summary" in up.fields_set and node.text_summary != prior.text_summary
        )
        merged = prior
        for name in UPDATABLE_NODE_FIELDS:
            if name in up.fields_set:
                value = getattr(node, name)
                row[name] = value
                setattr(merged, name, value)
        if node.client_id is not None:
            row["client_id"] = node.client_id
            merged.client_id = node.client_id
        merged.updated_at = now
        if vector is not None:
            row.update(
                embedding=vector,
                embedding_status="ready",
                embedding_model=node.embedding_model,
                embedding_dim=int(vector.shape[0]),
            )
            merged.embedding_model = node.embedding_model
        elif up.force_reembed or text_changed or prior.embedding_status != "ready":
            row.update(embedding=None, embedding_status="pending", embedding_model=None, embedding_dim=None)
            merged.embedding_model = None
        return row, merged

    async def _existing_for_upserts(
        self, conn: AsyncConnection, tenant_id: str, scope: str, ups: Sequence[NodeUpsert]
    ) -> dict[str, Node]:
        """Existing nodes keyed both by ``id:<id>`` and ``client:<client_id>``."""
        ids = [u.node.id for u in ups if not u.match_by_client_id]
        cids = [u.node.client_id for u in ups if u.match_by_client_id and u.node.client_id]
        found: dict[str, Node] = {}
        cols = NODE_COLUMNS_NO_VECTOR
        for part in chunks(ids):
            rows = await conn.execute(sa.select(*cols).where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part)))
            for r in rows:
                n = node_from_row(r)
                if n.scope != scope:
                    raise InvalidRequest(
                        f"node {n.id} belongs to scope {n.scope!r}, not {scope!r}",
                        code="node_scope_mismatch",
                        details={"field": "nodes.id", "id": n.id},
                    )
                found[f"id:{n.id}"] = n
                if n.client_id:
                    found.setdefault(f"client:{n.client_id}", n)
        for part in chunks(cids):
            rows = await conn.execute(
                sa.select(*cols).where(
                    nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                )
            )
            for r in rows:
                n = node_from_row(r)
                found[f"client:{n.client_id}"] = n
                found[f"id:{n.id}"] = n
        return found

    @staticmethod
    def _match_existing(up: NodeUpsert, existing: dict[str, Node]) -> Node | None:
        if up.match_by_client_id and up.node.client_id:
            return existing.get(f"client:{up.node.client_id}")
        return existing.get(f"id:{up.node.id}")

    async def _upsert_edges(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        written: list[Node],
        edges_in: Sequence[EdgeUpsert],
        now: datetime,
        writer: Visibility | None = None,
        *,
        commit_id: str,
        rev: int,
    ) -> tuple[list[Edge], list[dict[str, Any]]]:
        if not edges_in:
            return [], []
        lane_cols = (nodes.c.memory_lane, nodes.c.owner_agent_id, nodes.c.owner_team_id)

        def visible(row: Any) -> bool:
            return writer is None or writer.can_see(row.memory_lane, row.owner_agent_id, row.owner_team_id)

        by_client = {n.client_id: n.id for n in written if n.client_id}
        in_request = {n.id for n in written}
        want_ids = {r.id for e in edges_in for r in (e.src, e.dst) if r.id and r.id not in in_request}
        want_cids = {
            r.client_id for e in edges_in for r in (e.src, e.dst) if r.client_id and r.client_id not in by_client
        }
        stored_ids: set[str] = set()
        for part in chunks(sorted(want_ids)):
            rows = await conn.execute(
                sa.select(nodes.c.id, *lane_cols).where(
                    nodes.c.tenant_id == tenant_id, self._in_scope(nodes.c.scope, scope), nodes.c.id.in_(part)
                )
            )
            stored_ids.update(r.id for r in rows if visible(r))
        for part in chunks(sorted(want_cids)):
            rows = await conn.execute(
                sa.select(nodes.c.client_id, nodes.c.id, *lane_cols).where(
                    nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                )
            )
            by_client.update({r.client_id: r.id for r in rows if visible(r)})

        def resolve(index: int, end: str, ref: Any) -> str:
            if ref.id:
                if ref.id in in_request or ref.id in stored_ids:
                    return str(ref.id)
                missing = f"id {ref.id}"
            else:
                if ref.client_id in by_client:
                    return by_client[ref.client_id]
                missing = f"client_id {ref.client_id!r}"
            raise InvalidRequest(
                f"edges[{index}].{end}: no node with {missing} in this write or in scope {scope!r}",
                code="edge_endpoint_not_found",
                details={"field": f"edges[{index}].{end}"},
            )

        resolved: list[tuple[EdgeUpsert, str, str]] = []
        for i, e in enumerate(edges_in):
            resolved.append((e, resolve(i, "src", e.src), resolve(i, "dst", e.dst)))
        src_ids = sorted({s for _, s, _ in resolved})
        existing: dict[tuple[str, str, str], str] = {}
        for part in chunks(src_ids):
            rows = await conn.execute(
                sa.select(edges.c.id, edges.c.type, edges.c.src_id, edges.c.dst_id).where(
                    edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.src_id.in_(part)
                )
            )
            existing.update({(r.type, r.src_id, r.dst_id): r.id for r in rows})
        out: list[Edge] = []
        diff: list[dict[str, Any]] = []
        inserts: list[dict[str, Any]] = []
        seen: dict[tuple[str, str, str], int] = {}
        for e, src, dst in resolved:
            key = (e.type, src, dst)
            edge_id = existing.get(key)
            op = "update" if edge_id else "create"
            if key in seen:
                # the same edge twice in one request: the last one wins
                prev = out[seen[key]]
                prev.weight, prev.confidence, prev.decay_rate = e.weight, e.confidence, e.decay_rate
                for row in inserts:
                    if row["id"] == prev.id:
                        row.update(weight=e.weight, confidence=e.confidence, decay_rate=e.decay_rate)
                if edge_id:
                    await conn.execute(
                        edges.update()
                        .where(edges.c.tenant_id == tenant_id, edges.c.id == edge_id)
                        .values(
                            weight=e.weight,
                            confidence=e.confidence,
                            decay_rate=e.decay_rate,
                            commit_id=commit_id,
                            rev=rev,
                        )
                    )
                continue
            if edge_id:
                await conn.execute(
                    edges.update()
                    .where(edges.c.tenant_id == tenant_id, edges.c.id == edge_id)
                    .values(
                        weight=e.weight,
                        confidence=e.confidence,
                        decay_rate=e.decay_rate,
                        updated_at=now,
                        commit_id=commit_id,
                        rev=rev,
                    )
                )
            else:
                edge_id = e.id or new_id()
                inserts.append(
                    {
                        "tenant_id": tenant_id,
                        "id": edge_id,
                        "scope": scope,
                        "type": e.type,
                        "src_id": src,
                        "dst_id": dst,
                        "weight": e.weight,
                        "confidence": e.confidence,
                        "decay_rate": e.decay_rate,
                        "created_at": now,
                        "updated_at": now,
                        "commit_id": commit_id,
                        "rev": rev,
                    }
                )
            seen[key] = len(out)
            out.append(
                Edge(
                    tenant_id=tenant_id,
                    id=edge_id,
                    scope=scope,
                    type=e.type,
                    src_id=src,
                    dst_id=dst,
                    weight=e.weight,
                    confidence=e.confidence,
                    decay_rate=e.decay_rate,
                    created_at=now,
                    updated_at=now,
                    commit_id=commit_id,
                )
            )
            diff.append(
                {
                    "op": op,
                    "id": edge_id,
                    "type": e.type,
                    "src_id": src,
                    "dst_id": dst,
                    "weight": e.weight,
                    "confidence": e.confidence,
                }
            )
        await self._insert_rows(conn, edges, inserts)
        return out, diff

    async def patch_nodes(
        self,
        tenant_id: str,
        scope: str,
        patches: Sequence[NodePatch],
        commit: CommitInfo,
        *,
        now: datetime,
        diff: dict[str, Any],
    ) -> Commit | None:
        if not patches:
            return None
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            rev = head.rev + 1
            chained = await self._chain_commit(conn, tenant_id, scope, head, commit, diff, now, bump_rev=True)
            await self._write_patches(conn, tenant_id, scope, patches, rev, chained.id, now)
            return chained

    async def delete_nodes(
        self, tenant_id: str, scope: str | None, ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> list[str]:
        if not ids:
            return []
        async with self._write_tx() as conn:
            cond = [nodes.c.tenant_id == tenant_id, nodes.c.id.in_(list(ids))]
            if scope is not None:
                cond.append(nodes.c.scope == scope)
            rows = (await conn.execute(sa.select(nodes.c.id, nodes.c.scope).where(*cond))).all()
            if not rows:
                return []
            by_scope: dict[str, list[str]] = {}
            for r in rows:
                by_scope.setdefault(r.scope, []).append(r.id)
            # a fixed lock order across scopes: opposite orders deadlock on PostgreSQL
            for sc, sids in sorted(by_scope.items()):
                head = await self._lock_scope_head(conn, tenant_id, sc, now)
                await self._chain_commit(
                    conn,
                    tenant_id,
                    sc,
                    head,
                    commit,
                    {"deleted_nodes": sorted(sids)},
                    now,
                    bump_rev=True,
                    bump_epoch=True,
                )
                for part in chunks(sids):
                    await conn.execute(
                        edges.delete().where(
                            edges.c.tenant_id == tenant_id, sa.or_(edges.c.src_id.in_(part), edges.c.dst_id.in_(part))
                        )
                    )
                    await conn.execute(nodes.delete().where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part)))
            return [r.id for r in rows]

    # --- graph reads --------------------------------------------------------------------
    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]:
        if not ids:
            return []
        out: dict[str, Node] = {}
        async with self._read() as conn:
            for part in chunks(list(dict.fromkeys(ids))):
                # Primary-key lookup only, the scope checked here: with "AND scope = ?" in SQL, SQLite
                # (without ANALYZE statistics) prefers the (tenant, scope, ...) indexes and scans the
                # whole scope, 40 ms at 100k nodes instead of 1 ms (measured).
                cond = [nodes.c.tenant_id == tenant_id, self._one_of(nodes.c.id, part)]
                for r in await conn.execute(sa.select(*NODE_COLUMNS_NO_VECTOR).where(*cond)):
                    n = node_from_row(r)
                    if scope is None or n.scope == scope:
                        out[n.id] = n
        return [out[i] for i in ids if i in out]

    async def node_briefs(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
        if not ids:
            return []
        cols = [nodes.c.scope, *(nodes.c[name] for name in NODE_BRIEF_FIELDS)]
        found: dict[str, NodeBrief] = {}
        async with self._read() as conn:
            for part in chunks(list(dict.fromkeys(ids))):
                # by primary key, the scope checked here (see get_nodes)
                rows = await conn.execute(
                    sa.select(*cols).where(nodes.c.tenant_id == tenant_id, self._one_of(nodes.c.id, part))
                )
                for r in rows:
                    if r.scope == scope:
                        found[r.id] = NodeBrief(*r[1:])
        return [found[i] for i in ids if i in found]

    async def resolve_client_ids(self, tenant_id: str, scope: str, client_ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        async with self._read() as conn:
            for part in chunks(list(client_ids)):
                rows = await conn.execute(
                    sa.select(nodes.c.client_id, nodes.c.id).where(
                        nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.client_id.in_(part)
                    )
                )
                found.update({r[0]: r[1] for r in rows})
        return found

    def _filter_conditions(self, tenant_id: str, scope: str | None, flt: SeedFilter) -> list[Any]:
        cond: list[Any] = [nodes.c.tenant_id == tenant_id]
        if scope is not None:
            cond.append(nodes.c.scope == scope)
        if flt.tiers:
            cond.append(nodes.c.tier.in_(flt.tiers))
        vis = flt.visibility
        if vis.enforced:
            ors = [nodes.c.memory_lane == "shared"]
            if vis.consumer_agent_id is not None:
                ors.append(nodes.c.owner_agent_id == vis.consumer_agent_id)
            if vis.consumer_team_id is not None:
                ors.append(nodes.c.owner_team_id == vis.consumer_team_id)
            cond.append(sa.or_(*ors))
        if flt.exclude_draft_topics:
            # spelled out: NOT (type = 'topic' AND topic_state = 'draft') is NULL, not true, for a
            # topic whose state is NULL, and would hide it
            cond.append(sa.or_(nodes.c.type != "topic", nodes.c.topic_state.is_(None), nodes.c.topic_state != "draft"))
        if flt.statuses:
            cond.append(nodes.c.status.in_(flt.statuses))
        if flt.types:
            cond.append(nodes.c.type.in_(flt.types))
        if flt.layers:
            cond.append(nodes.c.layer.in_(flt.layers))
        if flt.exclude_layers:
            cond.append(sa.or_(nodes.c.layer.is_(None), nodes.c.layer.not_in(flt.exclude_layers)))
        if flt.user_id is not None:
            cond.append(nodes.c.user_id == flt.user_id)
        if flt.session_id is not None:
            cond.append(nodes.c.session_id == flt.session_id)
        if flt.task_id is not None:
            cond.append(nodes.c.task_id == flt.task_id)
        return cond

    async def find_nodes(
        self,
        tenant_id: str,
        scope: str | None,
        flt: SeedFilter,
        *,
        limit: int,
        order_by_recent: bool = True,
        ready_only: bool = False,
    ) -> list[Node]:
        cond = self._filter_conditions(tenant_id, scope, flt)
        if ready_only:
            cond.append(nodes.c.embedding_status == "ready")
        q = sa.select(*NODE_COLUMNS_NO_VECTOR).where(*cond)
        q = q.order_by(nodes.c.updated_at.desc() if order_by_recent else nodes.c.created_at.asc()).limit(limit)
        async with self._read() as conn:
            return [node_from_row(r) for r in await conn.execute(q)]

    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        raise NotImplementedError

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        raise NotImplementedError

    async def edges_touching(
        self,
        tenant_id: str,
        scope: str,
        node_ids: Sequence[str],
        *,
        min_weight: float,
        min_confidence: float,
        limit: int,
        types: Sequence[str] | None = None,
    ) -> list[Edge]:
        if not node_ids or limit <= 0:
            return []
        out: dict[str, Edge] = {}
        async with self._read() as conn:
            for part in chunks(list(node_ids), 250):
                # One indexed query per direction: "src IN (..) OR dst IN (..)" makes SQLite scan
                # every edge of the scope (24 ms at 20k edges, measured), two queries take 1 ms.
                for end in (edges.c.src_id, edges.c.dst_id):
                    cond = [
                        edges.c.tenant_id == tenant_id,
                        self._one_of(end, part),
                        self._in_scope(edges.c.scope, scope),
                        edges.c.weight >= min_weight,
                        edges.c.confidence >= min_confidence,
                    ]
                    if types:
                        cond.append(edges.c.type.in_(list(types)))
                    q = (
                        sa.select(edges)
                        .where(*cond)
                        .order_by((edges.c.weight * edges.c.confidence).desc(), edges.c.id)
                        .limit(limit)
                    )
                    for r in await conn.execute(q):
                        e = edge_from_row(r)
                        out[e.id] = e
        ordered = sorted(out.values(), key=lambda e: (-(e.weight * e.confidence), e.id))
        return ordered[:limit]

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        async with self._read() as conn:
            for part in chunks(list(ids)):
                rows = await conn.execute(
                    sa.select(nodes.c.id, nodes.c.embedding).where(
                        nodes.c.tenant_id == tenant_id,
                        self._in_scope(nodes.c.scope, scope),
                        self._one_of(nodes.c.id, part),
                        nodes.c.embedding.is_not(None),
                    )
                )
                for r in rows:
                    out[r.id] = np.asarray(r.embedding, dtype=np.float32)
        return out

    async def get_commit(self, tenant_id: str, commit_id: str) -> Commit | None:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    sa.select(commits).where(commits.c.tenant_id == tenant_id, commits.c.id == commit_id)
                )
            ).first()
        return commit_from_row(row) if row else None

    async def list_commits(self, tenant_id: str, scope: str, *, limit: int) -> list[Commit]:
        async with self._read() as conn:
            rows = await conn.execute(
                sa.select(commits)
                .where(commits.c.tenant_id == tenant_id, commits.c.scope == scope)
                .order_by(commits.c.seq.desc())
                .limit(limit)
            )
            return [commit_from_row(r) for r in rows]

    # --- embeddings ---------------------------------------------------------------------
    async def pending_embeddings(self, tenant_id: str, ids: Sequence[str]) -> list[PendingEmbedding]:
        out: list[PendingEmbedding] = []
        async with self._read() as conn:
            for part in chunks(list(ids)):
                rows = await conn.execute(
                    sa.select(
                        nodes.c.id,
                        nodes.c.scope,
                        nodes.c.title,
                        nodes.c.text_summary,
                        nodes.c.rev,
                        nodes.c.embedding_status,
                    ).where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part))
                )
                for r in rows:
                    if r.embedding_status == "ready":  # filtered here for the same planner reason as get_nodes
                        continue
                    text = "\n".join(p for p in (r.title, r.text_summary) if p)
                    out.append(PendingEmbedding(tenant_id=tenant_id, id=r.id, scope=r.scope, text=text, rev=r.rev))
        return out

    async def set_embeddings(
        self, items: Sequence[tuple[PendingEmbedding, Vector]], model_id: str, *, now: datetime
    ) -> list[str]:
        stale: list[str] = []
        if not items:
            return stale
        async with self._write_tx() as conn:
            revs: dict[tuple[str, str], int] = {}
            for p, _ in items:
                key = (p.tenant_id, p.scope)
                if key not in revs:
                    revs[key] = await self._bump_rev(conn, p.tenant_id, p.scope, now)
            for p, vec in items:
                res = await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == p.tenant_id, nodes.c.id == p.id, nodes.c.rev == p.rev)
                    .values(
                        embedding=np.asarray(vec, dtype=np.float32),
                        embedding_status="ready",
                        embedding_model=model_id,
                        embedding_dim=len(vec),
                        rev=revs[(p.tenant_id, p.scope)],
                    )
                )
                if res.rowcount == 0:
                    stale.append(p.id)
        return stale

    async def mark_embedding_failed(self, tenant_id: str, ids: Sequence[str], *, now: datetime) -> None:
        async with self._write_tx() as conn:
            for part in chunks(list(ids)):
                await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == tenant_id, nodes.c.id.in_(part), nodes.c.embedding_status == "pending")
                    .values(embedding_status="failed")
                )

    async def mark_stale_embeddings(
        self, model_id: str, dimension: int, *, now: datetime, limit: int
    ) -> list[tuple[str, str]]:
        async with self._write_tx() as conn:
            rows = (
                await conn.execute(
                    sa.select(nodes.c.tenant_id, nodes.c.id, nodes.c.scope)
                    .where(
                        nodes.c.embedding_status == "ready",
                        nodes.c.embedding_model.is_not(None),
                        nodes.c.embedding_model != model_id,
                        sa.not_(
                            sa.and_(
                                nodes.c.embedding_model == CLIENT_EMBEDDING_MODEL, nodes.c.embedding_dim == dimension
                            )
                        ),
                    )
                    .limit(limit)
                )
            ).all()
            scopes = {(r.tenant_id, r.scope) for r in rows}
            revs = {key: await self._bump_rev(conn, key[0], key[1], now) for key in sorted(scopes)}
            for r in rows:
                await conn.execute(
                    nodes.update()
                    .where(nodes.c.tenant_id == r.tenant_id, nodes.c.id == r.id)
                    .values(
                        embedding=None,
                        embedding_status="pending",
                        embedding_model=None,
                        embedding_dim=None,
                        rev=revs[(r.tenant_id, r.scope)],
                    )
                )
            return [(r.tenant_id, r.id) for r in rows]

    # --- jobs ---------------------------------------------------------------------------
    async def _insert_jobs(self, conn: AsyncConnection, items: Sequence[Job], now: datetime) -> list[Job]:
        out: list[Job] = []
        for job in items:
            if job.idempotency_key:
                row = (
                    await conn.execute(
                        sa.select(jobs).where(
                            jobs.c.tenant_id == job.tenant_id,
                            jobs.c.kind == job.kind,
                            jobs.c.idempotency_key == job.idempotency_key,
                        )
                    )
                ).first()
                if row is not None:
                    out.append(job_from_row(row))
                    continue
            job.created_at = job.updated_at = now
            job.run_after = job.run_after or now
            await conn.execute(jobs.insert().values(**job_row(job, now)))
            out.append(job)
        return out

    async def enqueue(self, items: Sequence[Job], *, now: datetime) -> list[Job]:
        async with self._write_tx() as conn:
            return await self._insert_jobs(conn, items, now)

    async def lease_jobs(
        self, worker_id: str, kinds: Sequence[str] | None, *, limit: int, lease_sec: float, now: datetime
    ) -> list[Job]:
        raise NotImplementedError

    def _leasable(self, kinds: Sequence[str] | None, now: datetime) -> list[Any]:
        cond: list[Any] = [
            sa.or_(
                sa.and_(jobs.c.status == "queued", jobs.c.run_after <= now),
                sa.and_(jobs.c.status == "running", jobs.c.lease_expires_at < now),
            )
        ]
        if kinds:
            cond.append(jobs.c.kind.in_(list(kinds)))
        return cond

    async def _mark_leased(
        self, conn: AsyncConnection, rows: Sequence[Any], worker_id: str, lease_sec: float, now: datetime
    ) -> list[Job]:
        leased: list[Job] = []
        expires = now + timedelta(seconds=lease_sec)
        for r in rows:
            job = job_from_row(r)
            await conn.execute(
                jobs.update()
                .where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id)
                .values(
                    status="running",
                    lease_owner=worker_id,
                    lease_expires_at=expires,
                    attempts=job.attempts + 1,
                    updated_at=now,
                )
            )
            job.status, job.lease_owner, job.lease_expires_at = "running", worker_id, expires
            job.attempts += 1
            leased.append(job)
        return leased

    async def renew_lease(self, job: Job, *, lease_sec: float, now: datetime) -> bool:
        expires = now + timedelta(seconds=lease_sec)
        async with self._write_tx() as conn:
            res = await conn.execute(
                jobs.update()
                .where(
                    jobs.c.tenant_id == job.tenant_id,
                    jobs.c.id == job.id,
                    jobs.c.lease_owner == job.lease_owner,
                    jobs.c.status == "running",
                )
                .values(lease_expires_at=expires, updated_at=now)
            )
        job.lease_expires_at = expires
        return bool(res.rowcount)

    async def complete_job(self, job: Job, result: dict[str, Any] | None, *, now: datetime) -> None:
        async with self._write_tx() as conn:
            await conn.execute(
                jobs.update()
                .where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id)
                .values(
                    status="done",
                    result=result,
                    lease_owner=None,
                    lease_expires_at=None,
                    updated_at=now,
                    last_error=None,
                )
            )

    async def fail_job(self, job: Job, error: str, *, retry_at: datetime | None, now: datetime) -> None:
        values: dict[str, Any] = {
            "last_error": error[:4000],
            "lease_owner": None,
            "lease_expires_at": None,
            "updated_at": now,
        }
        if retry_at is not None and job.attempts < job.max_attempts:
            values.update(status="queued", run_after=retry_at)
        else:
            values.update(status="failed")
        async with self._write_tx() as conn:
            await conn.execute(
                jobs.update().where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id).values(**values)
            )

    async def update_job_progress(self, job: Job, progress: dict[str, Any], *, now: datetime) -> None:
        async with self._write_tx() as conn:
            await conn.execute(
                jobs.update()
                .where(jobs.c.tenant_id == job.tenant_id, jobs.c.id == job.id)
                .values(progress=progress, updated_at=now)
            )

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None:
        async with self._read() as conn:
            row = (
                await conn.execute(sa.select(jobs).where(jobs.c.tenant_id == tenant_id, jobs.c.id == job_id))
            ).first()
        return job_from_row(row) if row else None

    async def count_jobs(self, status: str | None = None) -> int:
        q = sa.select(sa.func.count()).select_from(jobs)
        if status is not None:
            q = q.where(jobs.c.status == status)
        async with self._read() as conn:
            return int((await conn.execute(q)).scalar_one())

    # --- audit --------------------------------------------------------------------------
    async def record_recall_audits(self, entries: Sequence[RecallAudit]) -> None:
        if not entries:
            return
        rows = [
            {
                "tenant_id": a.tenant_id,
                "id": new_id(),
                "scope": a.scope,
                "endpoint": a.endpoint,
                "consumer_agent_id": a.consumer_agent_id,
                "consumer_team_id": a.consumer_team_id,
                "query_sha256": a.query_sha256,
                "seed_ids": list(a.seed_ids),
                "returned_count": a.returned_count,
                "created_at": a.created_at,
            }
            for a in entries
        ]
        async with self._write_tx() as conn:
            for part in chunks(rows, 500):
                await conn.execute(recall_audit.insert(), list(part))

    async def list_recall_audit(self, tenant_id: str, scope: str, *, limit: int) -> list[dict[str, Any]]:
        q = (
            sa.select(recall_audit)
            .where(recall_audit.c.tenant_id == tenant_id, recall_audit.c.scope == scope)
            .order_by(recall_audit.c.created_at.desc())
            .limit(limit)
        )
        async with self._read() as conn:
            return [dict(r._mapping) for r in await conn.execute(q)]

    # --- lifecycle (issue 7) -------------------------------------------------------------
    async def head_commit_id(self, tenant_id: str, scope: str) -> str | None:
        q = sa.select(scope_heads.c.head_commit_id).where(
            scope_heads.c.tenant_id == tenant_id, scope_heads.c.scope == scope
        )
        async with self._read() as conn:
            value = (await conn.execute(q)).scalar_one_or_none()
        return str(value) if value is not None else None

    async def list_scopes(self, tenant_id: str | None = None) -> list[tuple[str, str]]:
        q = sa.select(scope_heads.c.tenant_id, scope_heads.c.scope).order_by(
            scope_heads.c.tenant_id, scope_heads.c.scope
        )
        if tenant_id is not None:
            q = q.where(scope_heads.c.tenant_id == tenant_id)
        async with self._read() as conn:
            return [(r.tenant_id, r.scope) for r in await conn.execute(q)]

    async def scan_nodes(
        self,
        tenant_id: str,
        scope: str,
        *,
        after_id: str | None,
        limit: int,
        tiers: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
    ) -> list[Node]:
        if limit <= 0:
            return []
        cond: list[Any] = [nodes.c.tenant_id == tenant_id, nodes.c.scope == scope]
        if after_id is not None:
            cond.append(nodes.c.id > after_id)
        if tiers:
            cond.append(nodes.c.tier.in_(list(tiers)))
        if types:
            cond.append(nodes.c.type.in_(list(types)))
        q = sa.select(*NODE_COLUMNS_NO_VECTOR).where(*cond).order_by(nodes.c.id).limit(limit)
        async with self._read() as conn:
            return [node_from_row(r) for r in await conn.execute(q)]

    async def mutate_nodes(
        self,
        tenant_id: str,
        scope: str,
        ids: Sequence[str],
        mutate: NodeMutation,
        commit: CommitInfo,
        *,
        now: datetime,
    ) -> Commit | None:
        wanted = list(dict.fromkeys(ids))
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            found: dict[str, Node] = {}
            for part in chunks(wanted):
                rows = await conn.execute(
                    sa.select(*NODE_COLUMNS_NO_VECTOR).where(
                        nodes.c.tenant_id == tenant_id, self._in_scope(nodes.c.scope, scope), nodes.c.id.in_(part)
                    )
                )
                for r in rows:
                    n = node_from_row(r)
                    found[n.id] = n
            patches, diff = mutate([found[i] for i in wanted if i in found])
            patches = [p for p in patches if p.id in found]
            if not patches:
                return None
            chained = await self._chain_commit(conn, tenant_id, scope, head, commit, diff, now, bump_rev=True)
            await self._write_patches(conn, tenant_id, scope, patches, head.rev + 1, chained.id, now)
            return chained

    async def _write_patches(
        self,
        conn: AsyncConnection,
        tenant_id: str,
        scope: str,
        patches: Sequence[NodePatch],
        rev: int,
        commit_id: str,
        now: datetime,
    ) -> None:
        for p in patches:
            values: dict[str, Any] = {"rev": rev, "updated_at": now, "commit_id": commit_id}
            for name in (
                "tier",
                "slots",
                "status",
                "title",
                "text_summary",
                "last_activated",
                "memory_lane",
                "expires_at",
                "tags",
            ):
                value = getattr(p, name)
                if value is not None:
                    values[name] = value
            if p.title is not None or p.text_summary is not None:
                values.update(embedding=None, embedding_status="pending", embedding_model=None, embedding_dim=None)
            await conn.execute(
                nodes.update()
                .where(nodes.c.tenant_id == tenant_id, nodes.c.scope == scope, nodes.c.id == p.id)
                .values(**values)
            )

    async def redirect_edges(
        self, tenant_id: str, scope: str, redirects: Mapping[str, str], commit: CommitInfo, *, now: datetime
    ) -> EdgeRedirectResult:
        final = _resolve_redirects(redirects)
        if not final:
            return EdgeRedirectResult(None)
        aliases = sorted(final)
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            moving: dict[str, Edge] = {}
            for part in chunks(aliases, 250):
                rows = await conn.execute(
                    sa.select(edges).where(
                        edges.c.tenant_id == tenant_id,
                        edges.c.scope == scope,
                        sa.or_(edges.c.src_id.in_(part), edges.c.dst_id.in_(part)),
                    )
                )
                for r in rows:
                    e = edge_from_row(r)
                    moving[e.id] = e
            if not moving:
                return EdgeRedirectResult(None)
            # Edges that already sit on the canonical endpoints: a redirected edge may collide.
            targets = sorted({final.get(e.src_id, e.src_id) for e in moving.values()})
            occupied: dict[tuple[str, str, str], Edge] = {}
            for part in chunks(targets):
                rows = await conn.execute(
                    sa.select(edges).where(
                        edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.src_id.in_(part)
                    )
                )
                for r in rows:
                    e = edge_from_row(r)
                    if e.id not in moving:
                        occupied[(e.type, e.src_id, e.dst_id)] = e
            result = EdgeRedirectResult(None)
            ops: list[dict[str, Any]] = []
            moved: list[Edge] = []
            deleted: list[str] = []
            touched: dict[str, Edge] = {}
            for e in sorted(moving.values(), key=lambda x: x.id):
                src, dst = final.get(e.src_id, e.src_id), final.get(e.dst_id, e.dst_id)
                base = {"id": e.id, "type": e.type, "from": [e.src_id, e.dst_id], "to": [src, dst]}
                if src == dst:
                    deleted.append(e.id)
                    result.removed_self_loops += 1
                    ops.append({**base, "op": "remove_self_loop"})
                    continue
                key = (e.type, src, dst)
                keeper = occupied.get(key)
                if keeper is not None:
                    keeper.weight = max(keeper.weight, e.weight)
                    keeper.confidence = max(keeper.confidence, e.confidence)
                    touched[keeper.id] = keeper
                    deleted.append(e.id)
                    result.merged += 1
                    ops.append({**base, "op": "merge", "into": keeper.id})
                    continue
                e.src_id, e.dst_id = src, dst
                occupied[key] = e
                moved.append(e)
                result.redirected += 1
                ops.append({**base, "op": "redirect"})
            diff = {"edge_redirects": ops, "redirects": {a: final[a] for a in aliases}}
            # edges are removed: a new epoch makes in-memory edge caches reload (edge_cache.py)
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, bump_epoch=bool(deleted)
            )
            rev = head.rev + 1
            for part in chunks(deleted):
                await conn.execute(edges.delete().where(edges.c.tenant_id == tenant_id, edges.c.id.in_(part)))
            for e in moved:
                if e.id in touched:  # merged into after it moved: keep the larger values too
                    continue
                await conn.execute(
                    edges.update()
                    .where(edges.c.tenant_id == tenant_id, edges.c.id == e.id)
                    .values(src_id=e.src_id, dst_id=e.dst_id, updated_at=now, commit_id=chained.id, rev=rev)
                )
            for e in touched.values():
                await conn.execute(
                    edges.update()
                    .where(edges.c.tenant_id == tenant_id, edges.c.id == e.id)
                    .values(
                        src_id=e.src_id,
                        dst_id=e.dst_id,
                        weight=e.weight,
                        confidence=e.confidence,
                        updated_at=now,
                        commit_id=chained.id,
                        rev=rev,
                    )
                )
            result.commit = chained
            return result

    async def delete_edges(
        self, tenant_id: str, scope: str, edge_ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> Commit | None:
        wanted = sorted(set(edge_ids))
        if not wanted:
            return None
        async with self._write_tx() as conn:
            head = await self._lock_scope_head(conn, tenant_id, scope, now)
            found: list[Edge] = []
            for part in chunks(wanted):
                rows = await conn.execute(
                    sa.select(edges).where(
                        edges.c.tenant_id == tenant_id, self._in_scope(edges.c.scope, scope), edges.c.id.in_(part)
                    )
                )
                found.extend(edge_from_row(r) for r in rows)
            if not found:
                return None
            diff = {
                "deleted_edges": [
                    {"id": e.id, "type": e.type, "src_id": e.src_id, "dst_id": e.dst_id}
                    for e in sorted(found, key=lambda x: x.id)
                ]
            }
            chained = await self._chain_commit(
                conn, tenant_id, scope, head, commit, diff, now, bump_rev=True, bump_epoch=True
            )
            for part in chunks([e.id for e in found]):
                await conn.execute(edges.delete().where(edges.c.tenant_id == tenant_id, edges.c.id.in_(part)))
            return chained


def _resolve_redirects(redirects: Mapping[str, str]) -> dict[str, str]:
    """Follow chains (a -> b -> c gives a -> c); self-maps and cycles are dropped, so no
    final target is itself redirected."""
    final: dict[str, str] = {}
    for start, first in redirects.items():
        seen = {start}
        target = first
        while target in redirects and target not in seen:
            seen.add(target)
            target = redirects[target]
        if target not in seen:
            final[start] = target
    return final


__all__ = ["ScopeHead", "SqlStore", "chunks", "iso"]
