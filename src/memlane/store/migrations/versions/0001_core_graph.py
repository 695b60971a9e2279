"""Core graph: nodes, edges, commits, scope heads, jobs, recall audit, keyword index.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memlane.store.types import Embedding, JSONType, UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TENANT = sa.String(128)
ID = sa.String(36)
SCOPE = sa.String(256)

SQLITE_FTS = [
    "CREATE VIRTUAL TABLE nodes_fts USING fts5(text, tokenize='porter unicode61')",
    """CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes BEGIN
         INSERT INTO nodes_fts(rowid, text)
         VALUES (new.row_no, coalesce(new.title, '') || ' ' || coalesce(new.text_summary, ''));
       END""",
    """CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes BEGIN
         DELETE FROM nodes_fts WHERE rowid = old.row_no;
       END""",
    """CREATE TRIGGER nodes_fts_au AFTER UPDATE OF title, text_summary ON nodes BEGIN
         DELETE FROM nodes_fts WHERE rowid = old.row_no;
         INSERT INTO nodes_fts(rowid, text)
         VALUES (new.row_no, coalesce(new.title, '') || ' ' || coalesce(new.text_summary, ''));
       END""",
]

POSTGRES_PRE = ["CREATE EXTENSION IF NOT EXISTS vector", "CREATE SEQUENCE IF NOT EXISTS nodes_row_no_seq"]
POSTGRES_FTS = [
    """ALTER TABLE nodes ADD COLUMN tsv tsvector GENERATED ALWAYS AS
         (to_tsvector('english', coalesce(title, '') || ' ' || coalesce(text_summary, ''))) STORED""",
    "CREATE INDEX ix_nodes_tsv ON nodes USING gin (tsv)",
]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for stmt in POSTGRES_PRE:
            op.execute(stmt)
    op.create_table(
        "nodes",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("scope", SCOPE, nullable=False),
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
        sa.Column("commit_id", ID),
        sa.Column("row_no", sa.BigInteger, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_nodes"),
    )
    op.create_index("ux_nodes_client_id", "nodes", ["tenant_id", "scope", "client_id"], unique=True)
    op.create_index("ux_nodes_row_no", "nodes", ["tenant_id", "row_no"], unique=True)
    op.create_index("ix_nodes_row_no_global", "nodes", ["row_no"])
    op.create_index("ix_nodes_scope_rev", "nodes", ["tenant_id", "scope", "rev"])
    op.create_index("ix_nodes_embedding_status", "nodes", ["tenant_id", "embedding_status"])
    op.create_index("ix_nodes_scope_type", "nodes", ["tenant_id", "scope", "type"])
    op.create_index("ix_nodes_scope_user", "nodes", ["tenant_id", "scope", "user_id"])
    op.create_index("ix_nodes_task", "nodes", ["tenant_id", "task_id"])
    op.create_index("ix_nodes_expires", "nodes", ["tenant_id", "expires_at"])

    op.create_table(
        "edges",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("scope", SCOPE, nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("src_id", ID, nullable=False),
        sa.Column("dst_id", ID, nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("decay_rate", sa.Float, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("commit_id", ID),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_edges"),
    )
    op.create_index("ux_edges_endpoints", "edges", ["tenant_id", "scope", "type", "src_id", "dst_id"], unique=True)
    op.create_index("ix_edges_src", "edges", ["tenant_id", "src_id"])
    op.create_index("ix_edges_dst", "edges", ["tenant_id", "dst_id"])

    op.create_table(
        "commits",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("scope", SCOPE, nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("parent_id", ID),
        sa.Column("parent_hash", sa.String(64)),
        sa.Column("commit_hash", sa.String(64), nullable=False),
        sa.Column("actor", sa.String(256)),
        sa.Column("input_sha256", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("model_version", sa.String(128)),
        sa.Column("prompt_version", sa.String(128)),
        sa.Column("diff", JSONType, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_commits"),
    )
    op.create_index("ux_commits_scope_seq", "commits", ["tenant_id", "scope", "seq"], unique=True)

    op.create_table(
        "scope_heads",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("scope", SCOPE, nullable=False),
        sa.Column("head_commit_id", ID),
        sa.Column("head_hash", sa.String(64)),
        sa.Column("commit_seq", sa.BigInteger, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "scope", name="pk_scope_heads"),
    )

    op.create_table(
        "jobs",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("scope", SCOPE),
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
    op.create_index("ix_jobs_ready", "jobs", ["status", "run_after"])
    op.create_index("ux_jobs_idempotency", "jobs", ["tenant_id", "kind", "idempotency_key"], unique=True)

    op.create_table(
        "recall_audit",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("scope", SCOPE, nullable=False),
        sa.Column("endpoint", sa.String(64), nullable=False),
        sa.Column("consumer_agent_id", sa.String(256)),
        sa.Column("consumer_team_id", sa.String(256)),
        sa.Column("query_sha256", sa.String(64)),
        sa.Column("seed_ids", JSONType, nullable=False),
        sa.Column("returned_count", sa.Integer, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_recall_audit"),
    )
    op.create_index("ix_recall_audit_scope_time", "recall_audit", ["tenant_id", "scope", "created_at"])

    statements = SQLITE_FTS if dialect == "sqlite" else POSTGRES_FTS
    for stmt in statements:
        op.execute(stmt)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in ("nodes_fts_ai", "nodes_fts_ad", "nodes_fts_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS nodes_fts")
    for table in ("recall_audit", "jobs", "scope_heads", "commits", "edges", "nodes"):
        op.drop_table(table)
    if dialect == "postgresql":
        op.execute("DROP SEQUENCE IF EXISTS nodes_row_no_seq")
