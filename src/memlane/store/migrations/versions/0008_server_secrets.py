"""Server secrets: keys the server generates once and every replica shares, kept in the
database because replicas share nothing else. The first is the key of the erasure receipt's
subject HMAC (domain/erasure.py), used unless MEMLANE_ERASURE_HASH_KEY is set.

Not tenant data, so no tenant_id: one row per secret for the whole server.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memlane.store.types import UTCDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.String(256), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_server_secrets"),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
