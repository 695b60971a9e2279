"""Indexes for the retention sweep: recall audits by age, finished jobs by status and age.

The sweep (services/retention.py) deletes the oldest rows of every tenant in batches; without
these it would scan both tables whole on every run.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_recall_audit_created", "recall_audit", ["created_at"])
    op.create_index("ix_jobs_finished", "jobs", ["status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_jobs_finished", table_name="jobs")
    op.drop_index("ix_recall_audit_created", table_name="recall_audit")
