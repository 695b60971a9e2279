"""Edges carry the scope revision that last wrote them, like nodes.

The embedded store keeps each scope's edges in memory for recall's neighbourhood expansion
and refreshes them by revision, the way it already refreshes vectors (store/sqlite/edge_cache.py).
Existing edges get revision 0; a cache always starts with a full load.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("edges") as batch:
        batch.add_column(sa.Column("rev", sa.BigInteger, nullable=False, server_default="0"))
    op.create_index("ix_edges_scope_rev", "edges", ["tenant_id", "scope", "rev"])


def downgrade() -> None:
    op.drop_index("ix_edges_scope_rev", table_name="edges")
    with op.batch_alter_table("edges") as batch:
        batch.drop_column("rev")
