"""Graph writes: defaults, lane rules and embedding policy, then one transactional store call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import (
    CLIENT_EMBEDDING_MODEL,
    Commit,
    CommitInfo,
    Edge,
    EdgeRef,
    EdgeUpsert,
    ImportedCommit,
    Job,
    Node,
    NodeUpsert,
    WriteResult,
)
from memlane.domain.node_fields import UPDATABLE_NODE_FIELDS
from memlane.domain.visibility import Viewer, visibility_of
from memlane.jobs.kinds import EMBED_NODES
from memlane.rules.conditions import regex_errors, rule_conditions
from memlane.rules.governance import rule_rights_of
from memlane.store.base import EdgeRedirectResult, NodeMutation
from memlane.store.contracts.graph_writes import GraphWriteOps
from memlane.store.contracts.history import HistoryOps
from memlane.store.contracts.maintenance import GraphMaintenanceOps

#: the kind of a commit appended by an import (``import_history``)
IMPORTED = "imported"


@dataclass(slots=True)
class WriteNodeSpec:
    """A node as the caller sent it; ``fields_set`` says which fields were given."""

    type: str
    fields_set: frozenset[str]
    id: str | None = None
    client_id: str | None = None
    scope: str | None = None
    tier: str | None = None
    memory_lane: str | None = None
    producer_agent_id: str | None = None
    owner_agent_id: str | None = None
    owner_team_id: str | None = None
    title: str | None = None
    text_summary: str | None = None
    slots: dict[str, Any] | None = None
    raw_ref: str | None = None
    evidence_ref: str | None = None
    embedding: list[float] | None = None
    embedding_model: str | None = None
    salience: float | None = None
    importance: float | None = None
    confidence: float | None = None
    # attributes used by the other surfaces
    status: str | None = None
    layer: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    task_id: str | None = None
    agent: str | None = None
    tags: list[str] | None = None
    expires_at: datetime | None = None
    #: event time (domain/validity.py); every surface that writes nodes may give it
    valid_at: datetime | None = None
    invalid_at: datetime | None = None


@dataclass(slots=True)
class WriteEdgeSpec:
    type: str
    src: EdgeRef
    dst: EdgeRef
    id: str | None = None
    scope: str | None = None
    weight: float | None = None
    confidence: float | None = None
    decay_rate: float | None = None
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    #: which of the two the caller gave (an update of a stored edge keeps the others)
    interval_set: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Authorship:
    """Who a node the write *creates* belongs to when it names no owner (identity
    auto-injection: the writer's agent, else its team), and who produced it. An update keeps
    the stored owner and producer unless the request names them, so editing a node never
    re-owns it."""

    producer_agent_id: str | None = None
    owner_agent_id: str | None = None
    owner_team_id: str | None = None


@dataclass(slots=True)
class WriteCommand:
    tenant_id: str
    scope: str
    input_sha256: str
    actor: str | None = None
    parent_commit_id: str | None = None
    model_version: str | None = None
    prompt_version: str | None = None
    auto_embed: bool | None = None
    force_reembed: bool = False
    memory_lane: str | None = None
    producer_agent_id: str | None = None
    owner_agent_id: str | None = None
    owner_team_id: str | None = None
    nodes: list[WriteNodeSpec] = field(default_factory=list)
    edges: list[WriteEdgeSpec] = field(default_factory=list)
    kind: str = "write"
    #: who writes; lanes then hold for upserts and edge endpoints too, and stored rules change
    #: only if it governs them (None: the system itself, e.g. an ingestion job writing notes it
    #: planned)
    viewer: Viewer | None = None
    #: owner and producer of the nodes this write creates, when they name none
    author: Authorship | None = None


def authorship_of(writer: Viewer) -> Authorship:
    """Identity auto-injection: nodes a write creates without an owner belong to the writer
    (its agent, else its team), and the writer produced them."""
    return Authorship(
        producer_agent_id=writer.agent_id,
        owner_agent_id=writer.agent_id,
        owner_team_id=writer.team_id if writer.agent_id is None else None,
    )


def authored(cmd: WriteCommand, writer: Viewer) -> WriteCommand:
    """``cmd`` as ``writer`` sends it through the public write surface (``WriteService.write_as``).

    * The nodes it creates without an owner are the writer's, and the writer produced them
      (``authorship_of``); a created node records the user the writer acts for, so an erasure
      of that user finds it and only that user's callers see it. Like the owners, the user
      shapes a created node only: an update keeps the stored one.
    * The commit's actor is the label the request gives, else, with auth on, the credentials'
      agent (docs/api-graph.md). The label is the caller's word; with auth off so is everything.
    * With auth on, lanes hold for the writer's upserts and edge endpoints and rule rights are
      the credentials' (``viewer``); with auth off the writer is anonymous and identities are
      taken at their word (the contract's default).
    """
    trusted = writer.authenticated
    return replace(
        cmd,
        tenant_id=writer.tenant_id,
        actor=cmd.actor or (writer.agent_id if trusted else None),
        viewer=writer if trusted else None,
        author=authorship_of(writer),
        nodes=[n if n.user_id is not None else replace(n, user_id=writer.user_id) for n in cmd.nodes],
    )


@dataclass(slots=True)
class WriteOutcome:
    result: WriteResult
    embed_job_id: str | None


NODE_DEFAULTS: dict[str, Any] = {
    "tier": "hot",
    "salience": 0.5,
    "importance": 0.5,
    "confidence": 0.5,
    "status": "active",
}


class WriteStore(GraphWriteOps, HistoryOps, GraphMaintenanceOps, Protocol):
    """What writes need of the store: upserts and deletes, imported commits, and changes made under the scope's lock."""


class WriteService:
    def __init__(
        self,
        store: WriteStore,
        *,
        clock: Clock,
        dimension: int,
        default_auto_embed: bool,
        job_max_attempts: int = 5,
        on_jobs: Callable[[], None] | None = None,
        concurrency: int = 0,
    ):
        self.store = store
        self.clock = clock
        self.dimension = dimension
        self.default_auto_embed = default_auto_embed
        self.job_max_attempts = job_max_attempts
        self._on_jobs = on_jobs
        #: writes applied at once (MEMLANE_WRITE_CONCURRENCY); the others wait their turn in
        #: arrival order. On one event loop every task in flight shares the CPU, so a recall's
        #: latency grows with the number of writes being worked on beside it; writes already
        #: wait for the one SQLite writer, and waiting here costs no CPU (BENCHMARKS.md).
        self._slots = asyncio.Semaphore(concurrency) if concurrency > 0 else None

    async def write_as(self, writer: Viewer, cmd: WriteCommand) -> WriteOutcome:
        """A write a caller sends through ``/v1/memory/write``: its authorship (owners, user,
        actor, lanes) derived here from the caller (``authored``), not by the route."""
        return await self.write(authored(cmd, writer))

    async def write(self, cmd: WriteCommand) -> WriteOutcome:
        if self._slots is None:
            return await self._write(cmd)
        async with self._slots:
            return await self._write(cmd)

    async def _write(self, cmd: WriteCommand) -> WriteOutcome:
        _refuse_repeated_client_ids(cmd.nodes)
        ups = [self._upsert(cmd, i, spec) for i, spec in enumerate(cmd.nodes)]
        eds = [self._edge(cmd, i, spec) for i, spec in enumerate(cmd.edges)]
        auto_embed = self.default_auto_embed if cmd.auto_embed is None else cmd.auto_embed
        job_ids: list[str] = []
        follow_up = self._embed_jobs(cmd.tenant_id, cmd.scope, job_ids, enabled=auto_embed or cmd.force_reembed)

        info = CommitInfo(
            actor=cmd.actor,
            input_sha256=cmd.input_sha256,
            kind=cmd.kind,
            model_version=cmd.model_version,
            prompt_version=cmd.prompt_version,
            parent_commit_id=cmd.parent_commit_id,
        )
        writer = visibility_of(cmd.viewer) if cmd.viewer is not None else None
        result = await self.store.apply_write(
            cmd.tenant_id,
            cmd.scope,
            ups,
            eds,
            info,
            now=self.clock.now(),
            follow_up=follow_up,
            writer=writer,
            rights=rule_rights_of(cmd.viewer),
        )
        if job_ids and self._on_jobs is not None:
            self._on_jobs()
        return WriteOutcome(result=result, embed_job_id=job_ids[0] if job_ids else None)

    async def restore(
        self,
        tenant_id: str,
        scope: str,
        nodes: Sequence[tuple[Node, list[float] | None]],
        edges: Sequence[Edge],
        info: CommitInfo,
    ) -> WriteOutcome | None:
        """Write nodes and edges exported from a store as they were: same ids, times and
        commit ids, every field given (an import). A node comes with its vector when that is
        in this embedder's space; one without is queued for embedding. One commit (``info``)
        records the import; nothing is written, and None returned, when there is nothing."""
        if not nodes and not edges:
            return None
        every_field = frozenset({*UPDATABLE_NODE_FIELDS, "type", "topic_state"})
        ups = [NodeUpsert(node=node, embedding=vector, fields_set=every_field, restore=True) for node, vector in nodes]
        for i, (_, vector) in enumerate(nodes):
            if vector is not None and len(vector) != self.dimension:
                raise InvalidRequest(
                    f"nodes[{i}].embedding has {len(vector)} dimensions; the configured embedder uses {self.dimension}",
                    code="invalid_embedding_dimension",
                    details={"field": f"nodes[{i}].embedding"},
                )
        eds = [
            EdgeUpsert(
                id=e.id,
                type=e.type,
                src=EdgeRef(id=e.src_id),
                dst=EdgeRef(id=e.dst_id),
                weight=e.weight,
                confidence=e.confidence,
                decay_rate=e.decay_rate,
                created_at=e.created_at,
                updated_at=e.updated_at,
                commit_id=e.commit_id,
                valid_at=e.valid_at,
                invalid_at=e.invalid_at,
                interval_set=frozenset({"valid_at", "invalid_at"}),
                expired_at=e.expired_at,
            )
            for e in edges
        ]
        job_ids: list[str] = []
        follow_up = self._embed_jobs(tenant_id, scope, job_ids, enabled=True)
        result = await self.store.apply_write(
            tenant_id, scope, ups, eds, info, now=self.clock.now(), follow_up=follow_up
        )
        if job_ids and self._on_jobs is not None:
            self._on_jobs()
        return WriteOutcome(result=result, embed_job_id=job_ids[0] if job_ids else None)

    def _embed_jobs(
        self, tenant_id: str, scope: str, job_ids: list[str], *, enabled: bool
    ) -> Callable[[WriteResult], list[Job]]:
        """The follow-up of a write: one embed job for its pending nodes, in the same
        transaction (its id is added to ``job_ids``)."""

        def follow_up(result: WriteResult) -> list[Job]:
            if not enabled or not result.pending_node_ids:
                return []
            job = Job(
                tenant_id=tenant_id,
                id=new_id(),
                kind=EMBED_NODES,
                scope=scope,
                payload={"node_ids": result.pending_node_ids},
                max_attempts=self.job_max_attempts,
            )
            job_ids.append(job.id)
            return [job]

        return follow_up

    async def import_history(
        self, tenant_id: str, scope: str, originals: Sequence[dict[str, Any]], *, actor: str
    ) -> int:
        """Commits exported from another store (their fields as JSON), appended to the scope's
        chain as history: each keeps its id (nodes name it), is recorded as ``imported`` by
        ``actor`` (who imports) at this time, hashed onto this chain's head, and holds the
        original's fields in ``diff["imported"]`` (its actor, hash, time, kind and diff). An
        import can therefore neither pass for another actor's commit nor rewrite the head.
        Commits stored by an earlier run are skipped (``Store.import_commits``)."""
        given = [
            ImportedCommit(
                id=str(original["id"]),
                info=CommitInfo(actor=actor, input_sha256=sha256_hex(canonical_json(original)), kind=IMPORTED),
                diff={"imported": dict(original)},
            )
            for original in originals
        ]
        return await self.store.import_commits(tenant_id, scope, given, now=self.clock.now())

    async def mutate(
        self, tenant_id: str, scope: str, ids: Sequence[str], mutation: NodeMutation, info: CommitInfo
    ) -> Commit | None:
        """Read-modify-write of stored nodes under the scope's write lock, chained as one commit
        (rule feedback and state, activation, rehydrate, decay, consolidation marks): counters
        kept in slots cannot lose updates. None when ``mutation`` changes nothing."""
        return await self.store.mutate_nodes(tenant_id, scope, ids, mutation, info, now=self.clock.now())

    async def redirect_edges(
        self, tenant_id: str, scope: str, redirects: Mapping[str, str], info: CommitInfo
    ) -> EdgeRedirectResult:
        """Move the edges of merged aliases onto their canonical nodes (consolidation)."""
        return await self.store.redirect_edges(tenant_id, scope, redirects, info, now=self.clock.now())

    async def delete_edges(
        self, tenant_id: str, scope: str, edge_ids: Sequence[str], info: CommitInfo
    ) -> Commit | None:
        return await self.store.delete_edges(tenant_id, scope, edge_ids, info, now=self.clock.now())

    async def delete(self, tenant_id: str, scope: str | None, ids: Sequence[str], info: CommitInfo) -> list[str]:
        """Hard-delete nodes with their edges, vectors and keyword rows, in one commit.

        Callers find the ids through ``MemoryReader`` first, so a caller only ever deletes
        what it may see; returns the ids that existed."""
        if not ids:
            return []
        return await self.store.delete_nodes(tenant_id, scope, ids, info, now=self.clock.now())

    def _upsert(self, cmd: WriteCommand, index: int, spec: WriteNodeSpec) -> NodeUpsert:
        self._check_node(cmd, f"nodes[{index}]", spec)
        fields = _GivenFields(spec)
        node = _node(cmd, spec, fields)
        fields.given.add("type")
        return NodeUpsert(
            node=node,
            embedding=spec.embedding,
            match_by_client_id=spec.id is None and bool(spec.client_id),
            fields_set=frozenset(fields.given),
            force_reembed=cmd.force_reembed,
        )

    def _check_node(self, cmd: WriteCommand, where: str, spec: WriteNodeSpec) -> None:
        """A node of another scope, a rule with a pattern that cannot run, or an embedding of
        another dimension is refused, naming the field."""
        if spec.scope is not None and spec.scope != cmd.scope:
            raise InvalidRequest(
                f"{where}.scope is {spec.scope!r} but the request scope is {cmd.scope!r}; one write "
                "commits to one scope",
                code="scope_mismatch",
                details={"field": f"{where}.scope"},
            )
        if spec.type == "rule":
            _refuse_bad_patterns(spec.slots or {}, where)
        if spec.embedding is not None and len(spec.embedding) != self.dimension:
            raise InvalidRequest(
                f"{where}.embedding has {len(spec.embedding)} dimensions; the configured embedder uses "
                f"{self.dimension}",
                code="invalid_embedding_dimension",
                details={"field": f"{where}.embedding", "expected": self.dimension, "got": len(spec.embedding)},
            )

    @staticmethod
    def _edge(cmd: WriteCommand, index: int, spec: WriteEdgeSpec) -> EdgeUpsert:
        if spec.scope is not None and spec.scope != cmd.scope:
            raise InvalidRequest(
                f"edges[{index}].scope is {spec.scope!r} but the request scope is {cmd.scope!r}",
                code="scope_mismatch",
                details={"field": f"edges[{index}].scope"},
            )
        return EdgeUpsert(
            id=spec.id,
            type=spec.type,
            src=spec.src,
            dst=spec.dst,
            weight=1.0 if spec.weight is None else spec.weight,
            confidence=1.0 if spec.confidence is None else spec.confidence,
            decay_rate=0.0 if spec.decay_rate is None else spec.decay_rate,
            valid_at=spec.valid_at,
            invalid_at=spec.invalid_at,
            interval_set=spec.interval_set,
        )


def _refuse_repeated_client_ids(nodes: Sequence[WriteNodeSpec]) -> None:
    """A ``client_id`` names one node of a scope: given twice in one write it would be two
    inserts of one key, which the store's unique index refuses half-way through the commit.
    (A repeated ``id`` is caught when the store plans the write, since a ``client_id`` may
    resolve to the same stored id.)"""
    seen: dict[str, int] = {}
    for i, spec in enumerate(nodes):
        if not spec.client_id:
            continue
        if spec.client_id in seen:
            first = f"nodes[{seen[spec.client_id]}].client_id"
            raise InvalidRequest(
                f"nodes[{i}].client_id {spec.client_id!r} is also {first}; a write names each node once",
                code="duplicate_client_id",
                details={"field": f"nodes[{i}].client_id", "first": first},
            )
        seen[spec.client_id] = i


def _refuse_bad_patterns(slots: dict[str, Any], where: str) -> None:
    """A rule's ``$regex`` operands must be patterns RE2 can run: refused at the write, naming
    the field, instead of a rule that silently never matches (other definition defects are
    reported when the rule enters shadow or active: drafts may be incomplete)."""
    for name, condition in rule_conditions(slots):
        for path, reason in regex_errors(condition)[:1]:
            field = f"{where}.{name}" if path == "$" else f"{where}.{name}.{path}"
            raise InvalidRequest(f"{field}: {reason}", code="invalid_rule_pattern", details={"field": field})


class _GivenFields:
    """A node spec's values with the fields its writer set: a value the spec did not set comes
    from the request's default (which then counts as set) or from ``NODE_DEFAULTS``."""

    def __init__(self, spec: WriteNodeSpec):
        self.spec = spec
        self.given = set(spec.fields_set)

    def pick(self, name: str, request_default: Any = None) -> Any:
        value = getattr(self.spec, name)
        if name in self.given and value is not None:
            return value
        if request_default is not None:
            self.given.add(name)
            return request_default
        return NODE_DEFAULTS.get(name)


def _node(cmd: WriteCommand, spec: WriteNodeSpec, fields: _GivenFields) -> Node:
    """The node a spec writes. Defaults that are not in ``given`` (lane, author) shape a created
    node only: an update keeps the stored values (domain/node_plan.py decides which it is)."""
    pick = fields.pick
    lane = pick("memory_lane", cmd.memory_lane) or "private"
    owner_agent = pick("owner_agent_id", cmd.owner_agent_id)
    owner_team = pick("owner_team_id", cmd.owner_team_id)
    producer = pick("producer_agent_id", cmd.producer_agent_id)
    if cmd.author is not None:
        if owner_agent is None and owner_team is None:
            owner_agent, owner_team = cmd.author.owner_agent_id, cmd.author.owner_team_id
        producer = producer or cmd.author.producer_agent_id
    slots = dict(spec.slots or {})
    topic_state = slots.get("topic_state") if spec.type == "topic" else None
    if "slots" in fields.given and spec.type == "topic":
        fields.given.add("topic_state")
    return Node(
        tenant_id=cmd.tenant_id,
        id=spec.id or new_id(),
        scope=cmd.scope,
        type=spec.type,
        client_id=spec.client_id,
        tier=pick("tier"),
        title=spec.title,
        text_summary=spec.text_summary,
        slots=slots,
        raw_ref=spec.raw_ref,
        evidence_ref=spec.evidence_ref,
        memory_lane=lane,
        producer_agent_id=producer,
        owner_agent_id=owner_agent,
        owner_team_id=owner_team,
        salience=pick("salience"),
        importance=pick("importance"),
        confidence=pick("confidence"),
        embedding_model=(spec.embedding_model or CLIENT_EMBEDDING_MODEL) if spec.embedding else None,
        status=pick("status"),
        topic_state=str(topic_state) if topic_state is not None else None,
        layer=spec.layer,
        user_id=spec.user_id,
        session_id=spec.session_id,
        task_id=spec.task_id,
        agent=spec.agent,
        tags=list(spec.tags or []),
        expires_at=spec.expires_at,
        valid_at=spec.valid_at,
        invalid_at=spec.invalid_at,
    )
