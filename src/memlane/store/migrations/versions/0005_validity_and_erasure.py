"""Validity intervals on nodes and edges; what erasure needs.

* ``valid_at`` / ``invalid_at`` (event time) and ``expired_at`` (system time: when a later
  commit closed the fact) on nodes and edges, all NULL for existing rows: a fact without an
  interval is valid, as before (domain/validity.py).
* ``commits.erased_at``: an erased commit keeps its hashes and loses its diff.
* ``audit_events``: erasure receipts, counts only, the subject as a sha256.
* ``knowledge_versions.user_id``: the user a version was written for, so an erasure by user
  finds the knowledge items written for that user.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from memlane.store.types import JSONType, UTCDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

INTERVAL_COLUMNS = ("valid_at", "invalid_at", "expired_at")


def upgrade() -> None:
    for table in ("nodes", "edges"):
        with op.batch_alter_table(table) as batch:
            for name in INTERVAL_COLUMNS:
                batch.add_column(sa.Column(name, UTCDateTime))
    with op.batch_alter_table("commits") as batch:
        batch.add_column(sa.Column("erased_at", UTCDateTime))
    with op.batch_alter_table("knowledge_versions") as batch:
        batch.add_column(sa.Column("user_id", sa.String(256)))
    op.create_table(
        "audit_events",
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
    op.create_index("ix_audit_events_time", "audit_events", ["tenant_id", "created_at"])
    # erasure by user walks the tenant's nodes of that user, whatever their scope
    op.create_index("ix_nodes_tenant_user", "nodes", ["tenant_id", "user_id"])


def downgrade() -> None:
    op.drop_index("ix_nodes_tenant_user", table_name="nodes")
    op.drop_index("ix_audit_events_time", table_name="audit_events")
    op.drop_table("audit_events")
    # ALTER TABLE ... DROP COLUMN on both backends (SQLite 3.35+): a batch copy of ``nodes``
    # would drop the keyword index's triggers with the old table
    drops = [("knowledge_versions", "user_id"), ("commits", "erased_at")]
    drops += [(table, name) for table in ("edges", "nodes") for name in INTERVAL_COLUMNS]
    for table, name in drops:
        op.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
