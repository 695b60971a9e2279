"""Terms (domain/filters.py) as numpy row masks over a scope's cached rows (vector_cache.py).

A mask is built from ``equals(column, value)`` masks, which the rows remember until they
change: recall asks the same reader's lanes and layers on every search, and comparing 100k
values costs milliseconds where combining remembered masks costs microseconds. Masks that
come back may be remembered ones, so nothing here writes into a mask it did not create.
NULL is a value like any other here (``None == None``), which is the terms' own two-valued
logic; an ``In`` or ``Cmp`` is never true for None.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from memlane.domain.filters import AnyOf, Cmp, Eq, In, Not, Term

Mask = npt.NDArray[np.bool_]
CMP_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class Rows(Protocol):
    """What a mask is computed over: ``count`` rows with named columns."""

    count: int

    def equals(self, column: str, value: Any) -> Mask:
        """Rows whose ``column`` is ``value`` (None: is NULL); the caller must not modify it."""
        ...

    def column(self, column: str) -> Sequence[Any]:
        """The column's values, one per row."""
        ...

    def compare(self, column: str, op: str, value: Any) -> Mask | None:
        """Rows whose ``column`` compares so with ``value``, when the rows can answer it in one
        step (the intervals of vector_cache.py); None to compare value by value."""
        ...


def to_mask(term: Term, rows: Rows) -> Mask:
    """Rows for which ``term`` holds; may be an array ``rows`` remembers, so never modify it."""
    if isinstance(term, Eq):
        return rows.equals(term.column, term.value)
    if isinstance(term, In):
        values = [v for v in dict.fromkeys(term.values) if v is not None]
        return _combine((rows.equals(term.column, v) for v in values), rows.count, any_of=True)
    if isinstance(term, Cmp):
        fast = rows.compare(term.column, term.op, term.value)
        if fast is not None:
            return fast
        op, bound = CMP_OPS[term.op], term.value
        column = rows.column(term.column)
        return np.fromiter((v is not None and bool(op(v, bound)) for v in column[: rows.count]), bool, rows.count)
    if isinstance(term, Not):
        return ~to_mask(term.term, rows)
    # All or AnyOf
    return _combine((to_mask(t, rows) for t in term.terms), rows.count, any_of=isinstance(term, AnyOf))


def _combine(masks: Iterable[Mask], count: int, *, any_of: bool) -> Mask:
    """AND (or OR) of masks into a new array: an empty AND is all true, an empty OR all false."""
    out = np.zeros(count, bool) if any_of else np.ones(count, bool)
    for m in masks:
        if any_of:
            out |= m
        else:
            out &= m
    return out


__all__ = ["CMP_OPS", "Mask", "Rows", "to_mask"]
