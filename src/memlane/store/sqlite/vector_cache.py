"""Cosine search for the embedded store: per-scope matrices kept in memory.

Python's sqlite3 cannot load vector extensions here. A contiguous float32 matrix scanned by
numpy is exact and beats sqlite-vec's brute force, but the scan is memory-bound: 12 ms for
100k x 384 on 2 cores (measured), half of recall's whole budget. Large scopes therefore
search in two stages: a scan of a 96-dimensional projection (the scope's principal
directions plus its mean, fitted on a sample of its own vectors) picks a shortlist (10 per
wanted row up to 30 rows, 3 per row beyond, at least 300), and only those are scored on the
full vectors. On the recall benchmark's 100k
MiniLM vectors this returned the exact top 10/30/100 in 2.1-2.5 ms (recall 1.0 over 200
queries); bench/recall.py reports the recall against exact search on every run. Scopes
below ``approx_min_rows`` are always searched exactly.

The cache follows the database through the scope's ``rev`` (bumped by every write to the
scope) and ``epoch`` (bumped by deletes), so several processes sharing one file stay
correct: each refreshes what changed before it searches.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.domain.model import TIER_RANK, NodeBrief, ScoredId, SeedFilter
from memlane.store.sqlite.edge_cache import ScopeEdges
from memlane.store.sqlite.keyword_rank import bm25_top

TIER_CODE = TIER_RANK
#: width of the projection scanned in the first stage
PROJECTION_DIMS = 96
#: vectors sampled to fit the projection
PROJECTION_SAMPLE = 8000
#: default scope size from which the two-stage search is used (MEMLANE_VECTOR_APPROX_MIN_ROWS)
APPROX_MIN_ROWS = 20_000


def fit_projection(vectors: npt.NDArray[np.float32], dims: int, seed: int = 0) -> npt.NDArray[np.float32]:
    """An orthonormal basis (dim x dims): the mean direction, then the top principal directions."""
    rng = np.random.default_rng(seed)
    sample = vectors[rng.choice(len(vectors), min(len(vectors), PROJECTION_SAMPLE), replace=False)]
    mean = sample.mean(axis=0)
    _, _, vt = np.linalg.svd(sample - mean, full_matrices=False)
    basis = np.vstack([mean, vt[: dims - 1]]).T.astype(np.float64)
    q, _ = np.linalg.qr(basis)
    return np.ascontiguousarray(q[:, :dims].astype(np.float32))


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
    #: per row: the keyword index's rowid (nodes.row_no), and the characters of its text
    row_no: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    text_len: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, np.float32))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    approx_min_rows: int = APPROX_MIN_ROWS
    #: the first stage: projection basis, projected rows, and the row count it was fitted at
    basis: npt.NDArray[np.float32] | None = None
    reduced: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    fitted_rows: int = 0
    #: the scope's edges, refreshed with the vectors (edge_cache.py); only touched on the
    #: event loop's thread, which is also where they are read
    edges: ScopeEdges = field(default_factory=ScopeEdges)
    #: remembered row masks (per attribute value, per filter), dropped whenever rows change
    _equal_rows: dict[tuple[Any, ...], npt.NDArray[np.bool_]] = field(default_factory=dict)
    _shared: dict[str, str] = field(default_factory=dict)
    #: (row numbers sorted, the row holding each), built on the first keyword search after a change
    _by_row_no: tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]] | None = None
    _mean_text_len: float | None = None
    #: searches and refreshes run on worker threads; a search never sees half-applied rows
    _rows_lock: threading.Lock = field(default_factory=threading.Lock)

    ATTRS = (
        "owner_agent_id",
        "owner_team_id",
        "status",
        "type",
        "layer",
        "user_id",
        "session_id",
        "task_id",
        # with the ones above, what a NodeBrief needs
        "tier",
        "memory_lane",
        "embedding_status",
        "topic_state",
        "salience",
        "confidence",
    )
    #: attributes with a handful of distinct values
    FEW_VALUES = frozenset({"status", "type", "layer", "tier", "memory_lane", "embedding_status", "topic_state"})

    def reset(self) -> None:
        with self._rows_lock:
            self._reset()

    def _reset(self) -> None:
        self.count = 0
        self.matrix = np.zeros((1024, self.dim), np.float32)
        self.valid = np.zeros(1024, bool)
        self.tier = np.zeros(1024, np.int8)
        self.shared = np.zeros(1024, bool)
        self.draft_topic = np.zeros(1024, bool)
        self.ids = []
        self.attrs = {a: [] for a in self.ATTRS}
        self.row_of = {}
        self.row_no = np.zeros(1024, np.int64)
        self.text_len = np.zeros(1024, np.float32)
        self._by_row_no = None
        self._mean_text_len = None
        self.basis = None
        self.reduced = np.zeros((0, 0), np.float32)
        self.fitted_rows = 0
        self._equal_rows = {}
        self._shared = {}

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
        self.row_no, self.text_len = grown(self.row_no), grown(self.text_len)
        if self.basis is not None:
            self.reduced = grown(self.reduced)

    def apply(self, rows: Sequence[Any]) -> None:
        """Upsert changed rows; a row that is no longer ready or of another dimension turns invalid."""
        with self._rows_lock:
            self._apply(rows)

    def _apply(self, rows: Sequence[Any]) -> None:
        self._grow(self.count + len(rows))
        self._equal_rows.clear()
        self._by_row_no = None
        self._mean_text_len = None
        changed: list[int] = []
        for r in rows:
            m = r._mapping
            idx = self.row_of.get(m["id"])
            if idx is None:
                idx = self.count
                self.count += 1
                self.row_of[m["id"]] = idx
                self.row_no[idx] = m["row_no"]
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
                changed.append(idx)
            self.tier[idx] = TIER_CODE.get(m["tier"], 0)
            self.text_len[idx] = m["text_len"]
            self.shared[idx] = m["memory_lane"] == "shared"
            self.draft_topic[idx] = m["type"] == "topic" and m["topic_state"] == "draft"
            for a in self.ATTRS:
                value = m[a]
                if a in self.FEW_VALUES and value is not None:
                    value = self._shared.setdefault(value, value)  # one string object per value
                self.attrs[a][idx] = value
        self._refresh_projection(changed)

    def briefs(self, ids: Sequence[str]) -> list[NodeBrief]:
        """Briefs of the scope's nodes among ``ids``, in order; ids not in the scope are skipped."""
        with self._rows_lock:
            out: list[NodeBrief] = []
            attrs = self.attrs
            for nid in ids:
                i = self.row_of.get(nid)
                if i is None:
                    continue
                out.append(
                    NodeBrief(
                        id=nid,
                        type=attrs["type"][i],
                        tier=attrs["tier"][i],
                        memory_lane=attrs["memory_lane"][i],
                        owner_agent_id=attrs["owner_agent_id"][i],
                        owner_team_id=attrs["owner_team_id"][i],
                        embedding_status=attrs["embedding_status"][i],
                        topic_state=attrs["topic_state"][i],
                        layer=attrs["layer"][i],
                        salience=attrs["salience"][i],
                        confidence=attrs["confidence"][i],
                    )
                )
            return out

    def _refresh_projection(self, changed: list[int]) -> None:
        """Fit the first stage once the scope is large, refit when it has doubled since."""
        if self.approx_min_rows <= 0 or self.count < self.approx_min_rows:
            return
        n = self.count
        if self.basis is None or n >= 2 * self.fitted_rows:
            valid = self.matrix[:n][self.valid[:n]]
            if len(valid) < self.approx_min_rows // 2:
                return
            self.basis = fit_projection(valid, min(PROJECTION_DIMS, self.dim))
            self.reduced = np.zeros((self.matrix.shape[0], self.basis.shape[1]), np.float32)
            self.reduced[:n] = self.matrix[:n] @ self.basis
            self.fitted_rows = n
        elif changed:
            self.reduced[changed] = self.matrix[changed] @ self.basis

    def mask(self, flt: SeedFilter, *, ready_only: bool = True) -> npt.NDArray[np.bool_]:
        """Rows the filter admits; with ``ready_only`` only rows with a usable vector.
        Remembered until the rows change: recall asks the same filter several times."""
        vis = flt.visibility
        key = (
            "mask", ready_only, flt.tiers, vis.consumer_agent_id, vis.consumer_team_id, flt.exclude_draft_topics,
            flt.statuses, flt.types, flt.layers, flt.user_id, flt.session_id, flt.task_id, flt.exclude_layers,
        )  # fmt: skip
        return self._remembered(key, lambda: self._mask(flt, ready_only=ready_only))

    def _mask(self, flt: SeedFilter, *, ready_only: bool) -> npt.NDArray[np.bool_]:
        n = self.count
        mask = self.valid[:n].copy() if ready_only else np.ones(n, bool)
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
        """Rows whose ``attr`` is ``value``; remembered until the rows change, because the
        same tests (the reader's lane, the excluded workspace layer) repeat on every search
        and building one costs milliseconds at 100k rows."""
        return self._remembered((attr, value), lambda: self._compare(attr, value))

    def _compare(self, attr: str, value: Any) -> npt.NDArray[np.bool_]:
        arr = np.asarray(self.attrs[attr], dtype=object)
        return np.asarray(arr == value, dtype=bool) if len(arr) else np.zeros(0, bool)

    def _remembered(self, key: tuple[Any, ...], compute: Callable[[], npt.NDArray[np.bool_]]) -> npt.NDArray[np.bool_]:
        """A row mask from the memo, computed once per change of the rows (``apply`` clears it)."""
        hit = self._equal_rows.get(key)
        if hit is not None and len(hit) == self.count:
            return hit
        rows = compute()
        if len(self._equal_rows) >= 64:
            self._equal_rows.clear()
        self._equal_rows[key] = rows
        return rows

    def keyword_hits(self, postings: Sequence[npt.NDArray[np.int64]], k: int, flt: SeedFilter) -> list[ScoredId]:
        """The ``k`` best rows of this scope the filter admits (vectors not required) for query
        words given as their posting lists in the keyword index (keyword_rank.py)."""
        with self._rows_lock:
            n = self.count
            if n == 0 or k <= 0:
                return []
            term_rows = [self._rows_of(p) for p in postings]
            rows, scores = bm25_top(
                term_rows, self.text_len[:n], self._average_length(), self.mask(flt, ready_only=False), k
            )
            return [ScoredId(self.ids[int(i)], float(s)) for i, s in zip(rows, scores, strict=True)]

    def _average_length(self) -> float:
        if self._mean_text_len is None:
            self._mean_text_len = float(self.text_len[: self.count].mean()) if self.count else 0.0
        return self._mean_text_len

    def _rows_of(self, row_nos: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
        """Rows of this scope among keyword-index rowids (the others belong to other scopes)."""
        if self._by_row_no is None:
            order = np.argsort(self.row_no[: self.count], kind="stable")
            self._by_row_no = (self.row_no[order], order)
        ordered, order = self._by_row_no
        if not len(row_nos) or not len(ordered):
            return np.zeros(0, np.intp)
        at = np.minimum(np.searchsorted(ordered, row_nos), len(ordered) - 1)
        found: npt.NDArray[np.intp] = order[at[ordered[at] == row_nos]]
        return found

    def vectors(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Copies of the stored vectors of ``ids`` that have a usable one (the same float32
        values as the database's blobs)."""
        with self._rows_lock:
            out: dict[str, npt.NDArray[np.float32]] = {}
            for nid in ids:
                i = self.row_of.get(nid)
                if i is not None and self.valid[i]:
                    out[nid] = self.matrix[i].copy()
            return out

    def search(self, query: npt.NDArray[np.float32], k: int, flt: SeedFilter) -> list[ScoredId]:
        with self._rows_lock:
            return self._search(query, k, flt)

    def _search(self, query: npt.NDArray[np.float32], k: int, flt: SeedFilter) -> list[ScoredId]:
        n = self.count
        if n == 0 or k <= 0:
            return []
        mask = self.mask(flt)
        eligible = int(mask.sum())
        if eligible == 0:
            return []
        k = min(k, eligible)
        # ten candidates per wanted row up to 30 rows (seeds), three beyond (fusion candidates)
        shortlist = max(300, 10 * min(k, 30), 3 * k)
        if self.basis is not None and eligible > shortlist:
            rough = np.where(mask, self.reduced[:n] @ (query @ self.basis), -np.inf)
            rows = np.argpartition(-rough, shortlist - 1)[:shortlist]
        elif eligible < n // 4:
            rows = np.flatnonzero(mask)
        else:
            rows = None
        if rows is None:
            scores = np.where(mask, self.matrix[:n] @ query, -np.inf)
            top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
            top = top[np.argsort(-scores[top], kind="stable")]
            return [ScoredId(self.ids[i], float(scores[i])) for i in top if mask[i]][:k]
        exact = self.matrix[rows] @ query
        order = np.lexsort((rows, -exact))[:k]
        return [ScoredId(self.ids[int(rows[i])], float(exact[i])) for i in order]
