"""What a write does to nodes, decided before any row is touched: the write's policy.

``plan_node_writes`` is pure: given the upserts, the stored nodes they match and their
vectors, it returns the rows to insert and update, the nodes as written, and the commit
diff. The store reads what it needs under the scope's lock and executes the plan
(store/sql/writes.py); keeping the decisions here lets each rule (lanes hold for writes, one
node once per write, which fields an update changes, when a vector goes stale) be read, and
tested, on its own. The rule lifecycle judges rule nodes: the store passes its
``review_rule_write`` (rules/lifecycle.py) bound to the write, as a ``RuleReviewer``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from memlane.domain.errors import Conflict, InvalidRequest
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import Node, NodeUpsert
from memlane.domain.node_fields import UPDATABLE_NODE_FIELDS, node_values
from memlane.domain.validity import check_interval
from memlane.domain.visibility import Visibility

UnitVector = npt.NDArray[np.float32]

#: the vector columns of a node whose text changed: it waits for a new vector
NO_VECTOR: dict[str, Any] = {
    "embedding": None,
    "embedding_status": "pending",
    "embedding_model": None,
    "embedding_dim": None,
}


@dataclass(frozen=True, slots=True)
class RuleReview:
    """What the lifecycle makes of one node of a write: the slots and type to store (None:
    as written) and, when the write moved the rule's state, the move for the commit diff."""

    slots: dict[str, Any] | None = None
    type: str | None = None
    state_change: dict[str, Any] | None = None


UNCHANGED: Final = RuleReview()


class RuleReviewer(Protocol):
    """Judges one node of a write that is, or was, a rule: ``before`` is the stored node (None
    when the write creates it), ``after`` the node as it would be stored; raises when the
    write may not do it (rules/lifecycle.py ``review_rule_write``, bound to the write's time,
    actor and rights)."""

    def __call__(self, before: Node | None, after: Node, *, where: str, restore: bool) -> RuleReview: ...


def no_rules(before: Node | None, after: Node, *, where: str, restore: bool) -> RuleReview:
    """A reviewer for plans that hold no rule (tests of the other decisions)."""
    return UNCHANGED


@dataclass(slots=True)
class NodePlan:
    #: full rows of new nodes, still without ``row_no`` (allocated when they are inserted)
    inserts: list[dict[str, Any]] = field(default_factory=list)
    #: (node id, changed columns) of stored nodes
    updates: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    written: list[Node] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    diff: list[dict[str, Any]] = field(default_factory=list)


class StoredNodes:
    """The stored nodes a write's upserts refer to, by id and by client_id."""

    def __init__(self) -> None:
        self._by_id: dict[str, Node] = {}
        self._by_client: dict[str, Node] = {}

    def add(self, node: Node, *, client_wins: bool) -> None:
        """``client_wins``: the node was found by its client_id, so it owns that key even when
        a node found by id carries the same client_id."""
        self._by_id[node.id] = node
        if node.client_id:
            if client_wins:
                self._by_client[node.client_id] = node
            else:
                self._by_client.setdefault(node.client_id, node)

    def match(self, up: NodeUpsert) -> Node | None:
        if up.match_by_client_id and up.node.client_id:
            return self._by_client.get(up.node.client_id)
        return self._by_id.get(up.node.id)


def unit_vectors(ups: Sequence[NodeUpsert]) -> list[UnitVector | None]:
    """Unit-length float32 vectors of the upserts that bring one, normalised together
    (one array conversion for a bulk write instead of one per node) and before the write
    transaction, which other writers wait for."""
    out: list[UnitVector | None] = [None] * len(ups)
    by_dim: dict[int, list[int]] = {}
    for i, up in enumerate(ups):
        if up.embedding is not None and not up.force_reembed:
            by_dim.setdefault(len(up.embedding), []).append(i)
    for rows in by_dim.values():
        matrix = np.array([ups[i].embedding for i in rows], dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = np.divide(matrix, norms, out=matrix, where=norms > 0)
        for i, vec in zip(rows, matrix, strict=True):
            out[i] = vec
    return out


def plan_node_writes(
    ups: Sequence[NodeUpsert],
    stored: StoredNodes,
    vectors: Sequence[UnitVector | None],
    *,
    tenant_id: str,
    scope: str,
    writer: Visibility | None,
    now: datetime,
    commit_id: str,
    rev: int,
    review: RuleReviewer = no_rules,
) -> NodePlan:
    """Every row is planned already stamped with the commit: a second UPDATE per row to
    stamp it halved bulk-write throughput, and on PostgreSQL re-inserted each row into every
    index. Raises ``Conflict`` for a stored node the writer may not see (lanes hold for
    writes), and ``InvalidRequest`` for a node given twice or one that would be stored
    private with no owner (``check_owned``; an import restores what it finds). Rule nodes
    follow their lifecycle (``review``), judged here against the stored node so that no write,
    on any surface, sets a rule's state or feedback counts, and a stored rule changes only when
    the writer's rights govern it."""
    plan = NodePlan()
    seen: set[str] = set()
    for position, up in enumerate(ups):
        up.node.tenant_id, up.node.scope = tenant_id, scope
        prior = claim(up, stored.match(up), position, writer, seen)
        step = NodeStep(up, position, vectors[position], writer=writer, now=now, commit_id=commit_id, rev=rev)
        if prior is None:
            node, outcome = plan_insert(step, review, plan)
        else:
            node, outcome = plan_update(step, prior, review, plan)
        record_written(plan, node, outcome, step.where)
    return plan


@dataclass(frozen=True, slots=True)
class NodeStep:
    """One upsert of the write, with what every step of its plan needs."""

    up: NodeUpsert
    position: int
    vector: UnitVector | None
    writer: Visibility | None
    now: datetime
    commit_id: str
    rev: int

    @property
    def where(self) -> str:
        return f"nodes[{self.position}]"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a step decided beyond the node: create or update, its vector status, its review."""

    op: str
    status: str
    review: RuleReview


def claim(up: NodeUpsert, prior: Node | None, position: int, writer: Visibility | None, seen: set[str]) -> Node | None:
    """The stored node an upsert updates (None: it creates one), after the checks that hold
    before anything is planned: lanes hold for writes, and a write names each node once."""
    node = up.node
    if prior is not None and writer is not None and not writer.can_see(prior):
        raise Conflict(
            f"nodes[{position}]: client_id or id {prior.client_id or prior.id!r} belongs to a "
            "node in another agent's private lane",
            code="client_id_in_use",
            details={"field": f"nodes[{position}]"},
        )
    if prior is not None:
        node.id = prior.id
    if node.id in seen:
        raise InvalidRequest(
            f"node {node.id} (client_id {node.client_id!r}) appears twice in one write",
            code="duplicate_node",
            details={"field": "nodes", "id": node.id},
        )
    seen.add(node.id)
    return prior


def plan_insert(step: NodeStep, review: RuleReviewer, plan: NodePlan) -> tuple[Node, Outcome]:
    """A new node: reviewed as a rule, owned, stamped with this write (an import keeps its own
    stamps where it has them), and inserted."""
    up, node, now = step.up, step.up.node, step.now
    judged = review(None, node, where=step.where, restore=up.restore)
    apply_review(judged, node, None)
    if not up.restore:
        check_owned(node, step.position, step.writer, created=True)
        node.created_at = node.updated_at = now
        node.commit_id = step.commit_id
    node.created_at = node.created_at or now
    node.updated_at = node.updated_at or now
    node.commit_id = node.commit_id or step.commit_id
    row = node_insert_row(node, step.vector, step.rev)
    plan.inserts.append(row)
    return node, Outcome("create", row["embedding_status"], judged)


def plan_update(step: NodeStep, prior: Node, review: RuleReviewer, plan: NodePlan) -> tuple[Node, Outcome]:
    """A stored node with the given fields applied: reviewed as a rule against what was
    stored, still owned (an import restores its provenance instead), and updated."""
    up, given = step.up, step.up.node
    # node_update changes ``prior`` in place: the lifecycle compares with a copy
    before = replace(prior) if "rule" in (prior.type, given.type) else None
    values, node = node_update(prior, up, step.vector, step.rev, step.now)
    values["commit_id"] = node.commit_id = step.commit_id
    judged = UNCHANGED
    if before is not None:
        judged = review(before, node, where=step.where, restore=up.restore)
        apply_review(judged, node, values)
    if up.restore:
        restored_provenance(values, node, given)
    else:
        check_owned(node, step.position, step.writer, created=False)
    plan.updates.append((prior.id, values))
    return node, Outcome("update", values.get("embedding_status", prior.embedding_status), judged)


def record_written(plan: NodePlan, node: Node, outcome: Outcome, where: str) -> None:
    """The node as written, its place in the embedding queue, and its entry in the diff."""
    check_interval(node.valid_at, node.invalid_at, f"{where}.invalid_at")
    node.embedding_status = outcome.status
    if outcome.status == "pending":
        plan.pending.append(node.id)
    plan.written.append(node)
    entry: dict[str, Any] = {
        "op": outcome.op,
        "id": node.id,
        "client_id": node.client_id,
        "type": node.type,
        "content_sha256": content_sha(node),
    }
    if outcome.review.state_change is not None:
        entry["rule_state"] = outcome.review.state_change
    plan.diff.append(entry)


def apply_review(review: RuleReview, node: Node, values: dict[str, Any] | None) -> None:
    """What the rule lifecycle decided, on the node and (an update) on its changed columns."""
    if review.slots is not None:
        node.slots = review.slots
        if values is not None:
            values["slots"] = review.slots
    if review.type is not None:
        node.type = review.type
        if values is not None:
            values["type"] = review.type


def check_owned(node: Node, position: int, writer: Visibility | None, *, created: bool) -> None:
    """A node as it will be stored (created, or updated: the stored node with the given
    fields applied) that is private with no owner is refused when it is a rule (it could never
    apply to anyone), and when a restricted writer (a tenant-wide key) creates it: no one but
    an admin could ever read it back. Judged on the stored result, so updating a shared node
    without repeating its lane is no private write."""
    if node.memory_lane != "private" or node.owner_agent_id or node.owner_team_id:
        return
    where = f"nodes[{position}]"
    if node.type == "rule":
        raise InvalidRequest(
            f"{where}: a rule in the private lane needs owner_agent_id or owner_team_id",
            code="invalid_private_rule_owner",
            details={"field": f"{where}.owner_agent_id"},
        )
    if created and writer is not None and writer.lanes_enforced:
        raise InvalidRequest(
            f"{where} would be private with no owner, and your credentials carry no agent or team: write it "
            "with memory_lane 'shared', or with a key bound to an agent or team",
            code="invalid_private_owner",
            details={"field": f"{where}.memory_lane"},
        )


def restored_provenance(values: dict[str, Any], node: Node, given: Node) -> None:
    """An imported node's own times and commit replace this write's, where it has them."""
    for name in ("created_at", "updated_at", "last_activated", "commit_id", "expired_at"):
        value = getattr(given, name)
        if value is not None:
            values[name] = value
            setattr(node, name, value)


def node_insert_row(node: Node, vector: UnitVector | None, rev: int) -> dict[str, Any]:
    """Every field of the node (an import's ``expired_at`` too: a write's nodes never carry
    one), its vector columns and the write's ``rev``."""
    ready = vector is not None
    return {
        **node_values(node),
        "embedding": vector,
        "embedding_status": "ready" if ready else "pending",
        "embedding_model": node.embedding_model if ready else None,
        "embedding_dim": int(vector.shape[0]) if vector is not None else None,
        "rev": rev,
    }


def node_update(
    prior: Node, up: NodeUpsert, vector: UnitVector | None, rev: int, now: datetime
) -> tuple[dict[str, Any], Node]:
    """The columns an update changes, and the stored node with them applied (``prior`` itself,
    changed). Only fields the caller gave change; a vector stays only while the text does."""
    node = up.node
    values: dict[str, Any] = {"rev": rev, "updated_at": now}
    text_changed = ("title" in up.fields_set and node.title != prior.title) or (
        "text_summary" in up.fields_set and node.text_summary != prior.text_summary
    )
    merged = prior
    prior_invalid = prior.invalid_at
    for name in UPDATABLE_NODE_FIELDS:
        if name in up.fields_set:
            value = getattr(node, name)
            values[name] = value
            setattr(merged, name, value)
    if node.client_id is not None:
        values["client_id"] = merged.client_id = node.client_id
    if "invalid_at" in up.fields_set:
        values["expired_at"] = merged.expired_at = expired_at(prior_invalid, merged.invalid_at, prior.expired_at, now)
    merged.updated_at = now
    if vector is not None:
        values.update(
            embedding=vector,
            embedding_status="ready",
            embedding_model=node.embedding_model,
            embedding_dim=int(vector.shape[0]),
        )
        merged.embedding_model = node.embedding_model
    elif up.force_reembed or text_changed or prior.embedding_status != "ready":
        values.update(NO_VECTOR)
        merged.embedding_model = None
    return values, merged


def expired_at(
    before: datetime | None, after: datetime | None, expired: datetime | None, now: datetime
) -> datetime | None:
    """System time of a stored fact whose end was written: closed now when it had no end,
    reopened (None) when its end is removed, unchanged when an end is only moved."""
    if after is None:
        return None
    return now if before is None else expired


def content_sha(node: Node) -> str:
    """A digest of what a node says, recorded in the commit diff for audit. Its interval
    counts only once set, so digests of nodes without one are what they always were."""
    said: dict[str, Any] = {
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
    for name in ("valid_at", "invalid_at"):
        if (value := getattr(node, name)) is not None:
            said[name] = value.isoformat()
    return sha256_hex(canonical_json(said))


__all__ = [
    "NO_VECTOR",
    "UNCHANGED",
    "NodePlan",
    "NodeStep",
    "Outcome",
    "RuleReview",
    "RuleReviewer",
    "StoredNodes",
    "apply_review",
    "check_owned",
    "claim",
    "content_sha",
    "expired_at",
    "no_rules",
    "node_insert_row",
    "node_update",
    "plan_insert",
    "plan_node_writes",
    "plan_update",
    "record_written",
    "unit_vectors",
]
