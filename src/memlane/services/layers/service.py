"""The layered memory use cases: write, read, update, delete, search, complete a task.

Layered memories are nodes (type ``concept``, ``slots.kind = "layered_memory"``) with
``layer`` set. Identity and project memories live in the request's scope in the shared lane;
workspace memories live in a scope of their own (``<scope>#workspace``), in the private lane
of the reserved team ``memlane:system-agents``, so graph recall in the ordinary scope never
seeds from them. Every read goes through ``MemoryReader`` (the workspace layer is hidden from
every reader that is not a system agent), every write through ``WriteService``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from memlane.domain.clock import Clock
from memlane.domain.errors import InvalidRequest, NotFound
from memlane.domain.filters import matches
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.model import CommitInfo, Node
from memlane.domain.validity import CURRENT, HISTORY, ValidTime
from memlane.domain.visibility import SYSTEM_AGENTS_TEAM, Viewer
from memlane.services.embedding import EmbeddingService
from memlane.services.layers import roles
from memlane.services.layers.ids import to_node_id
from memlane.services.layers.priority import Candidate, RankContext, rank
from memlane.services.layers.roles import IDENTITY, LAYERS, PROJECT, WORKSPACE
from memlane.services.layers.routing import LayerClassifier, RoutingDecision
from memlane.services.reading import MemoryReader
from memlane.services.writing import WriteCommand, WriteNodeSpec, WriteService
from memlane.store.base import Vector

KIND = "layered_memory"
NEW_MEMORY_FIELDS = frozenset(
    {"type", "tier", "title", "text_summary", "slots", "memory_lane", "producer_agent_id", "owner_team_id",
     "salience", "importance", "confidence", "status", "layer", "task_id", "agent", "tags", "expires_at",
     "valid_at", "invalid_at", "user_id"}
)  # fmt: skip
NODE_TYPE = "concept"
WORKSPACE_SUFFIX = "#workspace"
#: every tier: layered memories are read by layer, not by recall's active tiers
ANY_TIER: tuple[str, ...] = ()
MAX_LIMIT = 100
TASK_SCAN_LIMIT = 1000


def workspace_scope(scope: str) -> str:
    return scope + WORKSPACE_SUFFIX


def scope_for(layer: str, scope: str) -> str:
    return workspace_scope(scope) if layer == WORKSPACE else scope


@dataclass(slots=True)
class MemoryMeta:
    agent: str | None = None
    task_id: str | None = None
    user_visible: bool | None = None
    expiry: datetime | None = None
    tags: list[str] | None = None
    #: event time of the memory (domain/validity.py)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    #: which of the fields above the caller sent (so ``expiry: null`` can clear an expiry)
    given: frozenset[str] = frozenset()


@dataclass(slots=True)
class WriteInput:
    title: str
    content: str
    scope: str
    layer: str | None = None
    meta: MemoryMeta = field(default_factory=MemoryMeta)
    user_instruction: bool = False


@dataclass(slots=True)
class WriteOutcome:
    node: Node
    routing: RoutingDecision | None


@dataclass(slots=True)
class ReadInput:
    layer: str
    scope: str
    query: str | None = None
    id: str | None = None
    task_id: str | None = None
    agent: str | None = None
    mode: str | None = None
    limit: int = 10
    tags: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SearchInput:
    query: str
    scope: str
    layer: str | None = None
    top_k: int = 10
    task_id: str | None = None
    agent: str | None = None
    tags: list[str] = field(default_factory=list)
    #: which memories by their interval: valid now by default
    when: ValidTime = CURRENT


@dataclass(slots=True)
class UpdateInput:
    id: str
    new_title: str | None = None
    new_content: str | None = None
    new_meta: MemoryMeta | None = None
    user_instruction: bool = False
    user_confirmed: bool = False
    system_refinement: bool = False


@dataclass(slots=True)
class Hit:
    node: Node
    score: float | None
    mode: str
    reasons: list[str] = field(default_factory=list)


def is_layered(n: Node) -> bool:
    return n.layer in LAYERS and n.slots.get("kind") == KIND


class LayeredMemoryService:
    def __init__(
        self,
        *,
        reader: MemoryReader,
        writes: WriteService,
        embedding: EmbeddingService,
        clock: Clock,
        classifier: LayerClassifier,
        on_write: Callable[[str], Awaitable[None]] | None = None,
    ):
        self.reader = reader
        self.writes = writes
        self.embedding = embedding
        self.clock = clock
        self.classifier = classifier
        #: called with the tenant after each write (schedules the expiry sweep)
        self._on_write = on_write

    # --- write ----------------------------------------------------------------------------
    async def write(self, caller: Viewer, w: WriteInput) -> WriteOutcome:
        routing: RoutingDecision | None = None
        if w.layer is None:
            routing = await self.classifier.classify(w.title, w.content, w.meta.task_id, list(w.meta.tags or []))
            layer = routing.layer
        else:
            layer = roles.check_layer(w.layer)
        roles.check_write(caller.role, layer, user_instruction=w.user_instruction)
        now = self.clock.now()
        self._check_expiry(w.meta.expiry, now)
        vector = await self.embedding.query_vector(memory_text(w.title, w.content))
        user_visible = w.meta.user_visible if w.meta.user_visible is not None else layer != WORKSPACE
        spec = WriteNodeSpec(
            type=NODE_TYPE,
            title=w.title,
            text_summary=w.content,
            slots={
                "kind": KIND,
                "user_visible": user_visible,
                "written_by_role": caller.role,
                "user_instruction": w.user_instruction,
            },
            memory_lane="private" if layer == WORKSPACE else "shared",
            producer_agent_id=caller.agent_id,
            owner_team_id=SYSTEM_AGENTS_TEAM if layer == WORKSPACE else None,
            embedding=[float(x) for x in vector],
            embedding_model=self.embedding.embedder.model_id,
            layer=layer,
            # the user the caller acts for, so an erasure of that user finds it
            user_id=caller.user_id,
            task_id=w.meta.task_id,
            agent=w.meta.agent or caller.agent_id or caller.role,
            tags=_clean_tags(w.meta.tags),
            expires_at=w.meta.expiry,
            valid_at=w.meta.valid_at,
            invalid_at=w.meta.invalid_at,
            fields_set=NEW_MEMORY_FIELDS,
        )
        outcome = await self.writes.write(
            self._command(
                caller,
                scope_for(layer, w.scope),
                "layers_write",
                {"title": w.title, "content": w.content, "layer": layer},
                [spec],
            )
        )
        result = outcome.result
        if self._on_write is not None:
            await self._on_write(caller.tenant_id)
        return WriteOutcome(node=result.nodes[0], routing=routing)

    # --- read -----------------------------------------------------------------------------
    async def read(self, caller: Viewer, r: ReadInput) -> list[Hit]:
        layer = roles.check_layer(r.layer)
        roles.guard_workspace(caller.role, layer)
        mode = r.mode or self._infer_mode(layer, r)
        roles.check_read_mode(caller.role, layer, mode)
        limit = min(max(r.limit, 1), MAX_LIMIT)
        if mode == "id":
            if not r.id:
                raise InvalidRequest("mode 'id' needs id", code="invalid_request", details={"field": "id"})
            node = await self._get(caller, r.id, expect_layer=layer)
            if not matches(self.reader.current(), node):
                # a read takes the memories valid now, by id too (docs/api-layers.md); update and
                # delete still reach one whose interval has ended, to reopen or remove it
                raise NotFound(
                    f"memory {r.id!r} is not valid now", code="memory_not_found", details={"id": r.id, "layer": layer}
                )
            return [Hit(node, None, "id")]
        if mode == "task":
            task_id = r.task_id
            if not task_id:
                raise InvalidRequest("mode 'task' needs task_id", code="invalid_request", details={"field": "task_id"})
            return await self._read_task(caller, r, task_id, limit)
        if not r.query:
            raise InvalidRequest(f"mode {mode!r} needs a query", code="invalid_request", details={"field": "query"})
        ctx = RankContext(query=r.query, role=caller.role, task_id=r.task_id, agent=r.agent, tags=tuple(r.tags))
        cands = await self._candidates(
            caller, layer, r.scope, r.query, limit, semantic=mode == "semantic", keyword=layer == IDENTITY
        )
        return [Hit(c.node, c.similarity, mode, c.reasons) for c in rank(layer, cands, ctx)[:limit]]

    @staticmethod
    def _infer_mode(layer: str, r: ReadInput) -> str:
        if r.id:
            return "id"
        if layer == WORKSPACE:
            if r.task_id:
                return "task"
            raise InvalidRequest(
                "workspace reads are ID-specific and strict: give id or task_id (use /v1/layers/search for "
                "semantic search by system agents)",
                code="invalid_request",
                details={"field": "task_id"},
            )
        return "semantic"

    async def _read_task(self, caller: Viewer, r: ReadInput, task_id: str, limit: int) -> list[Hit]:
        found = await self.reader.find(
            caller,
            workspace_scope(r.scope),
            limit=TASK_SCAN_LIMIT,
            tiers=ANY_TIER,
            exclude_draft_topics=False,
            layers=(WORKSPACE,),
            task_id=task_id,
        )
        live = [n for n in found if is_layered(n)]
        sims: dict[str, float] = {}
        if r.query and live:
            qvec = await self.embedding.query_vector(r.query)
            vectors = await self.reader.embeddings(caller, live)
            sims = {nid: float(np.dot(v, qvec)) for nid, v in vectors.items() if len(v) == len(qvec)}
        ctx = RankContext(query=r.query, role=caller.role, task_id=task_id, agent=r.agent or caller.agent_id)
        cands = [Candidate(n, sims.get(n.id, 0.0)) for n in live]
        return [Hit(c.node, c.similarity if r.query else None, "task", c.reasons) for c in rank(WORKSPACE, cands, ctx)][
            :limit
        ]

    # --- search ---------------------------------------------------------------------------
    async def search(self, caller: Viewer, s: SearchInput) -> list[Hit]:
        if s.layer is not None:
            layers: tuple[str, ...] = (roles.check_layer(s.layer),)
            roles.guard_workspace(caller.role, layers[0])
        else:
            layers = LAYERS if caller.system else (IDENTITY, PROJECT)
        top_k = min(max(s.top_k, 1), MAX_LIMIT)
        hits: list[Hit] = []
        for layer in layers:
            ctx = RankContext(
                query=s.query, role=caller.role, task_id=s.task_id, agent=s.agent or caller.agent_id, tags=tuple(s.tags)
            )
            cands = await self._candidates(
                caller, layer, s.scope, s.query, top_k, semantic=True, keyword=True, when=s.when
            )
            hits += [Hit(c.node, c.similarity, "semantic", c.reasons) for c in rank(layer, cands, ctx)[:top_k]]
        if len(layers) > 1:
            hits.sort(key=lambda h: (-(h.score or 0.0), h.node.id))
        return hits[:top_k]

    async def _candidates(
        self,
        caller: Viewer,
        layer: str,
        scope: str,
        query: str,
        limit: int,
        *,
        semantic: bool,
        keyword: bool,
        when: ValidTime = CURRENT,
    ) -> list[Candidate]:
        sc = scope_for(layer, scope)
        attrs: dict[str, Any] = {"tiers": ANY_TIER, "exclude_draft_topics": False, "layers": (layer,)}
        k = min(limit * 4, 400)
        qvec = await self.embedding.query_vector(query)
        sims: dict[str, float] = {}
        if semantic:
            sims = {h.id: h.score for h in await self.reader.nearest(caller, sc, qvec, k, when, **attrs)}
        kw: set[str] = set()
        if keyword:
            kw = {h.id for h in await self.reader.keyword(caller, sc, query, k, when, **attrs)}
        ids = list(dict.fromkeys([*sims, *kw]))
        nodes = await self.reader.nodes(caller, sc, ids, when)
        if kw - set(sims):
            vectors = await self.reader.embeddings(caller, [n for n in nodes if n.id not in sims])
            sims.update({nid: float(np.dot(v, qvec)) for nid, v in vectors.items() if len(v) == len(qvec)})
        return [Candidate(n, sims.get(n.id, 0.0), n.id in kw) for n in nodes if is_layered(n) and n.layer == layer]

    # --- update ---------------------------------------------------------------------------
    async def update(self, caller: Viewer, u: UpdateInput) -> Node:
        node = await self._get(caller, u.id)
        layer = str(node.layer)
        roles.check_update(
            caller.role,
            layer,
            user_instruction=u.user_instruction,
            user_confirmed=u.user_confirmed,
            system_refinement=u.system_refinement,
        )
        fields = self._apply_changes(node, u, self.clock.now())
        spec = await self._update_spec(node, fields)
        refined = {"system_refinement": u.system_refinement, "user_confirmed": u.user_confirmed}
        outcome = await self.writes.write(
            self._command(
                caller, node.scope, "layers_update", {"id": node.id, "fields": sorted(fields), **refined}, [spec]
            )
        )
        if self._on_write is not None:
            await self._on_write(caller.tenant_id)
        return outcome.result.nodes[0]

    def _apply_changes(self, node: Node, u: UpdateInput, now: datetime) -> set[str]:
        """Apply the update to ``node`` (a copy read for this update); the fields it changed.
        An update that changes nothing is a 400."""
        fields: set[str] = set()
        if u.new_title is not None:
            node.title = u.new_title
            fields.add("title")
        if u.new_content is not None:
            node.text_summary = u.new_content
            fields.add("text_summary")
        if u.new_meta is not None:
            fields |= self._apply_meta(node, u.new_meta, now)
        if not fields:
            raise InvalidRequest(
                "nothing to update: give new_title, new_content or new_metadata",
                code="invalid_request",
                details={"field": "new_content"},
            )
        return fields

    def _apply_meta(self, node: Node, meta: MemoryMeta, now: datetime) -> set[str]:
        """The metadata fields the update gives, applied to ``node``; the fields changed."""
        fields: set[str] = set()
        for name in ("agent", "task_id"):
            if name in meta.given:
                setattr(node, name, getattr(meta, name))
                fields.add(name)
        if "tags" in meta.given:
            node.tags = _clean_tags(meta.tags)
            fields.add("tags")
        if "expiry" in meta.given:
            self._check_expiry(meta.expiry, now)
            node.expires_at = meta.expiry
            fields.add("expires_at")
        for name in ("valid_at", "invalid_at"):
            if name in meta.given:
                setattr(node, name, getattr(meta, name))
                fields.add(name)
        if "user_visible" in meta.given and meta.user_visible is not None:
            node.slots = {**node.slots, "user_visible": meta.user_visible}
            fields.add("slots")
        return fields

    async def _update_spec(self, node: Node, fields: set[str]) -> WriteNodeSpec:
        """The write of an updated node: the changed fields, and a new vector when its text changed."""
        spec = WriteNodeSpec(
            type=node.type,
            id=node.id,
            title=node.title,
            text_summary=node.text_summary,
            slots=node.slots,
            agent=node.agent,
            task_id=node.task_id,
            tags=node.tags,
            expires_at=node.expires_at,
            valid_at=node.valid_at,
            invalid_at=node.invalid_at,
            fields_set=frozenset({"type", *fields}),
        )
        if fields & {"title", "text_summary"}:
            vector = await self.embedding.query_vector(memory_text(node.title, node.text_summary))
            spec.embedding = [float(x) for x in vector]
            spec.embedding_model = self.embedding.embedder.model_id
        return spec

    # --- delete ---------------------------------------------------------------------------
    async def delete(self, caller: Viewer, memory_id: str, *, user_instruction: bool) -> None:
        node = await self._get(caller, memory_id)
        roles.check_delete(caller.role, str(node.layer), user_instruction=user_instruction)
        await self.writes.delete(
            caller.tenant_id, node.scope, [node.id], self._commit(caller, "layers_delete", {"id": node.id})
        )

    async def complete_task(self, caller: Viewer, task_id: str) -> int:
        """Marking a task complete deletes its workspace memories, in every scope: all of them,
        including those whose interval has ended or that have expired but are not swept yet."""
        roles.guard_workspace(caller.role, WORKSPACE)
        deleted = 0
        while True:
            found = await self.reader.find(
                caller,
                None,
                limit=500,
                tiers=ANY_TIER,
                exclude_draft_topics=False,
                layers=(WORKSPACE,),
                task_id=task_id,
                when=HISTORY,
            )
            if not found:
                return deleted
            gone = await self.writes.delete(
                caller.tenant_id,
                None,
                [n.id for n in found],
                self._commit(caller, "task_complete", {"task_id": task_id}),
            )
            deleted += len(gone)
            if not gone:
                return deleted

    async def embeddings_of(self, caller: Viewer, nodes: list[Node]) -> dict[str, Vector]:
        return await self.reader.embeddings(caller, nodes)

    # --- helpers --------------------------------------------------------------------------
    async def _get(self, caller: Viewer, memory_id: str, *, expect_layer: str | None = None) -> Node:
        """A layered memory the caller may see, not expired (the reader leaves those out). A workspace one answers
        ``workspace_restricted`` to the user agent (the layered spec's answer to an attempted
        leak); anything else it may not see, or that does not exist, is ``memory_not_found``."""
        found = await self.reader.lookup(caller, None, to_node_id(memory_id))
        if found.hidden_layer is not None:
            roles.guard_workspace(caller.role, found.hidden_layer)
        node = found.node
        if node is None or not is_layered(node):
            raise NotFound(f"memory {memory_id!r} not found", code="memory_not_found", details={"id": memory_id})
        if expect_layer is not None and node.layer != expect_layer:
            raise NotFound(
                f"memory {memory_id!r} not found in the {expect_layer} layer",
                code="memory_not_found",
                details={"id": memory_id, "layer": expect_layer},
            )
        return node

    @staticmethod
    def _check_expiry(expiry: datetime | None, now: datetime) -> None:
        if expiry is not None and expiry <= now:
            raise InvalidRequest(
                "metadata.expiry must be in the future", code="invalid_request", details={"field": "metadata.expiry"}
            )

    def _command(
        self, caller: Viewer, scope: str, kind: str, payload: dict[str, Any], nodes: list[WriteNodeSpec]
    ) -> WriteCommand:
        info = self._commit(caller, kind, payload)
        return WriteCommand(
            tenant_id=caller.tenant_id,
            scope=scope,
            input_sha256=info.input_sha256,
            actor=info.actor,
            kind=kind,
            nodes=nodes,
            auto_embed=False,
            viewer=caller,
        )

    @staticmethod
    def _commit(caller: Viewer, kind: str, payload: dict[str, Any]) -> CommitInfo:
        return CommitInfo(
            actor=f"{caller.role}:{caller.agent_id}" if caller.agent_id else caller.role,
            input_sha256=sha256_hex(canonical_json(payload)),
            kind=kind,
        )


def memory_text(title: str | None, content: str | None) -> str:
    """The same text the store indexes (``Node.text``), so stored vectors match re-embedding."""
    return "\n".join(p for p in (title, content) if p)


def _clean_tags(tags: list[str] | None) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in (tags or []) if t and t.strip()))
