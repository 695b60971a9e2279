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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.domain.filters import Term
from memlane.domain.model import NodeBrief, ScoredId, SeedFilter
from memlane.domain.visibility import VISIBILITY_COLUMNS
from memlane.store.schema import NODE_BRIEF_FIELDS
from memlane.store.sqlite.edge_cache import ScopeEdges
from memlane.store.sqlite.keyword_rank import bm25_top
from memlane.store.sqlite.term_masks import CMP_OPS, Mask, to_mask

#: a NodeBrief's fields after its id, in order, all kept per row
_BRIEF_ATTRS = NODE_BRIEF_FIELDS[1:]
#: width of the projection scanned in the first stage
PROJECTION_DIMS = 96
#: vectors sampled to fit the projection
PROJECTION_SAMPLE = 8000
#: default scope size from which the two-stage search is used (MEMLANE_VECTOR_APPROX_MIN_ROWS)
APPROX_MIN_ROWS = 20_000
#: rows a scope's arrays hold room for at first; they double as it grows. 1,024 made every
#: small scope cost ~145 KB (3,000 one-node scopes: +436 MB, issue 26)
INITIAL_ROWS = 16
#: bytes a cached scope costs besides its rows (its per-attribute lists, dicts and arrays)
SCOPE_OVERHEAD_BYTES = 24 * 1024


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
    ids: list[str] = field(default_factory=list)
    attrs: dict[str, list[Any]] = field(default_factory=dict)
    #: per attribute of ENCODED, an integer per row (0 for NULL)
    codes: dict[str, npt.NDArray[np.int32]] = field(default_factory=dict)
    #: per attribute of TIMES, seconds since the epoch per row (NaN for NULL)
    seconds: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    #: per attribute of ENCODED: value -> code, and code -> value (code 0 is NULL)
    _code_of: dict[str, dict[Any, int]] = field(default_factory=dict)
    _names: dict[str, list[Any]] = field(default_factory=dict)
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
    #: remembered row masks, per (attribute, value) and per (term, ready_only), dropped
    #: whenever rows change
    _equal_rows: dict[tuple[str, Any], Mask] = field(default_factory=dict)
    _term_rows: dict[tuple[Term, bool], Mask] = field(default_factory=dict)
    #: (row numbers sorted, the row holding each), built on the first keyword search after a change
    _by_row_no: tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]] | None = None
    _mean_text_len: float | None = None
    #: searches and refreshes run on worker threads; a search never sees half-applied rows
    _rows_lock: threading.Lock = field(default_factory=threading.Lock)
    #: what the store's cache budget counts for this scope (``approx_bytes`` when last refreshed)
    charged: int = 0

    #: every column a filter term reads (SeedFilter in domain/model.py, and a reader's
    #: Visibility), and what a NodeBrief needs
    ATTRS = tuple(
        dict.fromkeys((*VISIBILITY_COLUMNS, "task_id", "tier", "type", "topic_state", "status", *_BRIEF_ATTRS))
    )
    #: the text attributes, each kept as a small integer per row too (term_masks.py compares
    #: those): one distinct string object per value, and ~0.03 ms instead of ~3 ms to find
    #: the rows of one value at 100k rows, which every search pays after a write
    #: the interval attributes and the expiry (domain/validity.py), kept as float seconds per
    #: row too (NaN for NULL) so a comparison is one numpy operation; "valid and not expired
    #: now" is asked at a new instant on every read, never answered from the last refresh, so a
    #: memory that expires without any write to its scope is gone at once
    TIMES = ("valid_at", "invalid_at", "expires_at")
    ENCODED = frozenset(ATTRS) - {"salience", "confidence", *TIMES}

    def covers(self, head: tuple[int, int]) -> bool:
        """Whether the rows held are at least as recent as the scope's ``(rev, epoch)``
        ``head``: both only grow, and a delete moves both."""
        return self.rev >= head[0] and self.epoch >= head[1]

    def reset(self) -> None:
        with self._rows_lock:
            self._reset()

    def approx_bytes(self) -> int:
        """What the cached scope takes, about: its arrays at their allocated size, a row's
        Python objects (id, attributes, index entry), and the fixed overhead."""
        rows = int(self.matrix.shape[0])
        per_row = int(self.matrix.shape[1] + self.reduced.shape[1] + len(self.ENCODED)) * 4 + 240
        return rows * per_row + SCOPE_OVERHEAD_BYTES

    def _reset(self) -> None:
        rows = INITIAL_ROWS
        self.count = 0
        self.matrix = np.zeros((rows, self.dim), np.float32)
        self.valid = np.zeros(rows, bool)
        self.ids = []
        self.attrs = {a: [] for a in self.ATTRS}
        self.codes = {a: np.zeros(rows, np.int32) for a in self.ENCODED}
        self.seconds = {a: np.full(rows, np.nan) for a in self.TIMES}
        self._code_of = {a: {None: 0} for a in self.ENCODED}
        self._names = {a: [None] for a in self.ENCODED}
        self.row_of = {}
        self.row_no = np.zeros(rows, np.int64)
        self.text_len = np.zeros(rows, np.float32)
        self._by_row_no = None
        self._mean_text_len = None
        self.basis = None
        self.reduced = np.zeros((0, 0), np.float32)
        self.fitted_rows = 0
        self._equal_rows = {}
        self._term_rows = {}

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

        self.matrix, self.valid = grown(self.matrix), grown(self.valid)
        self.codes = {a: grown(c) for a, c in self.codes.items()}
        self.seconds = {a: grown(c) for a, c in self.seconds.items()}
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
        self._term_rows.clear()
        self._by_row_no = None
        self._mean_text_len = None
        changed: list[int] = []
        touched: list[int] = []
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
            self.text_len[idx] = m["text_len"]
            touched.append(idx)
            for a in self.ATTRS:
                self.attrs[a][idx] = m[a]
            for a in self.TIMES:
                self.seconds[a][idx] = np.nan if m[a] is None else m[a].timestamp()
        self._encode(touched)
        self._refresh_projection(changed)

    def _encode(self, rows: list[int]) -> None:
        """The codes of ``rows``; their values become the one string object kept per value."""
        if not rows:
            return
        # a (re)load or new rows only: slices, a third faster at 100k rows
        span = slice(rows[0], rows[-1] + 1) if rows == list(range(rows[0], rows[-1] + 1)) else None
        for a in self.ENCODED:
            column, code_of, names = self.attrs[a], self._code_of[a], self._names[a]
            values = column[span] if span is not None else [column[i] for i in rows]
            for value in set(values).difference(code_of):
                code_of[value] = len(names)
                names.append(value)
            codes = [code_of[v] for v in values]
            if span is not None:
                column[span] = [names[c] for c in codes]
                self.codes[a][span] = codes
                continue
            for i, code in zip(rows, codes, strict=True):
                column[i] = names[code]
            self.codes[a][rows] = codes

    def briefs(self, ids: Sequence[str]) -> list[NodeBrief]:
        """Briefs of the scope's nodes among ``ids``, in order; ids not in the scope are skipped."""
        with self._rows_lock:
            columns = [self.attrs[a] for a in _BRIEF_ATTRS]
            out: list[NodeBrief] = []
            for nid in ids:
                i = self.row_of.get(nid)
                if i is not None:
                    out.append(NodeBrief(nid, *(c[i] for c in columns)))
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

    def mask(self, term: Term, *, ready_only: bool = True) -> Mask:
        """Rows the term admits (term_masks.py); with ``ready_only`` only rows with a usable
        vector. Remembered until the rows change: recall asks the same filter several times.
        The caller must not modify it."""
        key = (term, ready_only)
        hit = self._term_rows.get(key)
        if hit is not None and len(hit) == self.count:
            return hit
        rows = to_mask(term, self)
        if ready_only:
            rows = rows & self.valid[: self.count]
        return self._remember(self._term_rows, key, rows)

    def equals(self, column: str, value: Any) -> Mask:
        """Rows whose ``column`` is ``value``, remembered until the rows change (term_masks.py)."""
        key = (column, value)
        hit = self._equal_rows.get(key)
        if hit is not None and len(hit) == self.count:
            return hit
        return self._remember(self._equal_rows, key, self._compare(column, value))

    def column(self, column: str) -> Sequence[Any]:
        return self.attrs[column]

    def compare(self, column: str, op: str, value: Any) -> Mask | None:
        """Rows whose interval ``column`` compares so with ``value`` (a datetime), in one numpy
        operation (False for NULL, as NaN compares); None for any other column."""
        seconds = self.seconds.get(column)
        if seconds is None or not isinstance(value, datetime):
            return None
        return np.asarray(CMP_OPS[op](seconds[: self.count], value.timestamp()), dtype=bool)

    def _compare(self, attr: str, value: Any) -> Mask:
        n = self.count
        codes = self.codes.get(attr)
        if codes is not None:
            code = self._code_of[attr].get(value)
            return codes[:n] == code if code is not None else np.zeros(n, bool)
        arr = np.asarray(self.attrs[attr], dtype=object)
        return np.asarray(arr == value, dtype=bool) if len(arr) else np.zeros(0, bool)

    @staticmethod
    def _remember(memo: dict[Any, Mask], key: Any, rows: Mask) -> Mask:
        if len(memo) >= 64:
            memo.clear()
        memo[key] = rows
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
                term_rows, self.text_len[:n], self._average_length(), self.mask(flt.term(), ready_only=False), k
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
        mask = self.mask(flt.term())
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
