"""memory_add / memory_search / memory_delete over the seven tool layers.

A tool memory is a node (type ``concept``, ``slots.kind = "tool_memory"``) in the default
scope with ``layer`` set and its identifiers bound: agent -> the agent's private lane (and
``agent``), team -> the team's private lane (and ``slots.team_id``), user -> ``user_id``,
session -> ``session_id`` (and ``user_id`` when known), project / org -> ``slots.project_id`` /
``slots.org_id``, company -> the tenant. Who may see which is the one visibility rule
(domain/visibility.py): lanes hide agent and team memories from other agents and teams on
every surface, and user and session memories are personal. agent, user, session and team
memories need their identifier; project and org memories without one are tenant-wide (as are
synced knowledge items, which memory_search also finds); project and org are labels that
narrow a search, not access boundaries.

Ranking: ``score`` is the calibrated relevance (services/ranking/calibration.py, what
``threshold`` compares; the raw cosine is ``similarity``), each memory judged against the other
memories the search looked among; equal scores (to 3 decimals) follow layer precedence
agent > session > user > project > team > org > company, and when the same content is stored
in several layers only the most specific one is returned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from memlane.domain.clock import Clock, iso, parse_instant
from memlane.domain.errors import Forbidden, InvalidRequest, NotFound
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.inputs import MAX_TAG_LENGTH, JsonLimits, check_name, is_id
from memlane.domain.model import CommitInfo, Node
from memlane.domain.validity import ValidTime
from memlane.services.embedding import EmbeddingService
from memlane.services.layers.ids import to_node_id, to_public
from memlane.services.ranking.calibration import DEFAULT_CUT, Background
from memlane.services.ranking.succession import current_first, said
from memlane.services.reading import MemoryReader
from memlane.services.tools.context import ToolContext
from memlane.services.tools.results import MemoryAdded, MemoryDeleted, MemoryFound, MemoryHit, SkippedLayer
from memlane.services.writing import WriteCommand, WriteNodeSpec, WriteService
from memlane.store.base import Vector

KIND = "tool_memory"
KNOWLEDGE_KIND = "knowledge_item"
PRECEDENCE: tuple[str, ...] = ("agent", "session", "user", "project", "team", "org", "company")
NEEDS: dict[str, tuple[str, str]] = {
    "agent": ("agent_id", "X-Agent-Id header (or credentials bound to an agent)"),
    "user": ("user_id", "X-User-Id header"),
    "session": ("session_id", "X-Session-Id header"),
    "team": ("team_id", "X-Team-Id header (or credentials bound to a team)"),
}
MAX_CONTENT = 100_000
#: tags of one memory (as on the layered surface)
MAX_TAGS = 50
FIELDS = frozenset(
    {"type", "tier", "text_summary", "slots", "memory_lane", "producer_agent_id", "owner_agent_id", "owner_team_id",
     "salience", "importance", "confidence", "status", "layer", "user_id", "session_id", "agent", "tags", "expires_at",
     "valid_at", "invalid_at"}
)  # fmt: skip


def _tags(raw: list[str]) -> list[str]:
    """Distinct, stripped, non-empty tags: at most ``MAX_TAGS`` names of at most 128 characters."""
    tags = list(dict.fromkeys(t.strip() for t in raw if t.strip()))
    if len(tags) > MAX_TAGS:
        raise InvalidRequest(f"tags: at most {MAX_TAGS} tags", code="INVALID_INPUT", details={"field": "tags"})
    for i, tag in enumerate(tags):
        try:
            check_name(tag)
            if len(tag) > MAX_TAG_LENGTH:
                raise ValueError(f"must be at most {MAX_TAG_LENGTH} characters")
        except ValueError as exc:
            raise InvalidRequest(f"tags[{i}]: {exc}", code="INVALID_INPUT", details={"field": f"tags[{i}]"}) from None
    return tags


def _missing(ctx: ToolContext, layer: str) -> str | None:
    """How the caller can name the identifier a layer needs, or None when it is known. With
    auth on only the credentials name it (a header would be ``identity_mismatch``)."""
    need = NEEDS.get(layer)
    if need is None or getattr(ctx, need[0]):
        return None
    if ctx.viewer.authenticated and layer != "session":
        return f"credentials (API key or JWT) issued for a {layer} ({need[0]})"
    return need[1]


def addressed(n: Node, ctx: ToolContext) -> bool:
    """Whether a memory the caller may see (the reader decided that) is one of the caller's
    own identifiers' memories: an agent search returns this agent's memories, a team search
    this team's, a project or org search that project's or org's (and the unlabelled ones)."""
    layer = n.layer
    slots = n.slots
    if layer == "agent":
        return n.agent is not None and n.agent == ctx.agent_id
    if layer == "user":
        return n.user_id is not None and n.user_id == ctx.user_id
    if layer == "session":
        return n.session_id is not None and n.session_id == ctx.session_id
    if layer == "team":
        return slots.get("team_id") is not None and slots.get("team_id") == ctx.team_id
    if layer == "project":
        return slots.get("project_id") in (None, ctx.project_id)
    if layer == "org":
        return slots.get("org_id") in (None, ctx.org_id)
    return layer == "company"


class MemoryTools:
    def __init__(
        self,
        *,
        reader: MemoryReader,
        writes: WriteService,
        embedding: EmbeddingService,
        clock: Clock,
        scope: str,
        on_write: Callable[[str], Awaitable[None]] | None = None,
        json_limits: JsonLimits | None = None,
    ):
        #: the stored ``slots`` (``metadata`` and the labels around it) stay within these
        self.json_limits = json_limits or JsonLimits()
        self.reader = reader
        self.writes = writes
        self.embedding = embedding
        self.clock = clock
        self.scope = scope
        self._on_write = on_write

    async def add(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryAdded:
        content = _checked_content(args)
        layer = _checked_layer(ctx, args)
        metadata = dict(args.get("metadata") or {})
        expires_at = self._expiry(metadata)
        tags = _tags(args.get("tags") or [])
        slots = self._slots(ctx, layer, metadata)
        interval = _checked_interval(args)
        vector = await self.embedding.query_vector(content)
        spec = WriteNodeSpec(
            type="concept",
            text_summary=content,
            slots=slots,
            memory_lane="private" if layer in ("agent", "team") else "shared",
            producer_agent_id=ctx.agent_id,
            owner_agent_id=ctx.agent_id if layer == "agent" else None,
            owner_team_id=ctx.team_id if layer == "team" else None,
            embedding=[float(x) for x in vector],
            embedding_model=self.embedding.embedder.model_id,
            layer=layer,
            user_id=ctx.user_id if layer in ("user", "session") else None,
            session_id=ctx.session_id if layer == "session" else None,
            agent=ctx.agent_id if layer == "agent" else None,
            tags=tags,
            expires_at=expires_at,
            valid_at=interval[0],
            invalid_at=interval[1],
            fields_set=FIELDS,
        )
        outcome = await self.writes.write(
            WriteCommand(
                tenant_id=ctx.tenant_id,
                scope=self.scope,
                input_sha256=sha256_hex(canonical_json({"content": content, "layer": layer})),
                actor=ctx.actor,
                kind="memory_add",
                nodes=[spec],
                auto_embed=False,
                viewer=ctx.viewer,
            )
        )
        if self._on_write is not None:
            await self._on_write(ctx.tenant_id)
        memory_id = to_public(outcome.result.nodes[0].id)
        return {"success": True, "memoryId": memory_id, "message": "Memory stored successfully"}

    def _slots(self, ctx: ToolContext, layer: str, metadata: dict[str, Any]) -> dict[str, Any]:
        """The memory's slots: its metadata and the label (project, team, org) of its layer,
        within the stored-JSON limits."""
        slots: dict[str, Any] = {"kind": KIND, "metadata": metadata}
        for key in ("project_id", "team_id", "org_id"):
            value = getattr(ctx, key)
            if value and layer == key.removesuffix("_id"):
                slots[key] = value
        problem = self.json_limits.problem(slots)
        if problem is not None:
            raise InvalidRequest(
                f"metadata: stored with the memory's labels, it {problem}",
                code="INVALID_INPUT",
                details={"field": "metadata"},
            )
        return slots

    def _expiry(self, metadata: dict[str, Any]) -> datetime | None:
        raw = metadata.get("expiresAt")
        if raw is None:
            return None
        try:
            ts = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
        except ValueError:
            raise InvalidRequest(
                "metadata.expiresAt must be an ISO-8601 timestamp",
                code="INVALID_INPUT",
                details={"field": "metadata.expiresAt"},
            ) from None
        if ts.tzinfo is None:
            raise InvalidRequest(
                "metadata.expiresAt needs a timezone (e.g. a trailing Z)",
                code="INVALID_INPUT",
                details={"field": "metadata.expiresAt"},
            )
        if ts <= self.clock.now():
            raise InvalidRequest(
                "metadata.expiresAt must be in the future",
                code="INVALID_INPUT",
                details={"field": "metadata.expiresAt"},
            )
        return ts

    async def search(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryFound:
        query = str(args["query"]).strip()
        if not query:
            raise InvalidRequest("query must not be empty", code="INVALID_INPUT", details={"field": "query"})
        limit = int(args.get("limit", 10))
        threshold = float(args.get("threshold", DEFAULT_CUT))
        wanted_tags = _wanted_tags(args)
        requested = list(dict.fromkeys(args.get("layers") or PRECEDENCE))
        searched = [layer for layer in PRECEDENCE if layer in requested and _missing(ctx, layer) is None]
        skipped: list[SkippedLayer] = [
            {"layer": layer, "reason": f"no {layer} identifier: send the {_missing(ctx, layer)}"}
            for layer in PRECEDENCE
            if layer in requested and layer not in searched
        ]
        when = _checked_when(args).pinned(self.clock.now())
        qvec = await self.embedding.query_vector(query)
        candidates, whole = await self._candidates(ctx, qvec, searched, when, k=min(max(limit * 5, 50), 500))
        candidates = [
            (n, cos) for n, cos in candidates if not wanted_tags or wanted_tags <= {t.lower() for t in n.tags}
        ]
        unique = _distinct(self._relevant(candidates, whole, threshold, query))
        out: MemoryFound = {
            "success": True,
            "results": [_result(n, s, cos) for n, s, cos in unique[:limit]],
            "totalCount": len(unique),
            "searchedLayers": searched,
        }
        if skipped:
            out["skippedLayers"] = skipped
        return out

    async def _candidates(
        self, ctx: ToolContext, qvec: Vector, searched: list[str], when: ValidTime, *, k: int
    ) -> tuple[list[tuple[Node, float]], bool]:
        """The nearest memories of each searched layer the caller is addressed by, with their
        cosine; and whether the search saw every memory of those layers (no layer hit ``k``)."""
        candidates: list[tuple[Node, float]] = []
        whole = True
        for layer in searched:
            hits = await self.reader.nearest(
                ctx.viewer,
                self.scope,
                qvec,
                k,
                when,
                tiers=(),
                exclude_draft_topics=False,
                statuses=("active",),
                layers=(layer,),
                user_id=ctx.user_id if layer in ("user",) else None,
                session_id=ctx.session_id if layer == "session" else None,
            )
            whole = whole and len(hits) < k
            scores = {h.id: h.score for h in hits}
            for n in await self.reader.nodes(ctx.viewer, self.scope, list(scores), when):
                if n.slots.get("kind") in (KIND, KNOWLEDGE_KIND) and n.layer == layer and addressed(n, ctx):
                    candidates.append((n, scores[n.id]))
        return candidates, whole

    def _relevant(
        self, candidates: list[tuple[Node, float]], whole: bool, threshold: float, query: str
    ) -> list[tuple[Node, float, float]]:
        """(memory, relevance, cosine) at or above ``threshold``, best first, equal scores in
        layer precedence. Every candidate is judged against the others (the background of the
        query): what stands out of one person's many facts passes, what merely shares their
        subject does not."""
        background = Background.of((cos for _, cos in candidates), whole=whole)
        found: list[tuple[Node, float, float]] = []
        for n, cos in candidates:
            score = self.embedding.relevance(cos, background)
            if score >= threshold:
                found.append((n, score, cos))
        found.sort(key=lambda t: (-round(t[1], 3), PRECEDENCE.index(str(t[0].layer)), t[0].id))
        # of two memories that answer alike and disagree, the later one first (ranking/succession.py)
        by_id = {t[0].id: t for t in found}
        return [by_id[i] for i in current_first([said(n, cos, _content(n)) for n, _, cos in found], query)]

    async def delete(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryDeleted:
        memory_id = str(args["memoryId"])
        if not is_id(memory_id):
            raise InvalidRequest(
                "memoryId: must be a memory id (letters, digits, '.', '_', ':' or '-', at most 256)",
                code="INVALID_INPUT",
                details={"field": "memoryId"},
            )
        node = await self.reader.node(ctx.viewer, None, to_node_id(memory_id))
        if node is not None and node.slots.get("kind") == KNOWLEDGE_KIND:
            raise Forbidden(
                f"memory {memory_id!r} is synced from knowledge item {node.slots.get('knowledge_id')!r}; change or "
                "deprecate the knowledge item and run sync_now instead",
                code="UNAUTHORIZED",
                details={"memoryId": memory_id, "knowledgeItemId": node.slots.get("knowledge_id")},
            )
        if node is None or node.slots.get("kind") != KIND or not addressed(node, ctx):
            raise NotFound(f"Memory {memory_id!r} not found", code="NOT_FOUND", details={"requestedId": memory_id})
        info = CommitInfo(
            actor=ctx.actor, input_sha256=sha256_hex(canonical_json({"delete": node.id})), kind="memory_delete"
        )
        await self.writes.delete(ctx.tenant_id, node.scope, [node.id], info)
        return {
            "success": True,
            "message": f"Memory {to_public(node.id)} deleted ({node.layer} layer, stored {iso(node.created_at)})",
        }


def _checked_content(args: dict[str, Any]) -> str:
    content = str(args["content"]).strip()
    if not content:
        raise InvalidRequest("content must not be empty", code="INVALID_INPUT", details={"field": "content"})
    if len(content) > MAX_CONTENT:
        raise InvalidRequest(
            f"content is {len(content)} characters; the limit is {MAX_CONTENT}",
            code="INVALID_INPUT",
            details={"field": "content"},
        )
    return content


def _checked_layer(ctx: ToolContext, args: dict[str, Any]) -> str:
    """The layer (default ``user``), once the caller names the identifier it needs."""
    layer = str(args.get("layer") or "user")
    missing = _missing(ctx, layer)
    if missing:
        raise InvalidRequest(
            f"a {layer!r} memory needs to know which {layer}: send the {missing}",
            code="INVALID_INPUT",
            details={"field": "layer", "layer": layer, "needs": missing},
        )
    return layer


def _checked_interval(args: dict[str, Any]) -> tuple[datetime | None, datetime | None]:
    valid_at, invalid_at = _instant(args, "validAt"), _instant(args, "invalidAt")
    if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
        raise InvalidRequest("invalidAt must be after validAt", code="INVALID_INPUT", details={"field": "invalidAt"})
    return valid_at, invalid_at


def _checked_when(args: dict[str, Any]) -> ValidTime:
    as_of, include_invalid = _instant(args, "asOf"), bool(args.get("includeInvalid", False))
    if as_of is not None and include_invalid:
        raise InvalidRequest(
            "give asOf or includeInvalid, not both: includeInvalid returns every interval",
            code="INVALID_INPUT",
            details={"field": "includeInvalid"},
        )
    return ValidTime(as_of=as_of, include_invalid=include_invalid)


def _distinct(found: list[tuple[Node, float, float]]) -> list[tuple[Node, float, float]]:
    """The first (most relevant, most specific) of each content stored in several layers."""
    seen: set[str] = set()
    unique: list[tuple[Node, float, float]] = []
    for n, s, cos in found:
        key = " ".join(_content(n).lower().split())
        if key not in seen:
            seen.add(key)
            unique.append((n, s, cos))
    return unique


def _result(n: Node, score: float, cos: float) -> MemoryHit:
    hit: MemoryHit = {
        "content": _content(n),
        "layer": n.layer,
        "score": round(score, 4),
        "similarity": round(cos, 4),
        "memoryId": to_public(n.id),
        "tags": list(n.tags),
    }
    if n.valid_at is not None or n.invalid_at is not None:
        # a memory with an interval says when it was true; others keep the spec's shape
        hit["validAt"] = iso(n.valid_at)
        hit["invalidAt"] = iso(n.invalid_at)
    if n.expires_at is not None:
        # a history read shows expired memories too, their ``expiresAt`` in the past
        hit["expiresAt"] = iso(n.expires_at)
    return hit


def _instant(args: dict[str, Any], name: str) -> datetime | None:
    raw = args.get(name)
    if raw is None:
        return None
    try:
        return parse_instant(str(raw))
    except ValueError:
        raise InvalidRequest(
            f"{name} must be an ISO-8601 timestamp", code="INVALID_INPUT", details={"field": name}
        ) from None


def _wanted_tags(args: dict[str, Any]) -> set[str]:
    """The flat ``tags`` argument (the schema's) and ``filter.tags`` (the spec's advanced
    example) together: a result must carry every tag named in either."""
    flt = args.get("filter") or {}
    return {t.lower() for t in [*(args.get("tags") or []), *(flt.get("tags") or [])]}


def _content(n: Node) -> str:
    if n.slots.get("kind") == KNOWLEDGE_KIND and n.title:
        return f"{n.title}: {n.text_summary}" if n.text_summary else n.title
    return n.text_summary or n.title or ""
