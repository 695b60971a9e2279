"""Exact cosine search for the embedded store: per-scope matrices kept in memory.

Python's sqlite3 cannot load vector extensions here, and measured on 2 cores a contiguous
float32 matrix answers a 100k x 384 query in about 9 ms, faster than sqlite-vec's brute
force, with perfect recall. The cache follows the database through the scope's ``rev``
(bumped by every write to the scope) and ``epoch`` (bumped by deletes), so several
processes sharing one file stay correct: each refreshes what changed before it searches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.domain.model import TIER_RANK, ScoredId, SeedFilter

TIER_CODE = TIER_RANK


@dataclass
class ScopeVectors:
    """Rows of one (tenant, scope); a removed row stays as an invalid slot until a reload."""

    dim: int
    rev: int = -1
    epoch: int = -1
    count: int = 0
    matrix: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    valid: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    tier: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, np.int8))
    shared: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    draft_topic: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    ids: list[str] = field(default_factory=list)
    attrs: dict[str, list[Any]] = field(default_factory=dict)
    row_of: dict[str, int] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    ATTRS = ("owner_agent_id", "owner_team_id", "status", "type", "layer", "user_id", "session_id", "task_id")

    def reset(self) -> None:
        self.count = 0
        self.matrix = np.zeros((1024, self.dim), np.float32)
        self.valid = np.zeros(1024, bool)
        self.tier = np.zeros(1024, np.int8)
        self.shared = np.zeros(1024, bool)
        self.draft_topic = np.zeros(1024, bool)
        self.ids = []
        self.attrs = {a: [] for a in self.ATTRS}
        self.row_of = {}

    def _grow(self, need: int) -> None:
        cap = self.matrix.shape[0]
        if need <= cap:
            return
        new_cap = max(need, cap * 2)

        def grown(arr: npt.NDArray[Any]) -> npt.NDArray[Any]:
            shape = (new_cap, *arr.shape[1:])
            out = np.zeros(shape, arr.dtype)
            out[: self.count] = arr[: self.count]
            return out

        self.matrix, self.valid, self.tier = grown(self.matrix), grown(self.valid), grown(self.tier)
        self.shared, self.draft_topic = grown(self.shared), grown(self.draft_topic)

    def apply(self, rows: Sequence[Any]) -> None:
        """Upsert changed rows; a row that is no longer ready or of another dimension turns invalid."""
        self._grow(self.count + len(rows))
        for r in rows:
            m = r._mapping
            idx = self.row_of.get(m["id"])
            if idx is None:
                idx = self.count
                self.count += 1
                self.row_of[m["id"]] = idx
                self.ids.append(m["id"])
                for a in self.ATTRS:
                    self.attrs[a].append(None)
            emb = m["embedding"]
            ok = m["embedding_status"] == "ready" and emb is not None and m["embedding_dim"] == self.dim
            self.valid[idx] = ok
            if ok:
                self.matrix[idx] = (
                    np.frombuffer(bytes(emb), dtype=np.float32) if not isinstance(emb, np.ndarray) else emb
                )
            self.tier[idx] = TIER_CODE.get(m["tier"], 0)
            self.shared[idx] = m["memory_lane"] == "shared"
            self.draft_topic[idx] = m["type"] == "topic" and m["topic_state"] == "draft"
            for a in self.ATTRS:
                self.attrs[a][idx] = m[a]

    def mask(self, flt: SeedFilter) -> npt.NDArray[np.bool_]:
        n = self.count
        mask = self.valid[:n].copy()
        if flt.tiers:
            allowed = np.zeros(n, bool)
            for t in flt.tiers:
                allowed |= self.tier[:n] == TIER_CODE[t]
            mask &= allowed
        if flt.exclude_draft_topics:
            mask &= ~self.draft_topic[:n]
        vis = flt.visibility
        if vis.enforced:
            seen = self.shared[:n].copy()
            if vis.consumer_agent_id is not None:
                seen |= self._equals("owner_agent_id", vis.consumer_agent_id)
            if vis.consumer_team_id is not None:
                seen |= self._equals("owner_team_id", vis.consumer_team_id)
            mask &= seen
        for name, values in (("status", flt.statuses), ("type", flt.types), ("layer", flt.layers)):
            if values:
                allowed = np.zeros(n, bool)
                for v in values:
                    allowed |= self._equals(name, v)
                mask &= allowed
        for layer in flt.exclude_layers:
            mask &= ~self._equals("layer", layer)
        for name, value in (("user_id", flt.user_id), ("session_id", flt.session_id), ("task_id", flt.task_id)):
            if value is not None:
                mask &= self._equals(name, value)
        return mask

    def _equals(self, attr: str, value: Any) -> npt.NDArray[np.bool_]:
        arr = np.asarray(self.attrs[attr], dtype=object)
        return np.asarray(arr == value, dtype=bool) if len(arr) else np.zeros(0, bool)

    def search(self, query: npt.NDArray[np.float32], k: int, flt: SeedFilter) -> list[ScoredId]:
        n = self.count
        if n == 0 or k <= 0:
            return []
        scores = self.matrix[:n] @ query
        mask = self.mask(flt)
        eligible = int(mask.sum())
        if eligible == 0:
            return []
        scores = np.where(mask, scores, -np.inf)
        k = min(k, eligible)
        top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        top = top[np.argsort(-scores[top], kind="stable")]
        return [ScoredId(self.ids[i], float(scores[i])) for i in top if mask[i]][:k]
