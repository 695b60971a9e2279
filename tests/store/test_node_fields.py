"""A node's fields are declared once, on ``Node`` with their roles (domain/node_fields.py).
The shapes that must stay written out (typed for mypy, or for the OpenAPI document) are held
here to the lists derived from it, so a field added to ``Node`` cannot be missed by a write,
a response, the table or an export."""

from __future__ import annotations

import dataclasses
import typing

from memlane.api.graph.requests import WriteNodeIn
from memlane.api.graph.responses import META_FIELDS, GraphNode, Interval
from memlane.domain.model import Edge, Node
from memlane.domain.node_fields import (
    EDGE_FIELDS,
    GIVEN_NODE_FIELDS,
    GRAPH_NODE_FIELDS,
    META_NODE_FIELDS,
    NODE_FIELDS,
    UPDATABLE_NODE_FIELDS,
    edge_from_mapping,
    node_from_mapping,
    node_values,
)
from memlane.services.transfer.record_models import EdgeRecord, NodeRecord
from memlane.services.writing import WriteNodeSpec
from memlane.store.schema import edges, nodes

#: a node's columns besides its fields: the vector, its dimension, the insertion order, the revision
VECTOR_AND_BOOKKEEPING = {"embedding", "embedding_dim", "row_no", "rev"}


def test_a_write_spec_takes_every_field_a_write_may_give() -> None:
    spec = {f.name for f in dataclasses.fields(WriteNodeSpec)}
    assert spec == {*GIVEN_NODE_FIELDS, "embedding", "fields_set"}


def test_the_graph_write_request_takes_the_graph_surface_fields() -> None:
    assert set(WriteNodeIn.model_fields) == {*GRAPH_NODE_FIELDS, "embedding"}
    assert set(GRAPH_NODE_FIELDS) <= set(GIVEN_NODE_FIELDS)


def test_an_update_changes_only_fields_a_write_gives_and_the_topic_state_it_derives() -> None:
    assert set(UPDATABLE_NODE_FIELDS) - set(GIVEN_NODE_FIELDS) == {"topic_state"}
    assert not {"tenant_id", "id", "scope", "client_id", "created_at", "commit_id"} & set(UPDATABLE_NODE_FIELDS)


def test_include_meta_shows_the_fields_the_response_schema_documents() -> None:
    assert META_FIELDS == META_NODE_FIELDS
    documented = set(typing.get_type_hints(GraphNode)) - set(typing.get_type_hints(Interval))
    always_or_topic = {"id", "type", "title", "text_summary", "topic_state", "member_count", "slots", "slots_preview"}
    assert documented - always_or_topic == set(META_NODE_FIELDS)


def test_the_nodes_table_holds_every_node_field() -> None:
    assert {c.name for c in nodes.c} == {*NODE_FIELDS, *VECTOR_AND_BOOKKEEPING}
    assert {c.name for c in edges.c} == {*EDGE_FIELDS, "rev"}


def test_an_export_record_carries_every_node_and_edge_field() -> None:
    assert set(NodeRecord.model_fields) == {*NODE_FIELDS, "record", "embedding"}
    assert set(EdgeRecord.model_fields) == {*EDGE_FIELDS, "record"}


def test_a_node_read_back_from_its_values_is_the_same_node() -> None:
    node = Node(tenant_id="t", id="n", scope="s", type="event", title="kept", slots={"a": 1}, tags=["x"])
    assert node_from_mapping(node_values(node)) == node
    assert node_from_mapping({**node_values(node), "slots": None, "tags": None}).slots == {}
    edge = Edge(tenant_id="t", id="e", scope="s", type="related_to", src_id="a", dst_id="b", weight=0.5)
    assert edge_from_mapping(dataclasses.asdict(edge)) == edge
