"""The export file, one JSON object per line, each with a ``record`` kind.

``header`` first (format, version, the embedding model and dimension, whether vectors are
included); then per scope its ``commit`` rows (oldest first), its ``node`` records and its
``edge`` records; then the memory batcher's ``batcher_buffer`` records (messages buffered for
ingestion, per app, user and session); per tenant its ``knowledge_item`` and
``knowledge_sync`` records. Rules,
conversation notes, layered and tool memories are all nodes (distinguished by type, layer
and slots), so they travel as nodes. Times are ISO 8601 with the offset; vectors, when
included, are lists of floats.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from memlane.domain.errors import InvalidRequest
from memlane.domain.model import Edge, Node
from memlane.services.conversation.batcher import RESTORED_FIELDS
from memlane.store.base import edge_from_mapping, node_from_mapping
from memlane.store.batcher import BufferKey, BufferState
from memlane.store.knowledge import KnowledgeRecord, SyncStateRecord

FORMAT = "memlane-export"
VERSION = 1

HEADER, COMMIT, NODE, EDGE, BATCHER_BUFFER, KNOWLEDGE_ITEM, KNOWLEDGE_SYNC = (
    "header",
    "commit",
    "node",
    "edge",
    "batcher_buffer",
    "knowledge_item",
    "knowledge_sync",
)
KINDS = (HEADER, COMMIT, NODE, EDGE, BATCHER_BUFFER, KNOWLEDGE_ITEM, KNOWLEDGE_SYNC)

#: validity intervals and when they were closed (domain/validity.py), on nodes and edges
INTERVAL_TIMES = ("valid_at", "invalid_at", "expired_at")
NODE_TIMES = ("expires_at", "created_at", "updated_at", "last_activated", *INTERVAL_TIMES)
EDGE_TIMES = ("created_at", "updated_at", *INTERVAL_TIMES)
COMMIT_TIMES = ("created_at", "erased_at")
KNOWLEDGE_TIMES = ("created_at", "updated_at")
SYNC_TIMES = ("synced_at",)
BUFFER_TIMES = ("last_append_at", "last_flush_at")


def _jsonable(values: dict[str, Any], times: tuple[str, ...]) -> dict[str, Any]:
    out = dict(values)
    for name in times:
        value = out.get(name)
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def _parsed(values: dict[str, Any], times: tuple[str, ...], where: str) -> dict[str, Any]:
    out = dict(values)
    for name in times:
        value = out.get(name)
        if value is None:
            continue
        try:
            out[name] = datetime.fromisoformat(str(value))
        except ValueError:
            raise InvalidRequest(
                f"{where}: {name} is not an ISO 8601 time: {value!r}",
                code="invalid_export_record",
                details={"field": name},
            ) from None
    return out


def node_record(node: Node, vector: list[float] | None) -> dict[str, Any]:
    out = {"record": NODE, **_jsonable(dataclasses.asdict(node), NODE_TIMES)}
    if vector is not None:
        out["embedding"] = vector
    return out


def edge_record(edge: Edge) -> dict[str, Any]:
    return {"record": EDGE, **_jsonable(dataclasses.asdict(edge), EDGE_TIMES)}


def commit_record(row: dict[str, Any]) -> dict[str, Any]:
    return {"record": COMMIT, **_jsonable(row, COMMIT_TIMES)}


def knowledge_record(rec: KnowledgeRecord) -> dict[str, Any]:
    return {"record": KNOWLEDGE_ITEM, **_jsonable(dataclasses.asdict(rec), KNOWLEDGE_TIMES)}


def sync_record(tenant_id: str, rec: SyncStateRecord) -> dict[str, Any]:
    return {"record": KNOWLEDGE_SYNC, "tenant_id": tenant_id, **_jsonable(dataclasses.asdict(rec), SYNC_TIMES)}


def buffer_record(state: BufferState) -> dict[str, Any]:
    k = state.key
    values = {name: getattr(state, name) for name in RESTORED_FIELDS}
    key = {"tenant_id": k.tenant_id, "app_id": k.app_id, "user_id": k.user_id, "session_id": k.session_id}
    return {"record": BATCHER_BUFFER, **key, **_jsonable(values, BUFFER_TIMES)}


def _fields(cls: type[Any]) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def _require(d: dict[str, Any], names: set[str], where: str) -> None:
    missing = sorted(n for n in names if n not in d)
    if missing:
        raise InvalidRequest(
            f"{where}: missing {', '.join(missing)}", code="invalid_export_record", details={"field": missing[0]}
        )


def parse_node(d: dict[str, Any], where: str) -> tuple[Node, list[float] | None]:
    _require(d, {"tenant_id", "id", "scope", "type"}, where)
    values = {f: d.get(f) for f in _fields(Node)}
    defaults = dataclasses.asdict(Node(tenant_id="", id="", scope="", type=""))
    values = {k: (defaults[k] if v is None and defaults[k] is not None else v) for k, v in values.items()}
    node = node_from_mapping(_parsed(values, NODE_TIMES, where))
    vector = d.get("embedding")
    if vector is not None and not (isinstance(vector, list) and all(isinstance(x, int | float) for x in vector)):
        raise InvalidRequest(
            f"{where}: embedding must be a list of numbers",
            code="invalid_export_record",
            details={"field": "embedding"},
        )
    return node, vector


def parse_edge(d: dict[str, Any], where: str) -> Edge:
    _require(d, {"tenant_id", "id", "scope", "type", "src_id", "dst_id"}, where)
    values = {f: d.get(f) for f in _fields(Edge)}
    for name, default in (("weight", 1.0), ("confidence", 1.0), ("decay_rate", 0.0)):
        if values[name] is None:
            values[name] = default
    return edge_from_mapping(_parsed(values, EDGE_TIMES, where))


def parse_commit(d: dict[str, Any], where: str) -> dict[str, Any]:
    _require(d, {"tenant_id", "id", "scope", "seq", "commit_hash", "input_sha256", "kind", "diff", "created_at"}, where)
    return _parsed({k: v for k, v in d.items() if k != "record"}, COMMIT_TIMES, where)


def parse_knowledge(d: dict[str, Any], where: str) -> KnowledgeRecord:
    _require(d, {"tenant_id", "id", "type", "layer", "title", "content_hash", "created_at", "updated_at"}, where)
    values = {f: d[f] for f in _fields(KnowledgeRecord) if f in d}
    return KnowledgeRecord(**_parsed(values, KNOWLEDGE_TIMES, where))


def parse_sync(d: dict[str, Any], where: str) -> tuple[str, SyncStateRecord]:
    _require(d, {"tenant_id", "item_id", "node_id", "scope", "content_hash", "synced_at"}, where)
    values = {f: d[f] for f in _fields(SyncStateRecord)}
    return str(d["tenant_id"]), SyncStateRecord(**_parsed(values, SYNC_TIMES, where))


def parse_buffer(d: dict[str, Any], where: str) -> BufferState:
    _require(d, {"tenant_id", "app_id", "user_id", "messages", "next_seq"}, where)
    values = _parsed({name: d.get(name) for name in RESTORED_FIELDS}, BUFFER_TIMES, where)
    if not isinstance(values["messages"], list) or not all(isinstance(m, dict) for m in values["messages"]):
        raise InvalidRequest(
            f"{where}: messages must be a list of objects", code="invalid_export_record", details={"field": "messages"}
        )
    for name in ("next_seq", "flushed_messages"):
        value = values[name] if values[name] is not None else 0
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidRequest(
                f"{where}: {name} must be a whole number >= 0", code="invalid_export_record", details={"field": name}
            )
        values[name] = value
    if not isinstance(values["viewer"] or {}, dict):
        raise InvalidRequest(
            f"{where}: viewer must be an object", code="invalid_export_record", details={"field": "viewer"}
        )
    values["viewer"] = values["viewer"] or {}
    session = d.get("session_id")
    key = BufferKey(str(d["tenant_id"]), str(d["app_id"]), str(d["user_id"]), str(session) if session else None)
    return BufferState(key=key, **values)
