"""Every list of node fields, derived from the one declaration: ``Node`` (domain/model.py),
whose fields carry their roles.

A new node field is written once, on ``Node``, with its roles; the store's rows, the write's
updatable fields, the meta a recall shows and the times an export converts follow. The typed
shapes that must stay explicit (``WriteNodeSpec``, the API's ``WriteNodeIn`` and ``GraphNode``
for the OpenAPI document, the export's ``NodeRecord``, the table in store/schema.py) are held
to these lists by tests/store/test_node_fields.py.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from collections.abc import Mapping
from typing import Any

from memlane.domain.model import GIVEN, GRAPH, META, UPDATABLE, Edge, Node

#: every field of a node, in ``Node``'s order (a store row holds them and the vector's columns)
NODE_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Node))


def having(role: str) -> tuple[str, ...]:
    """The node fields with ``role``, in ``Node``'s order."""
    return tuple(f.name for f in dataclasses.fields(Node) if role in f.metadata.get("roles", ()))


#: what a write may give (``WriteNodeSpec``: these, its vector and which it gave)
GIVEN_NODE_FIELDS = having(GIVEN)
#: what the graph surface's write takes (``WriteNodeIn``: these and a vector)
GRAPH_NODE_FIELDS = having(GRAPH)
#: node columns an upsert may change, when the write gives them
UPDATABLE_NODE_FIELDS = having(UPDATABLE)
#: what a recall shows of a node with ``include_meta``
META_NODE_FIELDS = having(META)


def _of_type(cls: type, wanted: type) -> tuple[str, ...]:
    """The fields of ``cls`` whose type is ``wanted`` (or ``wanted | None``)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        if any((typing.get_origin(o) or o) is wanted for o in options):
            out.append(f.name)
    return tuple(out)


#: node fields that hold times (text in an export file and in SQLite's rows)
NODE_TIME_FIELDS = _of_type(Node, dt.datetime)
#: node fields that hold JSON (SQLite's rows keep them as text)
NODE_JSON_FIELDS = (*_of_type(Node, dict), *_of_type(Node, list))
#: every field of an edge, in ``Edge``'s order
EDGE_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Edge))
EDGE_TIME_FIELDS = _of_type(Edge, dt.datetime)


def node_values(node: Node) -> dict[str, Any]:
    """Every field of ``node`` by name (a shallow copy: a store row's values)."""
    return {name: getattr(node, name) for name in NODE_FIELDS}


def edge_values(edge: Edge) -> dict[str, Any]:
    """Every field of ``edge`` by name (a store row's values but its ``rev``)."""
    return {name: getattr(edge, name) for name in EDGE_FIELDS}


def node_from_mapping(m: Mapping[str, Any]) -> Node:
    """A ``Node`` from column values that already have their Python types."""
    values = {name: m[name] for name in NODE_FIELDS}
    values["slots"] = values["slots"] or {}
    values["tags"] = list(values["tags"] or [])
    return Node(**values)


def edge_from_mapping(m: Mapping[str, Any]) -> Edge:
    """An ``Edge`` from column values that already have their Python types."""
    return Edge(**{name: m[name] for name in EDGE_FIELDS})


__all__ = [
    "EDGE_FIELDS",
    "EDGE_TIME_FIELDS",
    "GIVEN_NODE_FIELDS",
    "GRAPH_NODE_FIELDS",
    "META_NODE_FIELDS",
    "NODE_FIELDS",
    "NODE_JSON_FIELDS",
    "NODE_TIME_FIELDS",
    "UPDATABLE_NODE_FIELDS",
    "edge_from_mapping",
    "edge_values",
    "having",
    "node_from_mapping",
    "node_values",
]
