"""Indexes for reading a scope's nodes in id order page by page, and for leasing tenants in turns.

Export and the UI's scope list walk a scope's nodes in keyset pages (``scan_nodes``). With only
the primary key (tenant, id) to follow that order, each page of a small scope read the rest of
the tenant's id range to find it had no more rows: 7.7 ms a scope at 3,000 scopes of one node,
so listing or exporting them took seconds to minutes (issue 26). With (tenant, scope, id) a
page reads its own rows only.

Leases take every tenant's oldest due job before any tenant's second (store/sql/jobs.py). The
tenants with due jobs and each one's oldest are ranges of (status, tenant, kind, run_after, id),
so a lease reads a few index ranges however long the backlog (55 ms with 40,000 jobs due
through a window over all of them, a few ms this way).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_nodes_scope_id", "nodes", ["tenant_id", "scope", "id"])
    op.create_index("ix_jobs_due_by_tenant", "jobs", ["status", "tenant_id", "kind", "run_after", "id"])


def downgrade() -> None:
    op.drop_index("ix_jobs_due_by_tenant", table_name="jobs")
    op.drop_index("ix_nodes_scope_id", table_name="nodes")
