"""Table definitions used to build queries; the Alembic migrations create them.

Every table carries ``tenant_id`` first in its primary and unique keys, so the same schema
can be distributed by tenant on Citus (docs/operations.md).
"""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa

from memlane.domain.model import NodeBrief
from memlane.store.types import Embedding, JSONType, UTCDateTime

metadata = sa.MetaData()

nodes = sa.Table(
    "nodes",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("client_id", sa.String(256)),
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("tier", sa.String(16), nullable=False),
    sa.Column("title", sa.Text),
    sa.Column("text_summary", sa.Text),
    sa.Column("slots", JSONType, nullable=False),
    sa.Column("raw_ref", sa.Text),
    sa.Column("evidence_ref", sa.Text),
    sa.Column("memory_lane", sa.String(16), nullable=False),
    sa.Column("producer_agent_id", sa.String(256)),
    sa.Column("owner_agent_id", sa.String(256)),
    sa.Column("owner_team_id", sa.String(256)),
    sa.Column("salience", sa.Float, nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("embedding", Embedding),
    sa.Column("embedding_status", sa.String(16), nullable=False),
    sa.Column("embedding_model", sa.String(256)),
    sa.Column("embedding_dim", sa.Integer),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("topic_state", sa.String(16)),
    sa.Column("layer", sa.String(32)),
    sa.Column("user_id", sa.String(256)),
    sa.Column("session_id", sa.String(256)),
    sa.Column("task_id", sa.String(256)),
    sa.Column("agent", sa.String(256)),
    sa.Column("tags", JSONType, nullable=False),
    sa.Column("expires_at", UTCDateTime),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("last_activated", UTCDateTime),
    sa.Column("commit_id", sa.String(36)),
    sa.Column("row_no", sa.BigInteger, nullable=False),
    sa.Column("rev", sa.BigInteger, nullable=False),
    sa.Column("valid_at", UTCDateTime),
    sa.Column("invalid_at", UTCDateTime),
    sa.Column("expired_at", UTCDateTime),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_nodes"),
)

edges = sa.Table(
    "edges",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("src_id", sa.String(36), nullable=False),
    sa.Column("dst_id", sa.String(36), nullable=False),
    sa.Column("weight", sa.Float, nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("decay_rate", sa.Float, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("commit_id", sa.String(36)),
    sa.Column("rev", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("valid_at", UTCDateTime),
    sa.Column("invalid_at", UTCDateTime),
    sa.Column("expired_at", UTCDateTime),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_edges"),
)

commits = sa.Table(
    "commits",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("parent_id", sa.String(36)),
    sa.Column("parent_hash", sa.String(64)),
    sa.Column("commit_hash", sa.String(64), nullable=False),
    sa.Column("actor", sa.String(256)),
    sa.Column("input_sha256", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("model_version", sa.String(128)),
    sa.Column("prompt_version", sa.String(128)),
    sa.Column("diff", JSONType, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("erased_at", UTCDateTime),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_commits"),
)

scope_heads = sa.Table(
    "scope_heads",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("head_commit_id", sa.String(36)),
    sa.Column("head_hash", sa.String(64)),
    sa.Column("commit_seq", sa.BigInteger, nullable=False),
    sa.Column("rev", sa.BigInteger, nullable=False),
    sa.Column("epoch", sa.BigInteger, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "scope", name="pk_scope_heads"),
)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256)),
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("payload", JSONType, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("max_attempts", sa.Integer, nullable=False),
    sa.Column("idempotency_key", sa.String(256)),
    sa.Column("run_after", UTCDateTime, nullable=False),
    sa.Column("lease_owner", sa.String(128)),
    sa.Column("lease_expires_at", UTCDateTime),
    sa.Column("last_error", sa.Text),
    sa.Column("result", JSONType),
    sa.Column("progress", JSONType),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_jobs"),
)

recall_audit = sa.Table(
    "recall_audit",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("scope", sa.String(256), nullable=False),
    sa.Column("endpoint", sa.String(64), nullable=False),
    sa.Column("consumer_agent_id", sa.String(256)),
    sa.Column("consumer_team_id", sa.String(256)),
    sa.Column("query_sha256", sa.String(64)),
    sa.Column("seed_ids", JSONType, nullable=False),
    sa.Column("returned_count", sa.Integer, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_recall_audit"),
)

audit_events = sa.Table(
    "audit_events",
    metadata,
    sa.Column("tenant_id", sa.String(128), nullable=False),
    sa.Column("id", sa.String(36), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("actor", sa.String(256)),
    sa.Column("subject_kind", sa.String(16)),
    sa.Column("subject_sha256", sa.String(64)),
    sa.Column("counts", JSONType, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_audit_events"),
)

#: keys the server generates once and every replica shares (not tenant data: no tenant_id)
server_secrets = sa.Table(
    "server_secrets",
    metadata,
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("value", sa.String(256), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("name", name="pk_server_secrets"),
)

NODE_COLUMNS_NO_VECTOR = [c for c in nodes.c if c.name not in {"embedding"}]

#: the columns of a ``NodeBrief`` (domain/model.py), in its field order
NODE_BRIEF_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(NodeBrief))
