"""Knowledge repository: items, their version history, and the state of their sync into memory.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memlane.store.types import JSONType, UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TENANT = sa.String(128)
ITEM_ID = sa.String(200)


def upgrade() -> None:
    op.create_table(
        "knowledge_items",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", ITEM_ID, nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("layer", sa.String(16), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("severity", sa.String(8), nullable=False),
        sa.Column("tags", JSONType, nullable=False),
        sa.Column("constraints", JSONType, nullable=False),
        sa.Column("metadata", JSONType, nullable=False),
        sa.Column("supersedes", ITEM_ID),
        sa.Column("superseded_by", JSONType, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("source", sa.String(1024)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_knowledge_items"),
    )
    op.create_index("ix_knowledge_items_status", "knowledge_items", ["tenant_id", "status"])
    op.create_index("ix_knowledge_items_type_layer", "knowledge_items", ["tenant_id", "type", "layer"])

    op.create_table(
        "knowledge_versions",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("item_id", ITEM_ID, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("author", sa.String(256)),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("snapshot", JSONType, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "item_id", "version", name="pk_knowledge_versions"),
    )

    op.create_table(
        "knowledge_sync_state",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("item_id", ITEM_ID, nullable=False),
        sa.Column("node_id", sa.String(36), nullable=False),
        sa.Column("scope", sa.String(256), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("synced_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "item_id", name="pk_knowledge_sync_state"),
    )

    op.create_table(
        "knowledge_sync_runs",
        sa.Column("tenant_id", TENANT, nullable=False),
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("job_id", sa.String(36)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("forced", sa.Boolean, nullable=False),
        sa.Column("added", sa.Integer, nullable=False),
        sa.Column("updated", sa.Integer, nullable=False),
        sa.Column("deleted", sa.Integer, nullable=False),
        sa.Column("unchanged", sa.Integer, nullable=False),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("failed_items", JSONType, nullable=False),
        sa.Column("duration_ms", sa.Float, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("finished_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_knowledge_sync_runs"),
    )
    op.create_index("ix_knowledge_sync_runs_time", "knowledge_sync_runs", ["tenant_id", "finished_at"])


def downgrade() -> None:
    for table in ("knowledge_sync_runs", "knowledge_sync_state", "knowledge_versions", "knowledge_items"):
        op.drop_table(table)
