"""The store's contracts: one small Protocol per concern, and ``Store``, all of them at once.

A service is typed with the narrowest contracts it calls (a reader cannot write, the worker
cannot read the graph), in the manner of Graphiti's ``driver/operations``. Only what builds
the process (services/container.py) and the SQL implementation (store/sql/store.py) see the
whole ``Store``.

Every method takes ``tenant_id`` first: isolation is enforced here, so an endpoint that
forgets a check still cannot read across tenants. The store holds no policy: defaults,
validation and ranking live in ``memlane.services`` and ``memlane.domain``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from memlane.store.contracts.audit import AuditOps, RetentionOps
from memlane.store.contracts.connection import ConnectionOps
from memlane.store.contracts.embeddings import EmbeddingOps
from memlane.store.contracts.erasure import ErasureOps, SecretOps
from memlane.store.contracts.graph_reads import EdgeReadOps, NodeReadOps, SearchOps
from memlane.store.contracts.graph_writes import GraphWriteOps
from memlane.store.contracts.history import CommitReadOps, HistoryOps
from memlane.store.contracts.jobs import JobLeaseOps, JobProgressOps, JobSubmitOps, QueueStatsOps
from memlane.store.contracts.maintenance import GraphMaintenanceOps, ScopeScanOps


@runtime_checkable
class Store(
    ConnectionOps,
    GraphWriteOps,
    NodeReadOps,
    SearchOps,
    EdgeReadOps,
    EmbeddingOps,
    JobSubmitOps,
    JobProgressOps,
    JobLeaseOps,
    QueueStatsOps,
    CommitReadOps,
    HistoryOps,
    AuditOps,
    RetentionOps,
    ScopeScanOps,
    GraphMaintenanceOps,
    ErasureOps,
    SecretOps,
    Protocol,
):
    """Everything the services need from persistence, and nothing more."""


__all__ = [
    "AuditOps",
    "CommitReadOps",
    "ConnectionOps",
    "EdgeReadOps",
    "EmbeddingOps",
    "ErasureOps",
    "GraphMaintenanceOps",
    "GraphWriteOps",
    "HistoryOps",
    "JobLeaseOps",
    "JobProgressOps",
    "JobSubmitOps",
    "NodeReadOps",
    "QueueStatsOps",
    "RetentionOps",
    "ScopeScanOps",
    "SearchOps",
    "SecretOps",
    "Store",
]
