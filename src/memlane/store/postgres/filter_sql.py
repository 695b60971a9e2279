"""Terms (domain/filters.py) as PostgreSQL text for the statements of direct_reads.py.

The same rendering as store/sql_filters.py (that module's docstring says why atoms on
nullable columns carry ``col IS NOT NULL``), written as text because those statements skip
SQLAlchemy. Every value is a parameter and column names come from the schema, so a
statement's text depends only on the term's shape and asyncpg prepares it once per
connection.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from memlane.domain.filters import All, AnyOf, Cmp, Eq, Not, Term
from memlane.store.schema import nodes

#: array casts of ``= ANY($n)`` parameters by column type; other types are left to the server
_ARRAY_CASTS: tuple[tuple[type[Any], str], ...] = (
    (sa.String, "::varchar[]"),
    (sa.Integer, "::bigint[]"),
    (sa.Float, "::float8[]"),
)
_OPS = ("<", "<=", ">", ">=")


class Params:
    """Positional arguments of one statement: ``add`` returns the placeholder to write."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def add(self, value: Any, cast: str = "") -> str:
        self.values.append(value)
        return f"${len(self.values)}{cast}"


def to_sql_text(term: Term, p: Params, table: sa.Table = nodes) -> str:
    """``term`` as a condition on ``table``'s columns, its values added to ``p``; never NULL."""
    if isinstance(term, Not):
        return f"NOT {to_sql_text(term.term, p, table)}"
    if isinstance(term, All | AnyOf):
        joiner, empty = (" AND ", "TRUE") if isinstance(term, All) else (" OR ", "FALSE")
        if not term.terms:
            return empty
        return "(" + joiner.join(to_sql_text(t, p, table) for t in term.terms) + ")"
    column = table.c[term.column]  # a KeyError for anything that is not a column
    name = column.name
    if isinstance(term, Eq) and term.value is None:
        return f"{name} IS NULL"
    if isinstance(term, Eq):
        atom = f"{name} = {p.add(term.value)}"
    elif isinstance(term, Cmp):
        if term.op not in _OPS:
            raise ValueError(f"unknown comparison {term.op!r}")
        atom = f"{name} {term.op} {p.add(term.value)}"
    else:
        values = [v for v in term.values if v is not None]
        if not values:
            return "FALSE"
        atom = f"{name} = ANY({p.add(values, _array_cast(column))})"
    return f"({name} IS NOT NULL AND {atom})" if column.nullable else atom


def _array_cast(column: sa.Column[Any]) -> str:
    return next((cast for kind, cast in _ARRAY_CASTS if isinstance(column.type, kind)), "")


__all__ = ["Params", "to_sql_text"]
