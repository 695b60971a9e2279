"""Plain records the store reads and writes; every surface maps its own DTOs onto these.

A node is the one stored unit: a graph node, a conversation note, a layered MemoryObject, a
tool-layer memory, a rule, or a synced knowledge item are all nodes distinguished by ``type``
and indexed attributes (layer, user_id, session_id, task_id, agent, tags, expires_at).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from memlane.domain.filters import Eq, In, Not, Term, all_of
from memlane.domain.validity import current_term
from memlane.domain.visibility import Visibility

NodeType = Literal["event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model"]
NODE_TYPES: tuple[str, ...] = ("event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model")
EdgeType = Literal["part_of", "related_to", "derived_from", "next"]
WRITE_EDGE_TYPES: tuple[str, ...] = ("part_of", "related_to", "derived_from")
Tier = Literal["hot", "warm", "cold", "archive"]
TIERS: tuple[str, ...] = ("hot", "warm", "cold", "archive")
TIER_RANK: dict[str, int] = {"archive": 0, "cold": 1, "warm": 2, "hot": 3}
ACTIVE_TIERS: tuple[str, ...] = ("hot", "warm")
Lane = Literal["private", "shared"]
EmbeddingStatus = Literal["pending", "ready", "failed"]
CLIENT_EMBEDDING_MODEL = "client"


#: What a node field is for. ``Node`` declares its fields once, each with its roles, and every
#: list of node fields (what a write may give, what an update changes, what ``include_meta``
#: shows, the rows the store reads and writes) derives from it (domain/node_fields.py).
#: a write may give it (services/writing.py ``WriteNodeSpec``)
GIVEN: Final = "given"
#: the graph surface's write takes it too (``WriteNodeIn``); the others are other surfaces'
GRAPH: Final = "graph"
#: an upsert of a stored node changes it when the write gives it (domain/node_plan.py)
UPDATABLE: Final = "updatable"
#: a recall with ``include_meta`` shows it (api/graph/responses.py ``node_dto``)
META: Final = "meta"


def roles(*names: str) -> dict[str, frozenset[str]]:
    """A node field's metadata: the roles it has."""
    return {"roles": frozenset(names)}


#: the id, scope and client_id name the node: given, never changed by an update
KEY = roles(GIVEN, GRAPH)
#: what a write on any surface sets, and an update changes
WRITTEN = roles(GIVEN, GRAPH, UPDATABLE)
#: ... and a recall shows with ``include_meta``
WRITTEN_META = roles(GIVEN, GRAPH, UPDATABLE, META)
#: attributes the other surfaces (layers, tools, conversation) set
ATTRIBUTE = roles(GIVEN, UPDATABLE)
#: kept by the server, shown with ``include_meta``
KEPT_META = roles(META)


@dataclass(slots=True)
class Node:
    """A stored node without its vector: the store never loads vectors unless asked. The one
    declaration of a node's fields: each field's roles say on which lists it is."""

    tenant_id: str
    id: str = field(metadata=KEY)
    scope: str = field(metadata=KEY)
    type: str = field(metadata=WRITTEN)
    client_id: str | None = field(default=None, metadata=KEY)
    tier: str = field(default="hot", metadata=WRITTEN)
    title: str | None = field(default=None, metadata=WRITTEN)
    text_summary: str | None = field(default=None, metadata=WRITTEN)
    slots: dict[str, Any] = field(default_factory=dict, metadata=WRITTEN)
    raw_ref: str | None = field(default=None, metadata=WRITTEN_META)
    evidence_ref: str | None = field(default=None, metadata=WRITTEN_META)
    memory_lane: str = field(default="private", metadata=WRITTEN_META)
    producer_agent_id: str | None = field(default=None, metadata=WRITTEN_META)
    owner_agent_id: str | None = field(default=None, metadata=WRITTEN_META)
    owner_team_id: str | None = field(default=None, metadata=WRITTEN_META)
    salience: float = field(default=0.5, metadata=WRITTEN_META)
    importance: float = field(default=0.5, metadata=WRITTEN_META)
    confidence: float = field(default=0.5, metadata=WRITTEN_META)
    embedding_status: str = field(default="pending", metadata=KEPT_META)
    #: given with a client's vector; the server's model otherwise
    embedding_model: str | None = field(default=None, metadata=roles(GIVEN, GRAPH, META))
    status: str = field(default="active", metadata=ATTRIBUTE)
    #: a topic's, from its slots (services/writing.py)
    topic_state: str | None = field(default=None, metadata=roles(UPDATABLE))
    layer: str | None = field(default=None, metadata=ATTRIBUTE)
    user_id: str | None = field(default=None, metadata=ATTRIBUTE)
    session_id: str | None = field(default=None, metadata=ATTRIBUTE)
    task_id: str | None = field(default=None, metadata=ATTRIBUTE)
    agent: str | None = field(default=None, metadata=ATTRIBUTE)
    tags: list[str] = field(default_factory=list, metadata=ATTRIBUTE)
    expires_at: datetime | None = field(default=None, metadata=ATTRIBUTE)
    created_at: datetime | None = field(default=None, metadata=KEPT_META)
    updated_at: datetime | None = field(default=None, metadata=KEPT_META)
    last_activated: datetime | None = field(default=None, metadata=KEPT_META)
    commit_id: str | None = field(default=None, metadata=KEPT_META)
    #: event time (domain/validity.py): when the fact became true, and when it stopped
    valid_at: datetime | None = field(default=None, metadata=WRITTEN)
    invalid_at: datetime | None = field(default=None, metadata=WRITTEN)
    #: system time: when a later commit closed the fact (set by the server)
    expired_at: datetime | None = None

    @property
    def text(self) -> str:
        """What gets embedded and keyword-indexed: the title and the summary together."""
        parts = [p for p in (self.title, self.text_summary) if p]
        return "\n".join(parts)


@dataclass(slots=True)
class NodeUpsert:
    """One node of a write, after defaults are applied; ``embedding`` only when supplied."""

    node: Node
    embedding: list[float] | None = None
    match_by_client_id: bool = False
    #: node fields the caller gave; an update of an existing node changes only these
    fields_set: frozenset[str] = frozenset()
    force_reembed: bool = False
    #: an import: the node keeps its own ``created_at``, ``updated_at``, ``last_activated``
    #: and ``commit_id`` (the commit that made it in the store it came from)
    restore: bool = False


@dataclass(slots=True)
class EdgeRef:
    """An edge endpoint: a node id or a client_id, possibly of a node in the same write."""

    id: str | None = None
    client_id: str | None = None


@dataclass(slots=True)
class Edge:
    tenant_id: str
    id: str
    scope: str
    type: str
    src_id: str
    dst_id: str
    weight: float = 1.0
    confidence: float = 1.0
    decay_rate: float = 0.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    commit_id: str | None = None
    #: event and system time, as on a node
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None


@dataclass(slots=True)
class EdgeUpsert:
    id: str | None
    type: str
    src: EdgeRef
    dst: EdgeRef
    weight: float = 1.0
    confidence: float = 1.0
    decay_rate: float = 0.0
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    #: which of ``valid_at`` / ``invalid_at`` the caller gave; an update keeps the others
    interval_set: frozenset[str] = frozenset()
    #: set by an import only: the edge's own times and commit instead of this write's
    created_at: datetime | None = None
    updated_at: datetime | None = None
    commit_id: str | None = None
    expired_at: datetime | None = None


@dataclass(slots=True)
class CommitInfo:
    """Provenance of one write; the store chains it to the scope's previous commit."""

    actor: str | None
    input_sha256: str
    kind: str = "write"
    model_version: str | None = None
    prompt_version: str | None = None
    parent_commit_id: str | None = None


@dataclass(slots=True)
class ImportedCommit:
    """A commit of another store, appended to this store's chain by an import: under its own
    id (the nodes it made name it), by ``info`` (the importing actor, kind ``imported``) at
    the time of the import, with the original's fields kept in ``diff["imported"]``."""

    id: str
    info: CommitInfo
    diff: dict[str, Any]


@dataclass(slots=True)
class Commit:
    tenant_id: str
    id: str
    scope: str
    parent_id: str | None
    parent_hash: str | None
    commit_hash: str
    actor: str | None
    input_sha256: str
    kind: str
    diff: dict[str, Any]
    created_at: datetime
    #: set when an erasure emptied the diff; the hashes stay (docs/security.md, "Erasure")
    erased_at: datetime | None = None


@dataclass(slots=True)
class WriteResult:
    commit: Commit
    nodes: list[Node]
    edges: list[Edge]
    pending_node_ids: list[str]


@dataclass(slots=True)
class Job:
    tenant_id: str
    id: str
    kind: str
    payload: dict[str, Any]
    status: str = "queued"
    attempts: int = 0
    max_attempts: int = 5
    scope: str | None = None
    idempotency_key: str | None = None
    run_after: datetime | None = None
    lease_owner: str | None = None
    lease_expires_at: datetime | None = None
    last_error: str | None = None
    result: dict[str, Any] | None = None
    progress: dict[str, Any] | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SeedFilter:
    """Which nodes a search or listing may return: visible to the reader, in the given tiers,
    not draft topics, and matching the attribute filters that are set.

    ``visibility`` has no default on purpose: every read states whose reach it has (offline
    jobs pass ``EVERYTHING``). ``term()`` is the filter's whole meaning; the backends only
    render it (domain/filters.py).
    """

    visibility: Visibility
    #: the instant whose facts are read (now, or a caller's ``as_of``): nodes valid then and
    #: not expired by then; None reads every node whatever its interval or expiry. No
    #: default either: every read states it (domain/validity.py)
    valid_at: datetime | None
    #: empty means every tier
    tiers: tuple[str, ...] = ACTIVE_TIERS
    exclude_draft_topics: bool = True
    statuses: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None
    layers: tuple[str, ...] | None = None
    user_id: str | None = None
    session_id: str | None = None
    task_id: str | None = None

    def term(self) -> Term:
        parts: list[Term] = [self.visibility.term(), current_term(self.valid_at)]
        if self.tiers:
            parts.append(In("tier", tuple(self.tiers)))
        if self.exclude_draft_topics:
            parts.append(Not(all_of(Eq("type", "topic"), Eq("topic_state", "draft"))))
        for column, values in (("status", self.statuses), ("type", self.types), ("layer", self.layers)):
            if values:
                parts.append(In(column, tuple(values)))
        for column, value in (("user_id", self.user_id), ("session_id", self.session_id), ("task_id", self.task_id)):
            if value is not None:
                parts.append(Eq(column, value))
        return all_of(*parts)


@dataclass(slots=True)
class ScoredId:
    id: str
    score: float


@dataclass(slots=True)
class RecallAudit:
    """Who recalled what in a scope: one row per recall (the query only as a hash)."""

    tenant_id: str
    scope: str
    endpoint: str
    consumer_agent_id: str | None
    consumer_team_id: str | None
    query_sha256: str | None
    seed_ids: list[str]
    returned_count: int
    created_at: datetime


@dataclass(slots=True)
class NodeBrief:
    """The few fields recall needs to decide whether a neighbour may take part and how much
    it weighs; full nodes are loaded only for what a recall returns."""

    id: str
    type: str
    tier: str
    memory_lane: str
    owner_agent_id: str | None
    owner_team_id: str | None
    embedding_status: str
    topic_state: str | None
    layer: str | None
    salience: float
    confidence: float
    user_id: str | None = None
    session_id: str | None = None
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    #: an expired neighbour is gone like any other node (domain/validity.py)
    expires_at: datetime | None = None
