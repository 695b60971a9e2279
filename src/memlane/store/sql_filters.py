"""Terms (domain/filters.py) as SQLAlchemy Core conditions, for every query built with Core.

The one rule that takes care: SQL is three-valued, the terms are not. ``NOT (layer IN (...))``
is NULL, so false, for a NULL layer, where the term means true. Each atom on a nullable
column is therefore rendered as ``(col IS NOT NULL AND <atom>)``, which is false rather than
NULL, so ``NOT`` and ``OR`` above it keep their two-valued meaning. The extra test costs the
planner nothing: it still uses an index on ``col`` for the atom. Atoms on NOT NULL columns
stay bare.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from memlane.domain.filters import All, AnyOf, Cmp, Eq, In, Not, Term


def to_sql(term: Term, table: sa.Table) -> sa.ColumnElement[bool]:
    """``term`` as a condition on ``table``'s columns; never NULL."""
    if isinstance(term, Not):
        return sa.not_(to_sql(term.term, table))
    if isinstance(term, All):
        return sa.and_(sa.true(), *(to_sql(t, table) for t in term.terms))
    if isinstance(term, AnyOf):
        return sa.or_(sa.false(), *(to_sql(t, table) for t in term.terms))
    column = table.c[term.column]
    if isinstance(term, Eq) and term.value is None:
        return column.is_(None)
    atom: sa.ColumnElement[bool] | None = _atom(term, column)
    if atom is None:
        return sa.false()
    return sa.and_(column.is_not(None), atom) if column.nullable else atom


def _atom(term: Eq | In | Cmp, column: sa.Column[Any]) -> Any:
    """The comparison itself, or None when it can hold for no row (an empty ``In``); Any
    because SQLAlchemy types a Column[Any]'s comparisons so."""
    if isinstance(term, Eq):
        return column == term.value
    if isinstance(term, Cmp):
        return _compare(column, term)
    values = [v for v in term.values if v is not None]
    return column.in_(values) if values else None


def _compare(column: sa.Column[Any], term: Cmp) -> Any:
    if term.op == "<":
        return column < term.value
    if term.op == "<=":
        return column <= term.value
    if term.op == ">":
        return column > term.value
    return column >= term.value


__all__ = ["to_sql"]
