"""The graph around the seeds: the edges recall spreads activation along, the eligible nodes at
their ends, and the draft topics shown (never ranked) beside what recall returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memlane.domain.filters import compiled
from memlane.domain.model import ACTIVE_TIERS, Edge, Node, NodeBrief
from memlane.services.reading import MemoryReader
from memlane.services.recall.model import RecallParams
from memlane.store.contracts.graph_reads import EdgeReadOps

#: draft topics shown beside the returned nodes, at most
MAX_DRAFT_TOPICS_SHOWN = 3
#: the edge types that tie a draft topic to a node strongly enough to show it
DRAFT_TIES = ("part_of", "derived_from")


def seedable(n: Node | NodeBrief) -> bool:
    """Ready and in an active tier; the reader has already kept only what the caller may see."""
    return n.embedding_status == "ready" and n.tier in ACTIVE_TIERS


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """Edges within ``neighborhood_hops`` of the seeds, kept to eligible endpoints (or to a
    draft topic and an eligible node); ``nodes`` are the eligible nodes known to recall, the
    loaded candidates first, then neighbours as briefs (eligibility and weight only)."""

    edges: list[Edge]
    nodes: dict[str, Node | NodeBrief]
    drafts: dict[str, NodeBrief]


async def neighbourhood(
    store: EdgeReadOps, reader: MemoryReader, p: RecallParams, seed_ids: Sequence[str], loaded: Mapping[str, Node]
) -> Neighbourhood:
    """Walk out from ``seed_ids`` hop by hop. ``loaded`` are the eligible nodes the seed search
    read whole; they are known already and never read again. Up to
    ``max(4 x max_nodes, ranked_limit)`` nodes and ``max(4 x max_edges, 50)`` edges are read, of
    which at most ``max_nodes`` are returned and loaded whole."""
    nodes: dict[str, Node | NodeBrief] = dict(loaded)
    kept: dict[str, Edge] = {}
    drafts: dict[str, NodeBrief] = {}
    valid_edge = compiled(reader.valid(p.when))
    frontier = list(seed_ids)
    visited = set(seed_ids)
    node_budget = max(p.max_nodes * 4, p.ranked_limit)
    edge_budget = max(p.max_edges * 4, 50)
    for _hop in range(p.neighborhood_hops):
        if not frontier or len(kept) >= edge_budget:
            break
        found = await store.edges_touching(
            p.tenant_id,
            p.scope,
            frontier,
            min_weight=p.min_edge_weight,
            min_confidence=p.min_edge_confidence,
            limit=edge_budget - len(kept),
        )
        found = [e for e in found if valid_edge(e)]
        new_ids = [nid for e in found for nid in (e.src_id, e.dst_id) if nid not in nodes and nid not in drafts]
        new_ids = list(dict.fromkeys(new_ids))[: max(node_budget - len(nodes), 0)]
        for n in await reader.briefs(p.viewer, p.scope, new_ids, p.when):
            if n.type == "topic" and n.topic_state == "draft":
                drafts[n.id] = n
            elif seedable(n):
                nodes[n.id] = n
        frontier = _keep_edges(found, nodes, drafts, kept, visited)
    return Neighbourhood(list(kept.values()), nodes, drafts)


def _keep_edges(
    found: Sequence[Edge],
    nodes: Mapping[str, object],
    drafts: Mapping[str, object],
    kept: dict[str, Edge],
    visited: set[str],
) -> list[str]:
    """One hop's edges into ``kept``: those between eligible nodes (whose new ends are the next
    frontier, returned) and those that tie a draft topic to an eligible node."""
    frontier: list[str] = []
    for e in found:
        if e.src_id in nodes and e.dst_id in nodes:
            kept[e.id] = e
            for nid in (e.src_id, e.dst_id):
                if nid not in visited:
                    visited.add(nid)
                    frontier.append(nid)
        elif (e.src_id in drafts or e.dst_id in drafts) and (e.src_id in nodes or e.dst_id in nodes):
            kept[e.id] = e
    return frontier


def with_draft_topics(
    chosen: list[Node], sub_edges: list[Edge], drafts: Mapping[str, Node], edges: Sequence[Edge], max_nodes: int
) -> tuple[list[Node], list[Edge]]:
    """Show the draft topics most strongly tied (part_of / derived_from) to returned nodes,
    with those ties; never rank them. A full subgraph gives up its lowest-ranked node."""
    if not drafts or not chosen:
        return chosen, sub_edges
    chosen_ids = {n.id for n in chosen}
    strength: dict[str, float] = {}
    links: dict[str, list[Edge]] = {}
    for e in edges:
        if e.type not in DRAFT_TIES:
            continue
        for d, other in ((e.src_id, e.dst_id), (e.dst_id, e.src_id)):
            if d in drafts and other in chosen_ids:
                strength[d] = strength.get(d, 0.0) + e.weight * e.confidence
                links.setdefault(d, []).append(e)
    picks = sorted(strength, key=lambda d: (-strength[d], d))[:MAX_DRAFT_TOPICS_SHOWN]
    out = list(chosen)
    for d in picks:
        if len(out) < max_nodes:
            out.append(drafts[d])
        elif len(out) > 1:
            out[-1] = drafts[d]  # swap out the lowest-ranked node
        else:
            break
    kept_ids = {n.id for n in out}
    new_edges = [e for e in sub_edges if e.src_id in kept_ids and e.dst_id in kept_ids]
    for d in picks:
        if d in kept_ids:
            new_edges += [e for e in links[d] if e.src_id in kept_ids and e.dst_id in kept_ids]
    return out, list({e.id: e for e in new_edges}.values())
