"""``GET /metrics``: Prometheus text format, for the admin channel only.

The process's counters and histograms (memlane/metrics.py) are joined by figures read from
the store at scrape time: jobs by kind and state, and the embedding backlog; and with read
replicas, each replica's lag and rotation as the replica monitor last saw them. They are read
here rather than counted in the process because the worker may be another process (or
several), and the queue is the store's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from memlane.api.common.deps import ServicesDep, admin_authorized
from memlane.domain.errors import Forbidden
from memlane.store.read_routing import ReplicaHealth

router = APIRouter(tags=["system"])

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class StoreFigures(Collector):
    """One scrape's snapshot of the store's queue and backlog."""

    def __init__(self, jobs: dict[tuple[str, str], int], embeddings: dict[str, int]):
        self.jobs = jobs
        self.embeddings = embeddings

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "memlane_jobs", "Jobs in the store's queue, by kind and state", labels=["kind", "state"]
        )
        for (kind, state), n in sorted(self.jobs.items()):
            depth.add_metric([kind, state], n)
        yield depth
        backlog = GaugeMetricFamily(
            "memlane_embedding_backlog",
            "Nodes without a ready vector, by embedding state (pending: queued to embed; failed)",
            labels=["state"],
        )
        for state in sorted({"pending", "failed", *self.embeddings}):
            backlog.add_metric([state], self.embeddings.get(state, 0))
        yield backlog


class ReplicaFigures(Collector):
    """Each read replica's lag and whether it serves reads, as the monitor last saw them."""

    def __init__(self, replicas: list[ReplicaHealth]):
        self.replicas = replicas

    def collect(self) -> Iterator[Metric]:
        lag = GaugeMetricFamily(
            "memlane_replica_lag_ms",
            "Read replica lag: age of the oldest primary position it has not replayed (NaN when unknown)",
            labels=["replica"],
        )
        serving = GaugeMetricFamily(
            "memlane_replica_in_rotation", "1 when the read replica serves reads, else 0", labels=["replica"]
        )
        for replica in self.replicas:
            lag.add_metric([replica.name], math.nan if replica.lag_ms is None else replica.lag_ms)
            serving.add_metric([replica.name], 1 if replica.state == "in_rotation" else 0)
        yield lag
        yield serving


@router.get(
    "/metrics",
    summary="Prometheus metrics (admin channel: X-Admin-Token, or loopback with auth off)",
    response_class=Response,
)
async def metrics(request: Request, svc: ServicesDep) -> Response:
    if not admin_authorized(request):
        raise Forbidden(
            "metrics are served to the admin channel only (X-Admin-Token matching ADMIN_TOKEN; "
            "with auth off and no token set, outside production, a loopback request)",
            code="metrics_forbidden",
        )
    scrape = CollectorRegistry(auto_describe=False)
    scrape.register(StoreFigures(await svc.store.job_counts(), await svc.store.embedding_counts()))
    if svc.reads is not None and svc.reads.has_replicas:
        scrape.register(ReplicaFigures(svc.reads.replicas()))
    return Response(generate_latest(REGISTRY) + generate_latest(scrape), media_type=CONTENT_TYPE)
