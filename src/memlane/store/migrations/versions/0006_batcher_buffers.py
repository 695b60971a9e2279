"""Memory batcher buffers: pending conversation messages per (tenant, app, user, session),
flushed into conversation ingestion by size or after an idle timeout.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memlane.store.types import JSONType, UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "batcher_buffers",
        sa.Column("tenant_id", sa.String(128), nullable=False),
        sa.Column("app_id", sa.String(256), nullable=False),
        sa.Column("user_id", sa.String(256), nullable=False),
        sa.Column("session_key", sa.String(256), nullable=False),
        sa.Column("session_id", sa.String(256)),
        sa.Column("messages", JSONType, nullable=False),
        sa.Column("next_seq", sa.BigInteger, nullable=False),
        sa.Column("viewer", JSONType, nullable=False),
        sa.Column("last_append_at", UTCDateTime),
        sa.Column("idle_job_id", sa.String(36)),
        sa.Column("last_delivery", sa.String(32)),
        sa.Column("last_task_id", sa.String(36)),
        sa.Column("last_flush_at", UTCDateTime),
        sa.Column("last_flush_reason", sa.String(16)),
        sa.Column("flushed_messages", sa.BigInteger, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "app_id", "user_id", "session_key", name="pk_batcher_buffers"),
    )


def downgrade() -> None:
    op.drop_table("batcher_buffers")
