"""What each page shows, read as the caller: every node through ``MemoryReader`` with the
caller's ``Viewer``, so the browser never shows what the API would not."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memlane.domain.model import Commit, Edge, Node
from memlane.domain.validity import HISTORY
from memlane.domain.visibility import Viewer
from memlane.rules.promotion import PromotionCheck, check_promotion
from memlane.services.container import Services
from memlane.services.layers.roles import LAYERS
from memlane.services.layers.service import is_layered
from memlane.services.recall import RecallParams
from memlane.services.tools.memory import KIND as TOOL_KIND
from memlane.services.tools.memory import KNOWLEDGE_KIND
from memlane.services.tools.schemas import MEMORY_LAYERS

#: scopes listed (and counted) per page of the scope list; "More scopes" loads the next page
SCOPES_PAGE = 20
#: the memories of a scope counted, at most (the count then reads "1000+")
COUNT_CAP = 1000
SCAN_PAGE = 500
HISTORY_SCAN = 500


@dataclass(slots=True)
class ScopeCounts:
    scope: str
    total: int
    by_type: dict[str, int]
    by_tier: dict[str, int]
    capped: bool


@dataclass(slots=True)
class ScopePage:
    """One page of the scope list: the scopes among ``SCOPES_PAGE`` names (from ``offset``)
    that hold memory the caller may see, and where the next page starts (None: the last)."""

    scopes: list[ScopeCounts]
    offset: int
    next_offset: int | None


async def scope_counts(svc: Services, viewer: Viewer, *, offset: int = 0) -> ScopePage:
    """A page of the tenant's scopes with their counts: at most ``SCOPES_PAGE`` scopes, each
    counted up to ``COUNT_CAP`` memories, so a request's work is bounded whatever the tenant
    holds (all 3,000 scopes of a tenant, counted to 5,000 each, took 13.5 s: issue 26). The
    next page is named by its place, not by the last scope read, which the caller may not see."""
    names = await svc.store.list_scopes(viewer.tenant_id, limit=SCOPES_PAGE + 1, offset=offset)
    more = len(names) > SCOPES_PAGE
    out: list[ScopeCounts] = []
    for _, scope in names[:SCOPES_PAGE]:
        types: Counter[str] = Counter()
        tiers: Counter[str] = Counter()
        after: str | None = None
        seen = 0
        while seen < COUNT_CAP:
            page, after = await svc.reader.scan(viewer, scope, after_id=after, limit=min(SCAN_PAGE, COUNT_CAP - seen))
            if after is None:
                break
            seen += SCAN_PAGE
            for n in page:
                types[n.type] += 1
                tiers[n.tier] += 1
        total = sum(types.values())
        if total:
            out.append(ScopeCounts(scope, total, dict(types.most_common()), dict(tiers), after is not None))
    return ScopePage(out, offset, offset + SCOPES_PAGE if more else None)


@dataclass(slots=True)
class SearchHit:
    node: Node
    similarity: float
    signals: dict[str, float]


async def search(svc: Services, viewer: Viewer, scope: str, text: str, *, limit: int = 10) -> list[SearchHit]:
    """``recall_text`` as the API runs it, with each seed's ranking signals."""
    vector = await svc.embedding.query_vector(text)
    out = await svc.recall.recall(
        vector,
        RecallParams(viewer=viewer, scope=scope, limit=limit, query_text=text, endpoint="ui_search", explain=True),
    )
    hits = [SearchHit(n, sim, out.signals.get(n.id, {})) for n, sim in out.seeds]
    return sorted(hits, key=lambda h: -h.signals.get("score", 0.0))


@dataclass(slots=True)
class GraphNode:
    id: str
    label: str
    x: float
    y: float
    centre: bool


@dataclass(slots=True)
class GraphLine:
    x1: float
    y1: float
    x2: float
    y2: float
    label: str


@dataclass(slots=True)
class MemoryPage:
    node: Node
    edges: list[Edge]
    neighbours: dict[str, Node]
    commits: list[Commit]
    #: a conversation note and the newer notes it evolved into (``next_id``), oldest first
    evolution: list[Node] = field(default_factory=list)
    graph_nodes: list[GraphNode] = field(default_factory=list)
    graph_lines: list[GraphLine] = field(default_factory=list)


def layout(
    centre: Node, neighbours: list[Node], edges: list[Edge], size: int = 360
) -> tuple[list[GraphNode], list[GraphLine]]:
    """The node in the middle, its neighbours on a circle: small enough to read, no script."""
    mid = size / 2
    radius = size / 2 - 50
    pos = {centre.id: (mid, mid)}
    nodes = [GraphNode(centre.id, _short(centre), mid, mid, True)]
    for i, n in enumerate(neighbours):
        angle = 2 * math.pi * i / max(len(neighbours), 1) - math.pi / 2
        x, y = mid + radius * math.cos(angle), mid + radius * math.sin(angle)
        pos[n.id] = (x, y)
        nodes.append(GraphNode(n.id, _short(n), x, y, False))
    lines = [GraphLine(*pos[e.src_id], *pos[e.dst_id], e.type) for e in edges if e.src_id in pos and e.dst_id in pos]
    return nodes, lines


def _short(n: Node) -> str:
    text = n.title or n.text_summary or n.id
    return text if len(text) <= 24 else text[:23] + "…"


async def memory_page(svc: Services, viewer: Viewer, scope: str, node_id: str) -> MemoryPage | None:
    node = await svc.reader.node(viewer, scope, node_id)
    if node is None:
        return None
    edges = await svc.reader.edges(viewer, node.scope, [node])
    ids = list(dict.fromkeys(i for e in edges for i in (e.src_id, e.dst_id) if i != node.id))
    neighbours = {n.id: n for n in await svc.reader.nodes(viewer, node.scope, ids)}
    edges = [
        e
        for e in edges
        if (e.src_id in neighbours or e.src_id == node.id) and (e.dst_id in neighbours or e.dst_id == node.id)
    ]
    page = MemoryPage(node, edges, neighbours, await history(svc, viewer, node))
    if is_note(node):
        page.evolution = (await svc.conversation.memories.evolution(viewer, node.scope, node.id)).nodes
    page.graph_nodes, page.graph_lines = layout(node, list(neighbours.values()), edges)
    return page


async def history(svc: Services, viewer: Viewer, node: Node) -> list[Commit]:
    """The scope's recent commits whose diff names the node, newest first."""
    commits = await svc.store.list_commits(viewer.tenant_id, node.scope, limit=HISTORY_SCAN)
    return [c for c in commits if _mentions(c.diff, node.id)]


def _mentions(diff: Any, node_id: str) -> bool:
    if isinstance(diff, dict):
        return any(_mentions(v, node_id) for v in diff.values())
    if isinstance(diff, list):
        return any(_mentions(v, node_id) for v in diff)
    return bool(diff == node_id)


#: the layered surface's layers, then the agent tools' (docs/api-layers.md, docs/api-tools.md)
LAYER_ORDER: tuple[str, ...] = tuple(dict.fromkeys((*LAYERS, *MEMORY_LAYERS)))
PER_LAYER = 50


async def by_layer(svc: Services, viewer: Viewer, scope: str | None) -> list[tuple[str, list[Node]]]:
    """Layered and tool memories the caller may see, newest first, per layer (every tier)."""
    out: list[tuple[str, list[Node]]] = []
    for layer in LAYER_ORDER:
        found = await svc.reader.find(viewer, scope, limit=PER_LAYER, tiers=(), layers=(layer,))
        if found:
            out.append((layer, found))
    return out


def is_note(node: Node) -> bool:
    return node.slots.get("memory_kind") in ("conversation_note", "agent_note")


def kind_of(node: Node) -> str:
    """Which surface owns a memory, so its page offers that surface's actions: ``note``
    (conversation), ``layered``, ``tool``, ``knowledge`` (a knowledge item's synced copy) or
    ``graph``."""
    if is_note(node):
        return "note"
    if is_layered(node):
        return "layered"
    kind = node.slots.get("kind")
    if kind == TOOL_KIND:
        return "tool"
    if kind == KNOWLEDGE_KIND:
        return "knowledge"
    return "graph"


#: rules listed per scope, newest first
RULES_LIMIT = 500


async def rules(svc: Services, viewer: Viewer, scope: str | None) -> list[tuple[Node, PromotionCheck]]:
    """The rules the caller may see (every tier and status), each with the promotion check
    ``memlane rules suggest`` makes (read-only)."""
    found = await svc.reader.find(
        viewer, scope, limit=RULES_LIMIT, tiers=(), exclude_draft_topics=False, types=("rule",)
    )
    return [(n, check_promotion(n)) for n in found]


def queue(job_counts: dict[tuple[str, str], int]) -> list[tuple[str, dict[str, int]]]:
    by_kind: dict[str, dict[str, int]] = {}
    for (kind, state), n in sorted(job_counts.items()):
        by_kind.setdefault(kind, {})[state] = n
    return sorted(by_kind.items())


#: notes read per scope (newest first) to draw their chains
NOTES_LIMIT = 500


async def note_chains(svc: Services, viewer: Viewer, scope: str) -> list[list[Node]]:
    """The scope's conversation notes the caller may see, as evolution chains (``next_id``
    links, oldest first), the chain with the newest note first. Superseded and expired notes
    are read too (every tier, every interval): they are the chains' history."""
    found = await svc.reader.find(viewer, scope, limit=NOTES_LIMIT, tiers=(), when=HISTORY)
    notes = {n.id: n for n in found if is_note(n)}
    pointed = {str(n.slots.get("next_id")) for n in notes.values() if n.slots.get("next_id")}
    chains: list[list[Node]] = []
    for head in (n for n in notes.values() if n.id not in pointed):
        chain, seen = [head], {head.id}
        while (nxt := chain[-1].slots.get("next_id")) in notes and nxt not in seen:
            seen.add(str(nxt))
            chain.append(notes[str(nxt)])
        chains.append(chain)
    newest = {id(c): max((n.created_at for n in c if n.created_at), default=None) for c in chains}
    return sorted(chains, key=lambda c: str(newest[id(c)] or ""), reverse=True)
