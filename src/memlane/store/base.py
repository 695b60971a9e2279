"""The Store protocol: everything the services need from persistence, and nothing more.

Every method takes ``tenant_id`` first: isolation is enforced here, so an endpoint that
forgets a check still cannot read across tenants. The store holds no policy: defaults,
validation and ranking live in ``memlane.services``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memlane.domain.erasure import ErasureReceipt, ErasureSubject
from memlane.domain.model import (
    Commit,
    CommitInfo,
    Edge,
    EdgeUpsert,
    ImportedCommit,
    Job,
    Node,
    NodeBrief,
    NodeUpsert,
    RecallAudit,
    ScoredId,
    SeedFilter,
    WriteResult,
)
from memlane.domain.visibility import Visibility

Vector = npt.NDArray[np.float32]


@dataclass(slots=True)
class PendingEmbedding:
    """A node waiting for its vector; ``rev`` guards against embedding stale text."""

    tenant_id: str
    id: str
    scope: str
    text: str
    rev: int


@dataclass(slots=True)
class NodePatch:
    """A partial update of one node; ``None`` fields are left alone."""

    id: str
    tier: str | None = None
    slots: dict[str, Any] | None = None
    status: str | None = None
    title: str | None = None
    text_summary: str | None = None
    last_activated: datetime | None = None
    memory_lane: str | None = None
    expires_at: datetime | None = None
    tags: list[str] | None = None
    #: closes the fact (event time); the store stamps ``expired_at`` with the patch's time
    invalid_at: datetime | None = None


FollowUpJobs = Callable[[WriteResult], list[Job]]


class LeasePicker(Protocol):
    """Chooses, inside the lease's transaction, which of the candidate jobs (in tenant turns,
    oldest first within a tenant) are leased: at least one when there is any."""

    def pick(self, candidates: Sequence[Job]) -> list[Job]: ...


@runtime_checkable
class Store(Protocol):
    backend: str

    async def open(self) -> None:
        """Connect and check that the schema is at the migration head."""
        ...

    async def close(self) -> None: ...

    async def ping(self) -> bool: ...

    async def pool_stats(self) -> dict[str, Any]:
        """Real figures of the connection pool (size, checked out, idle, overflow)."""
        ...

    # --- graph writes -------------------------------------------------------------------
    async def apply_write(
        self,
        tenant_id: str,
        scope: str,
        nodes: Sequence[NodeUpsert],
        edges: Sequence[EdgeUpsert],
        commit: CommitInfo,
        *,
        now: datetime,
        follow_up: FollowUpJobs | None = None,
        writer: Visibility | None = None,
    ) -> WriteResult:
        """Upsert nodes (by id, or by client_id when ``match_by_client_id``) and edges, chain a
        commit onto the scope head, and insert ``follow_up`` jobs, all in one transaction.

        Raises ``InvalidRequest`` (code ``edge_endpoint_not_found``) for an edge whose
        endpoint is neither in this write nor stored in the scope. With ``writer`` given, stored
        nodes the writer may not see count as absent for edges, and updating one is a
        ``Conflict`` (code ``client_id_in_use``): lanes hold for writes too.
        """
        ...

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
        """Apply partial updates and chain one commit; ``None`` when no patch applies."""
        ...

    async def delete_nodes(
        self, tenant_id: str, scope: str | None, ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> list[str]:
        """Hard-delete nodes, their edges and vectors; returns the ids that existed."""
        ...

    # --- graph reads --------------------------------------------------------------------
    async def get_nodes(self, tenant_id: str, scope: str | None, ids: Sequence[str]) -> list[Node]: ...

    async def resolve_client_ids(self, tenant_id: str, scope: str, client_ids: Sequence[str]) -> dict[str, str]: ...

    async def preceding_nodes(self, tenant_id: str, scope: str, node_id: str, *, limit: int, span: int) -> list[Node]:
        """Up to ``limit`` nodes of ``scope`` inserted just before ``node_id``, newest first,
        looking back at most ``span`` insertions of the tenant (so a scope written in
        between many others finds no neighbours rather than scanning far)."""
        ...

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
        """Attribute filtering without vectors (layers, tasks, users, sessions)."""
        ...

    async def vector_search(self, tenant_id: str, scope: str, query: Vector, k: int, flt: SeedFilter) -> list[ScoredId]:
        """Cosine top-k among ready nodes of the query's dimension that pass ``flt``."""
        ...

    async def keyword_search(self, tenant_id: str, scope: str, text: str, k: int, flt: SeedFilter) -> list[ScoredId]:
        """BM25 top-k (higher score is better) among nodes passing ``flt``."""
        ...

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
    ) -> list[Edge]: ...

    async def get_embeddings(self, tenant_id: str, scope: str, ids: Sequence[str]) -> dict[str, Vector]:
        """Only the debug channel and offline jobs read vectors."""
        ...

    async def get_commit(self, tenant_id: str, commit_id: str) -> Commit | None: ...

    async def list_commits(self, tenant_id: str, scope: str, *, limit: int) -> list[Commit]: ...

    # --- embeddings ---------------------------------------------------------------------
    async def pending_embeddings(self, tenant_id: str, ids: Sequence[str]) -> list[PendingEmbedding]: ...

    async def set_embeddings(
        self, items: Sequence[tuple[PendingEmbedding, Vector]], model_id: str, *, now: datetime
    ) -> list[str]:
        """Store vectors only where the node's ``rev`` is unchanged; returns ids that were stale."""
        ...

    async def mark_embedding_failed(self, tenant_id: str, ids: Sequence[str], *, now: datetime) -> None: ...

    async def mark_stale_embeddings(
        self, model_id: str, dimension: int, *, now: datetime, limit: int
    ) -> list[tuple[str, str]]:
        """Nodes embedded by another server model (not client-supplied) go back to pending;
        returns ``(tenant_id, node_id)`` pairs so the caller can enqueue re-embedding."""
        ...

    # --- jobs ---------------------------------------------------------------------------
    async def enqueue(self, jobs: Sequence[Job], *, now: datetime) -> list[Job]:
        """Insert jobs; a job whose ``idempotency_key`` already exists returns the stored one."""
        ...

    async def lease_jobs(
        self,
        worker_id: str,
        kinds: Sequence[str] | None,
        *,
        limit: int,
        lease_sec: float,
        now: datetime,
        per_key: bool = False,
        budget: LeasePicker | None = None,
    ) -> list[Job]:
        """Lease up to ``limit`` due jobs of ``kinds``, tenants in turns: every tenant's oldest
        job first, then every tenant's second, oldest first within a turn (store/sql/jobs.py ``in_turns``).
        ``per_key``: at most one job per (tenant, scope), and none of a key that has a job
        running, so the jobs of one key never overlap and start in order (``key_heads``).
        ``budget``: of those, only the jobs it picks (jobs/fair_share.py)."""
        ...

    async def renew_lease(self, job: Job, *, lease_sec: float, now: datetime) -> bool:
        """Extend a running job's lease; False when another worker has taken it over."""
        ...

    async def complete_job(self, job: Job, result: dict[str, Any] | None, *, now: datetime) -> None: ...

    async def complete_jobs(self, done: Sequence[tuple[Job, dict[str, Any] | None]], *, now: datetime) -> None:
        """Record many finished jobs in one transaction."""
        ...

    async def fail_job(self, job: Job, error: str, *, retry_at: datetime | None, now: datetime) -> None: ...

    async def update_job_progress(self, job: Job, progress: dict[str, Any], *, now: datetime) -> None: ...

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None: ...

    async def count_jobs(self, status: str | None = None) -> int: ...

    async def delete_finished_jobs_before(self, cutoff: datetime, *, limit: int) -> int:
        """Remove up to ``limit`` done/failed jobs last updated before ``cutoff`` (retention)."""
        ...

    async def count_due_jobs(self, *, now: datetime) -> int:
        """Queued jobs whose ``run_after`` has passed (the backlog; jobs backing off excluded)."""
        ...

    async def count_due_jobs_by_tenant(self, *, now: datetime) -> dict[str, int]:
        """``count_due_jobs`` per tenant, tenants without a due job left out."""
        ...

    async def job_counts(self) -> dict[tuple[str, str], int]:
        """Jobs of every tenant by ``(kind, status)``: the queue depth an operator watches."""
        ...

    async def embedding_counts(self) -> dict[str, int]:
        """Nodes of every tenant whose vector is not ready, by ``embedding_status``
        (``pending``, ``failed``): the embedding backlog."""
        ...

    # --- history (export / import) ---------------------------------------------------------
    async def commit_rows(self, tenant_id: str, scope: str, *, after_seq: int, limit: int) -> list[dict[str, Any]]:
        """The scope's commits as column dicts, oldest first, after sequence ``after_seq``."""
        ...

    async def import_commits(
        self, tenant_id: str, scope: str, commits: Sequence[ImportedCommit], *, now: datetime
    ) -> int:
        """Append commits of another store to the scope's chain, in order, each hashed onto
        the head. A commit whose id is stored already is skipped when it is the same import
        (same diff, or erased since); any other commit with that id is ``Conflict``
        ``commit_id_taken`` (``details.commit_id``). Returns how many were appended."""
        ...

    # --- audit --------------------------------------------------------------------------
    async def node_briefs(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[NodeBrief]:
        """``NodeBrief`` of the given nodes of the scope, in the order asked; unknown ids are skipped."""
        ...

    async def record_recall_audits(self, entries: Sequence[RecallAudit]) -> None:
        """Append recall audit rows, all in one transaction."""
        ...

    async def list_recall_audit(self, tenant_id: str, scope: str, *, limit: int) -> list[dict[str, Any]]:
        """Newest first: who recalled what from a scope."""
        ...

    async def delete_recall_audits_before(self, cutoff: datetime, *, limit: int) -> int:
        """Remove up to ``limit`` recall audit rows created before ``cutoff`` (retention)."""
        ...

    # --- lifecycle: rules feedback, activation, decay, consolidation (issue 7) ------------
    async def head_commit_id(self, tenant_id: str, scope: str) -> str | None:
        """The scope's head commit (None before its first write): a cheap "did anything
        change?" check, since every change to a node chains a commit."""
        ...

    async def list_scopes(
        self,
        tenant_id: str | None = None,
        *,
        after: tuple[str, str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[tuple[str, str]]:
        """``(tenant_id, scope)`` pairs that have ever been written, sorted; all tenants when
        ``tenant_id`` is None (offline maintenance jobs only). A keyset page with ``after``
        (the last pair of the page before) and ``limit``; every pair without ``limit``.
        ``offset`` skips that many first (a page named by its place, when the pair that ends
        the page before may not be shown to whoever asks for the next)."""
        ...

    async def scan_edges(
        self, tenant_id: str, scope: str, *, after: tuple[str, str, str] | None, limit: int
    ) -> list[Edge]:
        """Edges of a scope in ``(type, src_id, dst_id)`` order (unique per scope) after
        ``after``: keyset pages over the endpoints index, never the scope's graph cache."""
        ...

    async def get_edges(self, tenant_id: str, scope: str, ids: Sequence[str]) -> list[Edge]:
        """The scope's edges among ``ids``, read from the tables (not the graph cache)."""
        ...

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
        """Nodes of a scope in id order after ``after_id`` (keyset pages for offline jobs)."""
        ...

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
        """Read-modify-write under the scope's write lock: ``mutate`` gets the stored nodes of
        ``ids`` (those that exist in the scope) and returns ``(patches, diff)``; the patches and
        one chained commit are written in the same transaction. Nothing is written, and None is
        returned, when ``mutate`` returns no patch. Counters kept in slots cannot lose updates."""
        ...

    async def redirect_edges(
        self, tenant_id: str, scope: str, redirects: Mapping[str, str], commit: CommitInfo, *, now: datetime
    ) -> EdgeRedirectResult:
        """Move every edge touching a key of ``redirects`` onto its value (alias -> canonical),
        conflict-safe: an edge that would duplicate an existing (type, src, dst) is merged into
        it (max weight and confidence) and removed, an edge that would become a self-loop is
        removed. One chained commit, or none when no edge moved."""
        ...

    async def delete_edges(
        self, tenant_id: str, scope: str, edge_ids: Sequence[str], commit: CommitInfo, *, now: datetime
    ) -> Commit | None:
        """Hard-delete edges of the scope by id; one chained commit, or none when none existed."""
        ...

    # --- erasure (domain/erasure.py) ----------------------------------------------------------
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
        """Remove everything of ``subject`` on every surface in one transaction, empty the
        commits that name it (hashes kept), record the receipt as an audit event, then make the
        removal physical (SQLite: keyword index merged, WAL truncated; PostgreSQL: VACUUM).
        ``knowledge_scope`` is where knowledge items are synced: erasing it erases them.
        ``subject_digest`` names the subject in the receipt (``ErasureSubject.digest``)."""
        ...

    # --- server secrets (not tenant data: the one kind of method without a tenant) -------------
    async def server_secret(self, name: str) -> str:
        """A secret every replica shares, generated and stored on first use."""
        ...


SCAN_PAGE = 1000


async def scan_all_nodes(store: Store, tenant_id: str, scope: str, *, types: Sequence[str]) -> list[Node]:
    """Every node of the given types in a scope, read in keyset pages (no silent cap): offline
    jobs (consolidation, compression) and the rules cache read whole scopes this way."""
    out: list[Node] = []
    after: str | None = None
    while True:
        page = await store.scan_nodes(tenant_id, scope, after_id=after, limit=SCAN_PAGE, types=types)
        out.extend(page)
        if len(page) < SCAN_PAGE:
            return out
        after = page[-1].id


def edge_from_row(row: Any) -> Edge:
    return edge_from_mapping(row._mapping)


def edge_from_mapping(m: Mapping[str, Any]) -> Edge:
    """An ``Edge`` from column values that already have their Python types."""
    return Edge(
        tenant_id=m["tenant_id"],
        id=m["id"],
        scope=m["scope"],
        type=m["type"],
        src_id=m["src_id"],
        dst_id=m["dst_id"],
        weight=m["weight"],
        confidence=m["confidence"],
        decay_rate=m["decay_rate"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
        commit_id=m["commit_id"],
        valid_at=m["valid_at"],
        invalid_at=m["invalid_at"],
        expired_at=m["expired_at"],
    )


def node_from_row(row: Any) -> Node:
    return node_from_mapping(row._mapping)


def node_from_mapping(m: Mapping[str, Any]) -> Node:
    """A ``Node`` from column values that already have their Python types."""
    return Node(
        tenant_id=m["tenant_id"],
        id=m["id"],
        scope=m["scope"],
        type=m["type"],
        client_id=m["client_id"],
        tier=m["tier"],
        title=m["title"],
        text_summary=m["text_summary"],
        slots=m["slots"] or {},
        raw_ref=m["raw_ref"],
        evidence_ref=m["evidence_ref"],
        memory_lane=m["memory_lane"],
        producer_agent_id=m["producer_agent_id"],
        owner_agent_id=m["owner_agent_id"],
        owner_team_id=m["owner_team_id"],
        salience=m["salience"],
        importance=m["importance"],
        confidence=m["confidence"],
        embedding_status=m["embedding_status"],
        embedding_model=m["embedding_model"],
        status=m["status"],
        topic_state=m["topic_state"],
        layer=m["layer"],
        user_id=m["user_id"],
        session_id=m["session_id"],
        task_id=m["task_id"],
        agent=m["agent"],
        tags=list(m["tags"] or []),
        expires_at=m["expires_at"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
        last_activated=m["last_activated"],
        commit_id=m["commit_id"],
        valid_at=m["valid_at"],
        invalid_at=m["invalid_at"],
        expired_at=m["expired_at"],
    )


def commit_from_row(row: Any) -> Commit:
    m = row._mapping
    return Commit(
        tenant_id=m["tenant_id"],
        id=m["id"],
        scope=m["scope"],
        parent_id=m["parent_id"],
        parent_hash=m["parent_hash"],
        commit_hash=m["commit_hash"],
        actor=m["actor"],
        input_sha256=m["input_sha256"],
        kind=m["kind"],
        diff=m["diff"],
        created_at=m["created_at"],
        erased_at=m["erased_at"],
    )


def job_from_row(row: Any) -> Job:
    m = row._mapping
    return Job(
        tenant_id=m["tenant_id"],
        id=m["id"],
        kind=m["kind"],
        payload=m["payload"] or {},
        status=m["status"],
        attempts=m["attempts"],
        max_attempts=m["max_attempts"],
        scope=m["scope"],
        idempotency_key=m["idempotency_key"],
        run_after=m["run_after"],
        lease_owner=m["lease_owner"],
        lease_expires_at=m["lease_expires_at"],
        last_error=m["last_error"],
        result=m["result"],
        progress=m["progress"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
    )


NodeMutation = Callable[[list[Node]], tuple[Sequence[NodePatch], dict[str, Any]]]


@dataclass(slots=True)
class EdgeRedirectResult:
    """What ``redirect_edges`` did; ``commit`` is None when nothing changed."""

    commit: Commit | None
    redirected: int = 0
    merged: int = 0
    removed_self_loops: int = 0
