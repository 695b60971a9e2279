"""Success responses of the graph surface (``/v1/memory/write``, ``/recall``, ``/recall_text``);
recall's ``rules`` block counts what the rules surface's evaluation counts. The functions at
the end build the nodes, edges and seeds in them from whitelists."""

from __future__ import annotations

from typing import Any, NotRequired, TypeVar, cast

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.api.rules.responses import RuleCounts
from memlane.domain.clock import iso
from memlane.domain.model import Edge, Node
from memlane.domain.node_fields import META_NODE_FIELDS, NODE_TIME_FIELDS


@closed
class WrittenNode(TypedDict):
    id: str
    client_id: str | None
    type: str


@closed
class WrittenEdge(TypedDict):
    id: str
    type: str
    src_id: str
    dst_id: str


@closed
class EmbeddingBackfill(TypedDict):
    """Nodes written without an embedding, queued for the server to embed."""

    enqueued: bool
    pending: int


@closed
class GraphWriteReply(TypedDict):
    tenant_id: str
    scope: str
    commit_id: str
    commit_hash: str
    nodes: list[WrittenNode]
    edges: list[WrittenEdge]
    embedding_backfill: NotRequired[EmbeddingBackfill]


class Interval(TypedDict):
    """When a fact with an interval was true (null: that end is open) and when the server
    learned that it ended; absent for facts that never had an interval, and unless the request
    asked about time (``as_of``, ``include_invalid``) or for ``include_meta``."""

    valid_at: NotRequired[str | None]
    invalid_at: NotRequired[str | None]
    expired_at: NotRequired[str | None]


@closed
class Seed(Interval):
    """``similarity`` is the raw cosine; ``relevance`` (with ``include_meta``) the same on the
    calibrated 0..1 scale."""

    id: str
    type: str
    title: str | None
    text_summary: str | None
    tier: str
    salience: float | None
    confidence: float | None
    similarity: float
    relevance: NotRequired[float]


@closed
class Ranked(TypedDict):
    id: str
    activation: float
    score: float


@closed
class GraphNode(Interval):
    """A node of the recalled subgraph; the optional parts follow the request's include_* flags."""

    id: str
    type: str
    title: str | None
    text_summary: str | None
    topic_state: NotRequired[str]
    member_count: NotRequired[int]
    slots: NotRequired[dict[str, Any]]
    slots_preview: NotRequired[dict[str, Any]]
    raw_ref: NotRequired[str | None]
    evidence_ref: NotRequired[str | None]
    embedding_status: NotRequired[str | None]
    embedding_model: NotRequired[str | None]
    memory_lane: NotRequired[str | None]
    producer_agent_id: NotRequired[str | None]
    owner_agent_id: NotRequired[str | None]
    owner_team_id: NotRequired[str | None]
    created_at: NotRequired[str | None]
    updated_at: NotRequired[str | None]
    last_activated: NotRequired[str | None]
    salience: NotRequired[float | None]
    importance: NotRequired[float | None]
    confidence: NotRequired[float | None]
    commit_id: NotRequired[str | None]


@closed
class GraphEdge(Interval):
    from_id: str
    to_id: str
    type: str
    weight: float
    commit_id: NotRequired[str | None]


@closed
class Subgraph(TypedDict):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


@closed
class RecallContext(TypedDict):
    """The recalled memory as prompt-ready text, its items and their citations."""

    text: str
    items: list[dict[str, Any]]
    citations: list[dict[str, Any]]


@closed
class RecallDebug(TypedDict):
    neighborhood_counts: dict[str, Any]
    embeddings: NotRequired[list[dict[str, Any]]]


@closed
class RulesBlock(RuleCounts):
    """The rules matched against ``rules_context``, when the recall sent one."""

    scope: str


@closed
class RecallReply(TypedDict):
    tenant_id: str
    scope: str
    seeds: list[Seed]
    ranked: list[Ranked]
    subgraph: Subgraph
    context: RecallContext
    debug: NotRequired[RecallDebug]
    rules: NotRequired[RulesBlock]
    #: with ``explain``: per node id, the signals behind its rank
    explain: NotRequired[dict[str, dict[str, float]]]


@closed
class QueryInfo(TypedDict):
    text: str
    embedding_provider: str


@closed
class RecallTextReply(RecallReply):
    query: QueryInfo


#: any response model that carries an interval
WithInterval = TypeVar("WithInterval", bound=Interval)


# --- built field by field from whitelists, so a new column can never leak into a response ---
#: what ``include_meta`` shows of a node (domain/node_fields.py), and which of it are times
META_FIELDS = META_NODE_FIELDS
META_TIMES = frozenset(META_NODE_FIELDS) & frozenset(NODE_TIME_FIELDS)


def add_interval(out: WithInterval, item: Node | Edge, *, shown: bool = True) -> WithInterval:
    """``out`` with when ``item`` was true (null: that end is open), and when the server
    learned that it ended (``expired_at``); nothing for an item without an interval, or when the
    request did not ask (``shown``: it asked about time, or for meta), so a response keeps the
    contract's whitelist unless the caller asked for more."""
    if shown and (item.valid_at is not None or item.invalid_at is not None):
        out["valid_at"] = iso(item.valid_at)
        out["invalid_at"] = iso(item.invalid_at)
        out["expired_at"] = iso(item.expired_at)
    return out


def node_dto(
    n: Node,
    *,
    include_meta: bool,
    include_slots: bool,
    include_slots_preview: bool,
    slots_preview_keys: int,
    with_interval: bool = True,
) -> GraphNode:
    out: GraphNode = {"id": n.id, "type": n.type, "title": n.title, "text_summary": n.text_summary}
    out = add_interval(out, n, shown=with_interval)
    if n.type == "topic":
        if n.topic_state is not None:
            out["topic_state"] = n.topic_state
        member_count = n.slots.get("member_count")
        if isinstance(member_count, int):
            out["member_count"] = member_count
    if include_slots:
        out["slots"] = n.slots
    if include_slots_preview:
        keys = sorted(n.slots)[:slots_preview_keys]
        out["slots_preview"] = {k: n.slots[k] for k in keys}
    if include_meta:
        out.update(_meta(n))
    return out


def _meta(n: Node) -> GraphNode:
    """What ``include_meta`` adds to a node: the fields Node declares with the meta role
    (domain/node_fields.py), times as ISO-8601. The keys come from that declaration, not from
    literals, so the type is asserted here; tests/api/test_spec_dto_fields.py holds GraphNode
    and the declaration together, and the closed model refuses a key it does not declare."""
    meta = {name: iso(getattr(n, name)) if name in META_TIMES else getattr(n, name) for name in META_FIELDS}
    return cast(GraphNode, meta)


def edge_dto(e: Edge, *, include_meta: bool, with_interval: bool = True) -> GraphEdge:
    out: GraphEdge = {"from_id": e.src_id, "to_id": e.dst_id, "type": e.type, "weight": e.weight}
    out = add_interval(out, e, shown=with_interval)
    if include_meta:
        out["commit_id"] = e.commit_id
    return out


def seed_dto(n: Node, similarity: float, relevance: float, *, include_meta: bool, with_interval: bool) -> Seed:
    """The contract's seed whitelist (``similarity`` is the raw cosine). ``include_meta`` adds
    ``relevance``, the same on the calibrated 0..1 scale (docs/retrieval.md); the interval
    fields come as for nodes."""
    out: Seed = {
        "id": n.id,
        "type": n.type,
        "title": n.title,
        "text_summary": n.text_summary,
        "tier": n.tier,
        "salience": n.salience,
        "confidence": n.confidence,
        "similarity": round(similarity, 6),
    }
    if include_meta:
        out["relevance"] = round(relevance, 6)
    return add_interval(out, n, shown=with_interval)
