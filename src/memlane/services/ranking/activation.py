"""Graph activation blended into direct relevance without drowning it.

Each hop passes ``activation x weight x confidence x type factor x 0.5`` along an edge, as
docs/api-graph.md outlines (the factors and the decay are ``RankingConfig``'s). A node then
takes the *strongest* activation that reaches it, not the sum: with a sum, a hub linked to many
seeds (a session, a topic) would collect their scores and outrank every direct hit. The
received activation is added to the node's own relevance, scaled by ``graph_weight``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memlane.domain.model import Edge
from memlane.services.ranking.config import RankingConfig


def spread(
    base: Mapping[str, float],
    edges: Iterable[Edge],
    known: Mapping[str, object],
    *,
    hops: int,
    config: RankingConfig,
) -> dict[str, float]:
    """``activation(n) = base(n) + graph_weight x max over paths of the activation reaching n``.

    Only edges whose two ends are in ``known`` (eligible nodes) carry activation. Hop ``h``
    spreads what arrived at hop ``h-1``, so activation fades with distance and never loops
    back onto a seed at full strength.
    """
    factors, other_factor, decay = dict(config.edge_type_factors), config.other_edge_factor, config.hop_decay
    adjacency: dict[str, list[tuple[str, float]]] = {}
    for e in edges:
        if e.src_id not in known or e.dst_id not in known:
            continue
        w = e.weight * e.confidence * factors.get(e.type, other_factor) * decay
        if w <= 0:
            continue
        adjacency.setdefault(e.src_id, []).append((e.dst_id, w))
        adjacency.setdefault(e.dst_id, []).append((e.src_id, w))
    received: dict[str, float] = {}
    layer = {nid: max(a, 0.0) for nid, a in base.items()}
    for _ in range(hops):
        reached: dict[str, float] = {}
        for nid, act in layer.items():
            if act <= 0:
                continue
            for other, w in adjacency.get(nid, ()):
                value = act * w
                if value > reached.get(other, 0.0):
                    reached[other] = value
        for nid, value in reached.items():
            if value > received.get(nid, 0.0):
                received[nid] = value
        layer = reached
    out = {nid: max(a, 0.0) for nid, a in base.items()}
    for nid, value in received.items():
        out[nid] = out.get(nid, 0.0) + config.graph_weight * value
    return out
