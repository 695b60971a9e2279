"""Summary delivery to a caller's webhook, as a durable job.

One job run makes at most one delivery attempt; the worker's retry with exponential backoff
(1 s, 2 s, ...) spaces the attempts, and the job row remembers them, so a restart neither
loses a delivery nor exceeds :data:`MAX_ATTEMPTS`. The summary is generated once and kept on
the task: a retried delivery sends the same summary and costs no LLM call.

Retry policy: 2xx is delivered; 408, 429, 5xx and network errors are retried; any other
status (4xx, and 3xx since redirects are not followed) is permanent and ends the task, and so
is a target the address check refuses (webhook_targets.py: checked again at every delivery,
and the connection goes to the address checked).

What an attempt records is what the caller may learn about the target: the status code of an
HTTP answer, never its body (the reply is not even read), and for anything short of an HTTP
answer (refused, reset, timed out, not HTTP) the same words, :data:`NO_RESPONSE`, with no
timing, so a closed port cannot be told from an open one.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

import httpx
from typing_extensions import TypedDict

from memlane.domain.clock import Clock, iso
from memlane.domain.errors import MemlaneError, UpstreamError
from memlane.domain.model import Job
from memlane.llm.structured import CallBudget
from memlane.metrics import WEBHOOK_DELIVERIES
from memlane.services.conversation.summaries import SUMMARY_CALLS, Summarizer
from memlane.services.conversation.task_payloads import SummaryCallbackTask, decode_task
from memlane.services.conversation.webhook_targets import (
    TargetPolicy,
    TargetRefused,
    TargetUnresolved,
    parse_target,
    pinned_request,
)
from memlane.store.contracts.jobs import JobProgressOps

MAX_ATTEMPTS = 3
RETRYABLE_STATUSES = frozenset({408, 429})
USER_AGENT = "memlane-webhook/1"
NO_RESPONSE = "no HTTP response from the receiver"


class WebhookRejected(MemlaneError):
    """Permanent: the receiver refused the delivery, or every attempt was used."""

    status = 424
    code = "webhook_delivery_failed"


class WebhookRetry(UpstreamError):
    """Transient: the worker retries the job after its backoff."""

    status = 502
    code = "webhook_delivery_retry"


@dataclass(slots=True)
class AttemptOutcome:
    outcome: str  # delivered | retryable | permanent
    status_code: int | None
    error: str | None
    #: only when the receiver answered; a failure to get an answer records no timing
    duration_ms: float | None


def classify(status: int) -> str:
    if 200 <= status < 300:
        return "delivered"
    if status in RETRYABLE_STATUSES or status >= 500:
        return "retryable"
    return "permanent"


async def post_once(
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    *,
    policy: TargetPolicy,
    timeout_sec: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AttemptOutcome:
    """One delivery: check the target as it resolves now, connect to the address checked, keep
    the status code and nothing of the reply."""
    try:
        target = parse_target(url)
        addresses = await policy.addresses(target)
    except TargetRefused as exc:
        return AttemptOutcome("permanent", None, f"refused: {exc}", None)
    pinned_url, host, extensions = pinned_request(target, addresses[0])
    started = time.perf_counter()
    try:
        # trust_env=False: a proxy from the environment would connect by name, past the check
        async with (
            httpx.AsyncClient(
                timeout=timeout_sec, follow_redirects=False, transport=transport, trust_env=False
            ) as http,
            http.stream("POST", pinned_url, json=body, headers={**headers, **host}, extensions=extensions) as response,
        ):
            status = response.status_code  # the body is never read
    except httpx.HTTPError:
        return AttemptOutcome("retryable", None, NO_RESPONSE, None)
    outcome = classify(status)
    error = None if outcome == "delivered" else f"HTTP {status}"
    return AttemptOutcome(outcome, status, error, (time.perf_counter() - started) * 1000)


class SummaryCallbacks:
    """Handler of ``conversation.summary_callback`` jobs: summarise once, deliver, record."""

    def __init__(
        self, *, store: JobProgressOps, clock: Clock, summarizer: Summarizer, timeout_sec: float, targets: TargetPolicy
    ):
        self.store = store
        self.clock = clock
        self.summarizer = summarizer
        self.timeout_sec = timeout_sec
        self.targets = targets

    async def check_target(self, url: str) -> None:
        """At submission: :class:`TargetRefused` when the URL names, or resolves to, an address
        that may not receive webhooks. A host that does not resolve yet is accepted: delivery
        resolves and checks it again before connecting."""
        with contextlib.suppress(TargetUnresolved):
            await self.targets.addresses(parse_target(url))

    async def run(self, job: Job) -> DeliveryResult:
        task = decode_task(job)
        if not isinstance(task, SummaryCallbackTask):
            raise ValueError(f"job {job.id} is a {job.kind!r} job, not a summary callback")
        progress = dict(job.progress or {})
        if "summary" not in progress:
            budget = CallBudget(SUMMARY_CALLS, used=int(progress.get("llm_calls", 0)))
            try:
                progress["summary"] = await self.summarizer.summarize(task.conversation(), budget=budget)
            finally:
                progress["llm_calls"] = budget.used
                await self.store.update_job_progress(job, progress, now=self.clock.now())
        attempts: list[dict[str, Any]] = list(progress.get("delivery_attempts", []))
        if len(attempts) >= MAX_ATTEMPTS:
            raise WebhookRejected(f"webhook delivery gave up after {len(attempts)} attempts")
        number = len(attempts) + 1
        # Recorded before sending: a crash mid-request still counts, so the cap holds.
        attempts.append({"attempt": number, "outcome": "in_flight"})
        progress["delivery_attempts"] = attempts
        await self.store.update_job_progress(job, progress, now=self.clock.now())

        body = {
            "task_id": job.id,
            "status": "completed",
            "app_id": task.app_id,
            "user_id": task.user_id,
            "session_id": task.session_id,
            **progress["summary"],
        }
        headers = {
            **task.callback_headers,
            "user-agent": USER_AGENT,
            "x-memlane-task-id": job.id,
            "x-memlane-delivery-attempt": str(number),
        }
        url = task.callback_url
        result = await post_once(url, body, headers, policy=self.targets, timeout_sec=self.timeout_sec)
        WEBHOOK_DELIVERIES.labels(result.outcome).inc()
        attempts[-1].update(outcome=result.outcome, status_code=result.status_code, error=result.error)
        if result.duration_ms is not None:
            attempts[-1].update(duration_ms=round(result.duration_ms, 1), finished_at=iso(self.clock.now()))
        progress["delivery_attempts"] = attempts
        await self.store.update_job_progress(job, progress, now=self.clock.now())
        if result.outcome == "delivered":
            return delivery_result(progress, "delivered", url)
        if result.outcome == "permanent":
            refused = f"webhook {url} was not delivered ({result.error}); not retried"
            raise WebhookRejected(refused, details={"status_code": result.status_code})
        if number >= MAX_ATTEMPTS:
            raise WebhookRejected(f"webhook delivery failed {number} times; last: {result.error}")
        raise WebhookRetry(f"webhook delivery attempt {number} failed ({result.error}); will retry")


class Delivery(TypedDict):
    status: str
    callback_url: str | None
    attempts: list[dict[str, Any]]
    attempt_count: int


class DeliveryResult(TypedDict):
    """What a summary callback task shows: the summary and the delivery history."""

    summary: Any
    llm_calls: int
    delivery: Delivery


def delivery_result(progress: dict[str, Any], status: str, url: str | None) -> DeliveryResult:
    """What the task shows: the summary and the delivery history."""
    attempts = list(progress.get("delivery_attempts", []))
    return {
        "summary": progress.get("summary"),
        "llm_calls": int(progress.get("llm_calls", 0)),
        "delivery": {"status": status, "callback_url": url, "attempts": attempts, "attempt_count": len(attempts)},
    }
