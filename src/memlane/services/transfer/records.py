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
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memlane.domain.errors import InvalidRequest
from memlane.domain.inputs import JsonLimits, escaped
from memlane.domain.model import Edge, Node
from memlane.domain.node_fields import EDGE_TIME_FIELDS, NODE_TIME_FIELDS
from memlane.services.conversation.batcher import RESTORED_FIELDS
from memlane.services.knowledge.model import ItemInput, build_record, content_hash
from memlane.services.transfer.record_models import (
    BufferRecord,
    CommitRecord,
    EdgeRecord,
    HeaderRecord,
    KnowledgeItemRecord,
    NodeRecord,
    SyncRecord,
)
from memlane.store.batcher import BufferKey, BufferState
from memlane.store.knowledge import KnowledgeRecord, SyncStateRecord

M = TypeVar("M", bound=BaseModel)

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

#: the fields that hold times, as text in the file (domain/node_fields.py)
NODE_TIMES = NODE_TIME_FIELDS
EDGE_TIMES = EDGE_TIME_FIELDS
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


def record_error(line: int, field: str, message: str, code: str = "invalid_export_record") -> InvalidRequest:
    """A bad record: 400 naming its line and field (``details.line``, ``details.field``)."""
    return InvalidRequest(f"line {line}: {field}: {message}", code=code, details={"line": line, "field": field})


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + escaped(str(part))
    return out or "record"


def validated(model: type[M], d: dict[str, Any], line: int) -> M:
    """``d`` as ``model``, or a 400 naming the line and the first field that is wrong."""
    try:
        return model.model_validate(d)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise record_error(line, _field_path(first["loc"]), first["msg"] + more) from None


def parse_header(d: dict[str, Any], line: int) -> HeaderRecord:
    if d.get("record") != HEADER or d.get("format") != FORMAT:
        raise record_error(
            line, "record", f"an export file starts with its header record (format {FORMAT!r})", "invalid_export_file"
        )
    if d.get("version") != VERSION:
        raise record_error(
            line, "version", f"export format version {d.get('version')!r} is not {VERSION}", "invalid_export_file"
        )
    return validated(HeaderRecord, d, line)


def parse_node(d: dict[str, Any], line: int, header: HeaderRecord) -> tuple[Node, list[float] | None]:
    """A node and its vector. A vector must have the dimension the header declares (when it
    declares one): a file whose vectors disagree with its own header is not what was exported."""
    r = validated(NodeRecord, d, line)
    declared = header.embedding_dimension
    if r.embedding is not None and declared is not None and len(r.embedding) != declared:
        raise record_error(line, "embedding", f"has {len(r.embedding)} dimensions; the file's header says {declared}")
    node = Node(**r.model_dump(exclude={"record", "embedding"}))
    return node, r.embedding


def parse_edge(d: dict[str, Any], line: int) -> Edge:
    r = validated(EdgeRecord, d, line)
    return Edge(**r.model_dump(exclude={"record"}))


def parse_commit(d: dict[str, Any], line: int) -> CommitRecord:
    return validated(CommitRecord, d, line)


def parse_knowledge(d: dict[str, Any], line: int, limits: JsonLimits) -> KnowledgeRecord:
    """An item, checked as one written through the API (``build_record``: its type, layer,
    status, constraints and patterns), keeping its version, successors and times. Its
    content hash is computed here, not taken from the file."""
    r = validated(KnowledgeItemRecord, d, line)
    raw = ItemInput(
        id=r.id,
        type=r.type,
        layer=r.layer,
        title=r.title,
        summary=r.summary,
        content=r.content,
        status=r.status,
        severity=r.severity,
        tags=r.tags,
        constraints=r.constraints,
        metadata=r.metadata,
        supersedes=r.supersedes,
        source=r.source,
    )
    try:
        item = build_record(r.tenant_id, raw, where="item", limits=limits)
    except InvalidRequest as exc:
        field = str((exc.details or {}).get("field", "item")).removeprefix("item.")
        raise record_error(line, field, exc.message.split(": ", 1)[-1]) from None
    item.summary = r.summary
    item.superseded_by = list(r.superseded_by)
    item.version = r.version
    item.created_at = r.created_at
    item.updated_at = r.updated_at
    item.content_hash = content_hash(item)
    return item


def parse_sync(d: dict[str, Any], line: int) -> tuple[str, SyncStateRecord]:
    r = validated(SyncRecord, d, line)
    state = SyncStateRecord(
        item_id=r.item_id, node_id=r.node_id, scope=r.scope, content_hash=r.content_hash, synced_at=r.synced_at
    )
    return r.tenant_id, state


def parse_buffer(d: dict[str, Any], line: int) -> BufferState:
    r = validated(BufferRecord, d, line)
    if r.viewer is not None and r.viewer.tenant_id != r.tenant_id:
        raise record_error(line, "viewer.tenant_id", "must be the buffer's tenant")
    previous = -1
    for i, m in enumerate(r.messages):
        if not previous < m.seq < r.next_seq:
            raise record_error(line, f"messages[{i}].seq", "must grow from message to message and stay below next_seq")
        previous = m.seq
    key = BufferKey(r.tenant_id, r.app_id, r.user_id, r.session_id or None)
    values = r.model_dump(include=set(RESTORED_FIELDS))
    values["messages"] = [m.model_dump(exclude_unset=True) for m in r.messages]
    values["viewer"] = r.viewer.model_dump() if r.viewer is not None else {}
    return BufferState(key=key, **values)
