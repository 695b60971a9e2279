"""A small predicate language over node columns, so a filter's meaning is written once.

A ``SeedFilter`` (and a reader's ``Visibility``) turns itself into a ``Term``; each backend
only renders terms: SQLAlchemy Core (``store/sql_filters.py``), PostgreSQL text for the
direct reads, numpy row masks for the SQLite vector cache, and ``matches`` here for a node
already in memory. Before this, the same rules were written out three times and drifted.

Logic is two-valued: a column that is NULL (None) equals nothing but ``Eq(column, None)``,
is in no ``In`` set, and ``Not`` of a false term is true. Renderers must keep that (SQL's
three-valued NULL would otherwise turn ``NOT (layer IN (...))`` false for a NULL layer).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypeAlias

Op: TypeAlias = Literal["<", "<=", ">", ">="]


@dataclass(frozen=True, slots=True)
class Eq:
    """``column`` equals ``value``; ``Eq(column, None)`` means the column is NULL."""

    column: str
    value: Any


@dataclass(frozen=True, slots=True)
class In:
    """``column`` is one of ``values`` (never true for NULL)."""

    column: str
    values: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Cmp:
    """``column <op> value`` for ordered values (timestamps, numbers); never true for NULL."""

    column: str
    op: Op
    value: Any


@dataclass(frozen=True, slots=True)
class All:
    """Every term holds; ``All(())`` is true."""

    terms: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one term holds; ``AnyOf(())`` is false."""

    terms: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class Not:
    term: Term


Term: TypeAlias = Eq | In | Cmp | All | AnyOf | Not

TRUE: Term = All(())
FALSE: Term = AnyOf(())


def all_of(*terms: Term) -> Term:
    """``All`` without the trivially true parts (a single term stays itself)."""
    kept = tuple(t for t in terms if t != TRUE)
    return kept[0] if len(kept) == 1 else All(kept)


def any_of(*terms: Term) -> Term:
    kept = tuple(t for t in terms if t != FALSE)
    return kept[0] if len(kept) == 1 else AnyOf(kept)


def columns_of(term: Term) -> frozenset[str]:
    """The columns a term reads (so a caller can select exactly those)."""
    if isinstance(term, Eq | In | Cmp):
        return frozenset({term.column})
    if isinstance(term, Not):
        return columns_of(term.term)
    out: frozenset[str] = frozenset()
    for t in term.terms:
        out |= columns_of(t)
    return out


def matches(term: Term, row: Any) -> bool:
    """Evaluate ``term`` on anything with the columns as attributes (a ``Node``, a SQL row)."""
    return compiled(term)(row)


_OPS: dict[str, Callable[[Any, Any], Any]] = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@lru_cache(maxsize=1024)
def compiled(term: Term) -> Callable[[Any], bool]:
    """``matches`` as a closure built once per term: recall checks a few hundred neighbours
    against the same reader's term, and walking the tree for each cost more than the check."""
    if isinstance(term, Eq):
        column, value = term.column, term.value
        return lambda row: bool(getattr(row, column) == value)
    if isinstance(term, In):
        column, values = term.column, frozenset(v for v in term.values if v is not None)
        return lambda row: getattr(row, column) in values
    if isinstance(term, Cmp):
        column, op, bound = term.column, _OPS[term.op], term.value
        return lambda row: (v := getattr(row, column)) is not None and bool(op(v, bound))
    if isinstance(term, Not):
        inner = compiled(term.term)
        return lambda row: not inner(row)
    parts = tuple(compiled(t) for t in term.terms)
    if isinstance(term, All):
        return lambda row: all(p(row) for p in parts)
    return lambda row: any(p(row) for p in parts)
