"""Prometheus metrics of the process, all named ``memlane_*``; ``/metrics`` exposes them.

Counters and histograms live in ``prometheus_client``'s default registry (with its process
and Python collectors), so they count across every app of the process. Figures read from the
store (queue depth, embedding backlog) are not kept here: ``/metrics`` reads them at scrape
time (api/system/metrics.py), so they are right whichever process did the work.

Labels are bounded: routes are templates, never raw paths, and tenants are not a label
(their number is unbounded; quota rejections are counted per bucket).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Histogram

#: request latencies span a cached recall (~1 ms) to a slow ingestion (seconds)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    "memlane_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "memlane_http_request_duration_seconds",
    "Time to the start of the response, by method, route template and status",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
RECALL_STAGE_SECONDS = Histogram(
    "memlane_recall_stage_duration_seconds",
    "Time spent in each recall stage: embed (the query), vector, keyword, graph, rank",
    ["stage"],
    buckets=LATENCY_BUCKETS,
)
QUOTA_REJECTIONS = Counter(
    "memlane_quota_rejections",
    "Requests refused with 429 because a tenant's quota bucket was empty, by bucket",
    ["bucket"],
)
LLM_CALLS = Counter("memlane_llm_calls", "Chat completions sent to the LLM endpoint, by outcome", ["outcome"])
LLM_TOKENS = Counter("memlane_llm_tokens", "Tokens the LLM endpoint reported using (its `usage`), by kind", ["kind"])
WEBHOOK_DELIVERIES = Counter(
    "memlane_webhook_deliveries",
    "Summary webhook delivery attempts, by outcome (delivered, retryable, permanent)",
    ["outcome"],
)

JOB_RUNS = Counter(
    "memlane_job_runs",
    "Job runs this process's worker finished, by kind and outcome (completed; retrying: failed, "
    "queued again after a backoff; failed: failed for good)",
    ["kind", "outcome"],
)

READS = Counter(
    "memlane_reads",
    "Read requests routed with read replicas configured, by the database that served them (replica, primary)",
    ["source"],
)
READ_AFTER = Counter(
    "memlane_read_after",
    "Reads that sent X-Memlane-Read-After, by outcome: replica (one had replayed the position), "
    "replica_after_wait (one did within MEMLANE_READ_AFTER_WAIT_MS), primary_fallback",
    ["outcome"],
)

RECALL_STAGES = ("embed", "vector", "keyword", "graph", "rank")
_STAGE_CHILDREN = {s: RECALL_STAGE_SECONDS.labels(s) for s in RECALL_STAGES}


def observe_stage(stage: str, seconds: float) -> None:
    _STAGE_CHILDREN[stage].observe(seconds)


@contextmanager
def recall_stage(stage: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        observe_stage(stage, time.perf_counter() - started)
