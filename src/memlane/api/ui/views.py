"""What each page shows, read as the caller: every node through ``MemoryReader`` with the
caller's ``Viewer``, so the browser never shows what the API would not."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlane.domain.model import Commit, Edge, Node
from memlane.domain.validity import CURRENT, HISTORY, ValidTime, is_expired
from memlane.domain.visibility import Viewer
from memlane.rules.promotion import PromotionCheck, check_promotion
from memlane.services.container import Services
from memlane.services.layers.roles import LAYERS
from memlane.services.layers.service import is_layered
from memlane.services.ranking.calibration import DEFAULT_CUT
from memlane.services.ranking.query_text import keyword_query, words
from memlane.services.recall.model import RecallParams
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
    #: the calibrated relevance (services/ranking/calibration.py), what the cut-off compares
    relevance: float
    signals: dict[str, float]
    #: the keyword (BM25) score as a share of the best one among the results, 0..1
    keyword_share: float
    #: the query's words this memory contains (what the keyword score matched)
    matched_words: list[str]


@dataclass(slots=True)
class SearchResults:
    hits: list[SearchHit]
    #: the cut-off: only memories with at least this relevance are shown
    cut: float
    #: how many the search found before the cut-off
    found: int


def _stem(word: str) -> str:
    """A light stemmer, so "lives" shows as matching "live" (the keyword index stems too)."""
    for suffix in ("ing", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def matched_words(query: str, node: Node) -> list[str]:
    """The query's content words found in the memory's text, in the query's order."""
    text = {_stem(w) for w in words(f"{node.title or ''} {node.text_summary or ''}")}
    wanted = (keyword_query(query) or "").split()
    return [w for w in wanted if _stem(w) in text]


async def search(
    svc: Services, viewer: Viewer, scope: str, text: str, *, cut: float = DEFAULT_CUT, limit: int = 10
) -> SearchResults:
    """``recall_text`` as the API runs it (``GraphRecallService.by_text``, without a rules block),
    with each seed's ranking signals; only the seeds whose relevance reaches ``cut`` are kept
    (the threshold ``memory_search`` applies by default)."""
    params = RecallParams(viewer=viewer, scope=scope, limit=limit, query_text=text, endpoint="ui_search", explain=True)
    out = (await svc.graph_recall.by_text(text, params, None)).recall
    best_keyword = max((out.signals.get(s.node.id, {}).get("keyword", 0.0) for s in out.seeds), default=0.0)
    hits = []
    for seed in out.seeds:
        n = seed.node
        signals = out.signals.get(n.id, {})
        keyword = signals.get("keyword", 0.0)
        share = keyword / best_keyword if best_keyword > 0 else 0.0
        hits.append(SearchHit(n, seed.similarity, out.seed_relevance[n.id], signals, share, matched_words(text, n)))
    shown = [h for h in hits if h.relevance >= cut]
    return SearchResults(sorted(shown, key=lambda h: -h.signals.get("score", 0.0)), cut, len(hits))


@dataclass(slots=True)
class GraphNode:
    id: str
    label: str
    x: float
    y: float
    #: 0: the memory itself, 1: a neighbour, 2: a neighbour's neighbour
    hop: int


@dataclass(slots=True)
class GraphLine:
    x1: float
    y1: float
    x2: float
    y2: float
    label: str


#: the neighbourhood drawn on a memory's page: its strongest neighbours, theirs, and the edges
#: read to find them, at most; so a hub costs no more to show than any other memory
HOP1_MAX = 12
HOP2_MAX = 24
HOP2_EDGES = 200
GRAPH_SIZE = 560


@dataclass(slots=True)
class SecondHop:
    node: Node
    #: the neighbour it is reached through
    via: Node


@dataclass(slots=True)
class MemoryPage:
    node: Node
    edges: list[Edge]
    neighbours: dict[str, Node]
    commits: list[Commit]
    #: a conversation note and the newer notes it evolved into (``next_id``), oldest first
    evolution: list[Node] = field(default_factory=list)
    second_hop: list[SecondHop] = field(default_factory=list)
    #: whether a bound cut the neighbourhood short (more neighbours or edges than drawn)
    truncated: bool = False
    graph_nodes: list[GraphNode] = field(default_factory=list)
    graph_lines: list[GraphLine] = field(default_factory=list)


def layout(
    centre: Node, hop1: list[Node], hop2: list[SecondHop], edges: list[Edge], size: int = GRAPH_SIZE
) -> tuple[list[GraphNode], list[GraphLine]]:
    """The node in the middle, its neighbours on an inner circle and theirs on an outer one,
    each next to the neighbour it is reached through: drawn on the server, no script."""
    mid = size / 2
    inner, outer = size / 2 - 170, size / 2 - 45
    pos = {centre.id: (mid, mid)}
    nodes = [GraphNode(centre.id, _short(centre), mid, mid, 0)]
    for ring, members, hop in ((inner, hop1, 1), (outer, [s.node for s in hop2], 2)):
        for i, n in enumerate(members):
            angle = 2 * math.pi * i / max(len(members), 1) - math.pi / 2
            x, y = mid + ring * math.cos(angle), mid + ring * math.sin(angle)
            pos[n.id] = (x, y)
            nodes.append(GraphNode(n.id, _short(n), x, y, hop))
    lines = [GraphLine(*pos[e.src_id], *pos[e.dst_id], e.type) for e in edges if e.src_id in pos and e.dst_id in pos]
    return nodes, lines


def _short(n: Node) -> str:
    text = n.title or n.text_summary or n.id
    return text if len(text) <= 24 else text[:23] + "…"


def _other(e: Edge, node_id: str) -> str:
    return e.dst_id if e.src_id == node_id else e.src_id


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
    await _second_hop(svc, viewer, page)
    return page


async def _second_hop(svc: Services, viewer: Viewer, page: MemoryPage) -> None:
    """The neighbourhood to two hops, bounded: the ``HOP1_MAX`` neighbours joined by the
    heaviest edges, up to ``HOP2_MAX`` of their neighbours, from at most ``HOP2_EDGES`` edges;
    every node and edge read as the caller, like the first hop."""
    node = page.node
    strongest: dict[str, float] = {}
    for e in page.edges:
        other = _other(e, node.id)
        strongest[other] = max(strongest.get(other, float("-inf")), e.weight)
    ranked = sorted(strongest, key=lambda i: -strongest[i])
    hop1 = [page.neighbours[i] for i in ranked[:HOP1_MAX] if i in page.neighbours]
    page.truncated = len(ranked) > HOP1_MAX
    hop1_by_id = {n.id: n for n in hop1}
    drawn = {node.id, *hop1_by_id}
    outer = await svc.reader.edges(viewer, node.scope, hop1, limit=HOP2_EDGES) if hop1 else []
    page.truncated = page.truncated or len(outer) >= HOP2_EDGES
    via: dict[str, str] = {}
    for e in outer:
        for near, far in ((e.src_id, e.dst_id), (e.dst_id, e.src_id)):
            if near in hop1_by_id and far not in drawn and far not in via:
                via[far] = near
    order = {n.id: i for i, n in enumerate(hop1)}
    far_ids = sorted(via, key=lambda i: order.get(via[i], 0))
    page.truncated = page.truncated or len(far_ids) > HOP2_MAX
    found = {n.id: n for n in await svc.reader.nodes(viewer, node.scope, far_ids[:HOP2_MAX])}
    page.second_hop = [SecondHop(found[i], hop1_by_id[via[i]]) for i in far_ids[:HOP2_MAX] if i in found]
    shown = drawn | set(found)
    lines = [e for e in [*page.edges, *outer] if e.src_id in shown and e.dst_id in shown]
    unique = list({(e.type, e.src_id, e.dst_id): e for e in lines}.values())
    page.graph_nodes, page.graph_lines = layout(node, hop1, page.second_hop, unique)


async def history(svc: Services, viewer: Viewer, node: Node) -> list[Commit]:
    """The scope's recent commits that changed the node in a way the caller may see, newest
    first (``MemoryReader.history``: never one that names a memory hidden from the caller)."""
    return await svc.reader.history(viewer, node.scope, node.id, scan=HISTORY_SCAN)


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


def state_of(node: Node, now: datetime) -> str:
    """What a memory is at ``now``, in a word or two: ``expired`` before anything else (the
    pages show an expired memory only in a history view, and never as valid), then a status
    other than active (``superseded``, ``contradicted``, ...), then its interval."""
    if is_expired(node.expires_at, now):
        return "expired"
    if node.status != "active":
        return node.status
    if node.invalid_at is not None and node.invalid_at <= now:
        return "ended"
    if node.valid_at is not None and node.valid_at > now:
        return "not yet valid"
    return "valid"


def validity_of(node: Node, now: datetime) -> str:
    """``state_of`` with its reason, the memory's interval and its expiry, for a memory's page."""
    expired = is_expired(node.expires_at, now)
    text = f"expired {node.expires_at.isoformat()}" if expired and node.expires_at else state_of(node, now)
    reason = node.slots.get("status_reason")
    if reason:
        text += f" ({reason})"
    if node.valid_at is not None or node.invalid_at is not None:
        begun = node.valid_at.isoformat() if node.valid_at else "…"
        ended = node.invalid_at.isoformat() if node.invalid_at else "…"
        text += f"; true {begun} to {ended}"
    if expired:
        return text
    return text + (f"; expires {node.expires_at.isoformat()}" if node.expires_at else "; no expiry")


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


#: memories shown per page of a scope's listing
BROWSE_PAGE = 50


@dataclass(frozen=True, slots=True)
class BrowseFilter:
    """What ``/ui/browse`` asks of a scope's memories (None or empty: any)."""

    type: str | None = None
    tier: str | None = None
    layer: str | None = None
    #: ``current`` (valid and not expired now), ``as_of`` (at ``as_of``) or ``history`` (all)
    validity: str = "current"
    as_of: datetime | None = None
    #: written at or after ``since`` and before ``until``
    since: datetime | None = None
    until: datetime | None = None

    def when(self) -> ValidTime:
        if self.validity == "history":
            return HISTORY
        if self.validity == "as_of" and self.as_of is not None:
            return ValidTime(as_of=self.as_of)
        return CURRENT


@dataclass(slots=True)
class BrowsePage:
    nodes: list[Node]
    #: the opaque cursor of the next page (None: the scope's end was reached)
    next_cursor: str | None


async def browse(svc: Services, viewer: Viewer, scope: str, flt: BrowseFilter, cursor: str | None) -> BrowsePage:
    """A page of the scope's memories (in id order: creation order to the millisecond, as
    memlane's ids are time-ordered) passing ``flt``, read through ``MemoryReader.browse``: the
    same filter as every read, so expired and no-longer-valid memories stay hidden unless
    ``flt`` asks for them, applied in the query, so the next page's cursor names only the last
    memory shown (sealed to this caller, scope and filter)."""
    found, following = await svc.reader.browse(
        viewer,
        scope,
        cursor=cursor,
        limit=BROWSE_PAGE,
        when=flt.when(),
        written_from=flt.since,
        written_before=flt.until,
        tiers=(flt.tier,) if flt.tier else (),
        types=(flt.type,) if flt.type else None,
        layers=(flt.layer,) if flt.layer else None,
        exclude_draft_topics=False,
    )
    return BrowsePage(found, following)


@dataclass(slots=True)
class Person:
    """A user of an app as its notes show them: their sessions with how many notes each."""

    user_id: str | None
    sessions: dict[str | None, int]
    notes: int
    last: datetime | None


async def people(svc: Services, viewer: Viewer, scope: str) -> list[Person]:
    """The app's users and sessions, from its newest ``NOTES_LIMIT`` notes the caller may read
    (every tier and interval, as the notes page), the most recently active user first."""
    found = await svc.reader.find(viewer, scope, limit=NOTES_LIMIT, tiers=(), when=HISTORY)
    by_user: dict[str | None, Person] = {}
    for n in (n for n in found if is_note(n)):
        person = by_user.setdefault(n.user_id, Person(n.user_id, {}, 0, None))
        person.sessions[n.session_id] = person.sessions.get(n.session_id, 0) + 1
        person.notes += 1
        if n.created_at is not None and (person.last is None or n.created_at > person.last):
            person.last = n.created_at
    return sorted(by_user.values(), key=lambda p: str(p.last or ""), reverse=True)


@dataclass(slots=True)
class CitedMessage:
    """A message a note came from, as the note keeps it (``source_messages``)."""

    id: str
    role: str
    timestamp: str
    excerpt: str
    notes: list[Node]


@dataclass(slots=True)
class Conversation:
    user_id: str
    session_id: str | None
    notes: list[Node]
    messages: list[CitedMessage]
    #: messages the memory batcher holds for this user and session, not yet turned into notes
    pending: list[dict[str, Any]]


async def conversation(svc: Services, viewer: Viewer, scope: str, user: str, session: str | None) -> Conversation:
    """One user's (and session's) notes the caller may read, newest first, and the messages they
    came from, oldest first: a message is shown as its notes keep it (an excerpt), since the
    conversation surface stores messages only in its notes and in the batcher's buffer."""
    found = await svc.reader.find(
        viewer, scope, limit=NOTES_LIMIT, tiers=(), when=HISTORY, user_id=user, session_id=session
    )
    notes = [n for n in found if is_note(n)]
    cited: dict[str, CitedMessage] = {}
    for n in notes:
        for ref in n.slots.get("source_messages") or []:
            if not isinstance(ref, dict) or not ref.get("id"):
                continue
            key = str(ref["id"])
            message = cited.setdefault(
                key,
                CitedMessage(key, str(ref.get("role") or ""), str(ref.get("timestamp") or ""), "", []),
            )
            message.excerpt = message.excerpt or str(ref.get("excerpt") or "")
            message.notes.append(n)
    outcome = await svc.conversation.batcher.status(viewer, scope, user, session)
    ordered = sorted(cited.values(), key=lambda m: (m.timestamp, m.id))
    return Conversation(user, session, notes, ordered, list(outcome.state.messages))
