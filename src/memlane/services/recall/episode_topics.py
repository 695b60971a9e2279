"""Every episode of a scope with its centroid, for the episode-centroid signal
(ranking/centroid.py; off by default, measured in BENCHMARKS.md "Episode centroids").

The centroid needs every memory of an episode, not only the candidates, so the scope's
seedable memories (those the viewer may see) are read whole once, grouped into episodes
(domain/episodes.py, inferred for a client that names none) and averaged; the result is kept
per scope head and viewer, so it is read again only after a write. This whole-scope read is
what a measurement can afford; docs/retrieval.md says how a server would keep it instead.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memlane.domain.episodes import episode_keys
from memlane.domain.model import Node
from memlane.domain.visibility import Viewer
from memlane.services.ranking.centroid import Matrix, centroid
from memlane.services.reading import MemoryReader
from memlane.services.recall.neighbourhood import seedable

#: nodes read per page of the scope
PAGE = 1000
#: scopes kept (a measurement asks a handful)
KEPT = 8


@dataclass(frozen=True, slots=True)
class ScopeEpisodes:
    """A scope's seedable memories, their episodes, vectors and each episode's centroid."""

    nodes: dict[str, Node]
    episode_of: dict[str, Hashable]
    members: dict[Hashable, list[str]]
    vectors: dict[str, Matrix]
    centroids: dict[Hashable, Matrix]

    def best_members(self, query: npt.NDArray[np.float32], episode: Hashable, n: int) -> list[str]:
        """The episode's ``n`` memories closest to the query."""
        ids = [m for m in self.members.get(episode, []) if m in self.vectors]
        qn = float(np.linalg.norm(query)) or 1.0
        sims = {
            m: float(np.dot(query, v)) / (qn * (float(np.linalg.norm(v)) or 1.0))
            for m in ids
            if (v := self.vectors[m]) is not None
        }
        return sorted(sims, key=lambda m: -sims[m])[:n]


class EpisodeTopics:
    """``ScopeEpisodes`` per (scope head, viewer), read on first use."""

    def __init__(self, reader: MemoryReader) -> None:
        self.reader = reader
        self._kept: dict[tuple[object, ...], ScopeEpisodes] = {}

    async def of(self, viewer: Viewer, scope: str) -> ScopeEpisodes:
        head = await self.reader.store.head_commit_id(viewer.tenant_id, scope)
        key = (viewer, scope, head)
        found = self._kept.get(key)
        if found is None:
            found = await self._read(viewer, scope)
            if len(self._kept) >= KEPT:
                self._kept.pop(next(iter(self._kept)))
            self._kept[key] = found
        return found

    async def _read(self, viewer: Viewer, scope: str) -> ScopeEpisodes:
        nodes: dict[str, Node] = {}
        after: str | None = None
        while True:
            page, after = await self.reader.scan(viewer, scope, after_id=after, limit=PAGE)
            nodes.update((n.id, n) for n in page if seedable(n))
            if after is None or len(page) == 0:
                break
        vectors = {
            nid: np.asarray(v, dtype=np.float32)
            for nid, v in (await self.reader.embeddings(viewer, list(nodes.values()))).items()
        }
        episode_of = episode_keys(nodes.values())
        members: dict[Hashable, list[str]] = {}
        for nid, ep in episode_of.items():
            members.setdefault(ep, []).append(nid)
        centroids: dict[Hashable, Matrix] = {}
        for ep, ids in members.items():
            c = centroid(vectors[m] for m in ids if m in vectors)
            if c is not None:
                centroids[ep] = c
        return ScopeEpisodes(nodes, episode_of, members, vectors, centroids)
