"""What a write does to edges, decided in pure steps between the two lookups it needs.

An edge names its endpoints by id or client_id, of a node in the same write or stored in
the scope. ``missing_endpoints`` says which to look up, ``resolve_endpoints`` turns every
edge into ids (or refuses the write), and ``plan_edge_writes`` decides, given the edges
already stored between the same nodes, which rows to insert and which to update. The
store reads what they need and runs the statements (store/sql/writes.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlane.domain.clock import new_id
from memlane.domain.errors import InvalidRequest
from memlane.domain.model import Edge, EdgeRef, EdgeUpsert, Node
from memlane.domain.node_fields import edge_values
from memlane.domain.node_plan import expired_at
from memlane.domain.validity import check_interval

#: an edge's identity: at most one edge of a type between two nodes, in one direction
EdgeKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class StoredEdge:
    """What an update of a stored edge needs of it: its id and its interval."""

    id: str
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None


@dataclass(slots=True)
class Endpoints:
    """Node ids an edge of this write may name: the write's own and the stored visible ones."""

    in_write: set[str] = field(default_factory=set)
    stored: set[str] = field(default_factory=set)
    by_client: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_write(cls, written: Iterable[Node]) -> Endpoints:
        known = cls()
        for n in written:
            known.in_write.add(n.id)
            if n.client_id:
                known.by_client[n.client_id] = n.id
        return known


@dataclass(slots=True)
class ResolvedEdge:
    upsert: EdgeUpsert
    src_id: str
    dst_id: str

    @property
    def key(self) -> EdgeKey:
        return (self.upsert.type, self.src_id, self.dst_id)


@dataclass(slots=True)
class EdgePlan:
    #: full rows of new edges, by id
    inserts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: changed columns of stored edges, by id
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    diff: list[dict[str, Any]] = field(default_factory=list)


def missing_endpoints(edges_in: Sequence[EdgeUpsert], known: Endpoints) -> tuple[list[str], list[str]]:
    """Ids and client_ids the edges name that are not nodes of this write, to look up."""
    refs = [r for e in edges_in for r in (e.src, e.dst)]
    ids = {r.id for r in refs if r.id and r.id not in known.in_write}
    client_ids = {r.client_id for r in refs if not r.id and r.client_id and r.client_id not in known.by_client}
    return sorted(ids), sorted(client_ids)


def resolve_endpoints(edges_in: Sequence[EdgeUpsert], known: Endpoints, scope: str) -> list[ResolvedEdge]:
    """Every edge with node ids; ``InvalidRequest`` (``edge_endpoint_not_found``) names the
    first endpoint that is neither in the write nor stored and visible."""
    return [
        ResolvedEdge(
            e, _resolve(known, e.src, f"edges[{i}].src", scope), _resolve(known, e.dst, f"edges[{i}].dst", scope)
        )
        for i, e in enumerate(edges_in)
    ]


def _resolve(known: Endpoints, ref: EdgeRef, where: str, scope: str) -> str:
    if ref.id:
        if ref.id in known.in_write or ref.id in known.stored:
            return ref.id
        missing = f"id {ref.id}"
    else:
        if ref.client_id in known.by_client:
            return known.by_client[ref.client_id]
        missing = f"client_id {ref.client_id!r}"
    raise InvalidRequest(
        f"{where}: no node with {missing} in this write or in scope {scope!r}",
        code="edge_endpoint_not_found",
        details={"field": where},
    )


def edge_interval(e: EdgeUpsert, prior: StoredEdge | None, now: datetime, where: str) -> dict[str, Any]:
    """The interval columns an edge write sets: what it gave over what was stored, and the
    system time of the end (node_plan.expired_at); refused when it ends before it begins."""
    valid = e.valid_at if "valid_at" in e.interval_set or prior is None else prior.valid_at
    invalid = e.invalid_at if "invalid_at" in e.interval_set or prior is None else prior.invalid_at
    check_interval(valid, invalid, f"{where}.invalid_at")
    if e.expired_at is not None:  # an import keeps what the exporting store knew
        expired = e.expired_at
    elif prior is None:
        expired = None
    elif "invalid_at" in e.interval_set:
        expired = expired_at(prior.invalid_at, invalid, prior.expired_at, now)
    else:
        expired = prior.expired_at
    return {"valid_at": valid, "invalid_at": invalid, "expired_at": expired}


@dataclass(frozen=True, slots=True)
class EdgeWrite:
    """What every edge of one write is stamped with."""

    tenant_id: str
    scope: str
    now: datetime
    commit_id: str
    rev: int
    make_id: Callable[[], str] = new_id


def plan_edge_writes(
    resolved: Sequence[ResolvedEdge],
    stored: dict[EdgeKey, StoredEdge],
    *,
    tenant_id: str,
    scope: str,
    now: datetime,
    commit_id: str,
    rev: int,
    make_id: Callable[[], str] = new_id,
) -> EdgePlan:
    """An edge between nodes already joined by one of its type updates that edge; the same
    edge twice in one write is written once, the last one's values winning (the diff keeps
    the first occurrence, as it always has)."""
    write = EdgeWrite(tenant_id, scope, now, commit_id, rev, make_id)
    plan = EdgePlan()
    first: dict[EdgeKey, Edge] = {}
    for position, r in enumerate(resolved):
        prior = stored.get(r.key)
        values: dict[str, Any] = {"weight": r.upsert.weight, "confidence": r.upsert.confidence}
        values["decay_rate"] = r.upsert.decay_rate
        values.update(edge_interval(r.upsert, prior, now, f"edges[{position}]"))
        earlier = first.get(r.key)
        if earlier is not None:
            repeat(plan, earlier, values, stored_before=prior is not None)
            continue
        edge = plan_edge(plan, r, prior, values, write)
        first[r.key] = edge
        plan.edges.append(edge)
        plan.diff.append(edge_diff(r, edge, values, op="update" if prior is not None else "create"))
    return plan


def repeat(plan: EdgePlan, earlier: Edge, values: dict[str, Any], *, stored_before: bool) -> None:
    """An edge given again in the same write: its values replace the earlier occurrence's."""
    for name, value in values.items():
        setattr(earlier, name, value)
    (plan.updates if stored_before else plan.inserts)[earlier.id].update(values)


def plan_edge(
    plan: EdgePlan, r: ResolvedEdge, prior: StoredEdge | None, values: dict[str, Any], write: EdgeWrite
) -> Edge:
    """The edge as written, and the update of the stored edge or the insert of a new one. An
    import brings the edge's own times and commit; any other write stamps its own."""
    e = r.upsert
    edge = Edge(
        tenant_id=write.tenant_id,
        id=prior.id if prior is not None else e.id or write.make_id(),
        scope=write.scope,
        type=e.type,
        src_id=r.src_id,
        dst_id=r.dst_id,
        created_at=e.created_at or write.now,
        updated_at=e.updated_at or write.now,
        commit_id=e.commit_id or write.commit_id,
        **values,
    )
    if prior is None:
        plan.inserts[edge.id] = {**edge_values(edge), "rev": write.rev}
        return edge
    update = {**values, "updated_at": edge.updated_at, "commit_id": edge.commit_id, "rev": write.rev}
    if e.created_at is not None:
        update["created_at"] = edge.created_at
    plan.updates[edge.id] = update
    return edge


def edge_diff(r: ResolvedEdge, edge: Edge, values: dict[str, Any], *, op: str) -> dict[str, Any]:
    """The edge's entry in the commit diff: as given (weight, confidence), with its interval
    only once set, so the diffs (and hashes) of edges without one are unchanged."""
    return {
        "op": op,
        "id": edge.id,
        "type": edge.type,
        "src_id": r.src_id,
        "dst_id": r.dst_id,
        "weight": r.upsert.weight,
        "confidence": r.upsert.confidence,
        **{k: values[k].isoformat() for k in ("valid_at", "invalid_at") if values[k] is not None},
    }


__all__ = [
    "EdgeKey",
    "EdgePlan",
    "EdgeWrite",
    "Endpoints",
    "ResolvedEdge",
    "StoredEdge",
    "edge_diff",
    "edge_interval",
    "missing_endpoints",
    "plan_edge",
    "plan_edge_writes",
    "repeat",
    "resolve_endpoints",
]
