"""``SqlStore``: the Store protocol's shared SQLAlchemy Core half, composed from one class per
concern. SqliteStore and PostgresStore add the rest: the hooks of core.py, recall's hot reads
(nodes, briefs and embeddings by id, edges around a frontier), vector and keyword search,
and job leasing.

| module | concern |
| --- | --- |
| core.py | engine, transactions, scope lock and commit chain (hooks) |
| writes.py | apply_write (running the plans of domain/node_plan.py, edge_plan.py), patch_nodes, delete_nodes |
| reads.py | find_nodes, client ids, commits |
| embeddings.py | pending vectors, set, failed, stale after a model change |
| jobs.py | the job queue but leasing |
| lifecycle.py | scans, mutate_nodes, redirect_edges, delete_edges |
| audit.py | the recall audit log |
| erasure.py | erase everything of a scope, user, agent or tenant |
| history.py | a scope's commit chain read out and restored (export/import) |
| secrets.py | server secrets every replica shares (the erasure receipt's HMAC key) |
"""

from __future__ import annotations

from memlane.store.sql.audit import RecallAuditLog
from memlane.store.sql.embeddings import EmbeddingWrites
from memlane.store.sql.erasure import Erasure
from memlane.store.sql.history import CommitHistory
from memlane.store.sql.lifecycle import Lifecycle
from memlane.store.sql.reads import GraphReads
from memlane.store.sql.secrets import ServerSecrets
from memlane.store.sql.writes import GraphWrites


class SqlStore(
    GraphWrites, GraphReads, EmbeddingWrites, Lifecycle, RecallAuditLog, CommitHistory, Erasure, ServerSecrets
):
    """The shared implementation; the backends subclass it."""


__all__ = ["SqlStore"]
