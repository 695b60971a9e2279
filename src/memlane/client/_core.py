"""What the sync and async clients share: how a call is described, which failures are
retried and how long to wait, credentials, and turning answers into typed results."""

from __future__ import annotations

import email.utils
import math
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from memlane.client.errors import MemlaneAPIError, MemlaneRedirectError, error_from

M = TypeVar("M", bound=BaseModel)

#: statuses worth retrying: rate limited (the request was refused, so always safe) and the
#: server or a proxy in front of it being unavailable (safe only for a call that is safe twice)
RATE_LIMITED = 429
UNAVAILABLE = frozenset({502, 503, 504})


@dataclass(frozen=True, slots=True)
class Call:
    """One HTTP call. ``safe_to_repeat``: doing it twice is the same as once (reads, deletes,
    and POSTs carrying an Idempotency-Key), so it may be retried after a 5xx or a lost
    connection; any call is retried after a 429."""

    method: str
    path: str
    json: Any = None
    params: dict[str, Any] | None = None
    safe_to_repeat: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_sec: float = 0.5
    max_wait_sec: float = 60.0

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """``Retry-After`` when the server sent a usable one, else exponential backoff; never
        more than ``max_wait_sec``."""
        if retry_after is not None and math.isfinite(retry_after) and retry_after >= 0:
            return min(retry_after, self.max_wait_sec)
        return float(min(self.backoff_sec * (2 ** min(attempt, 64)), self.max_wait_sec))

    def retry_status(self, call: Call, status: int, attempt: int) -> bool:
        if attempt >= self.max_retries:
            return False
        return status == RATE_LIMITED or (status in UNAVAILABLE and call.safe_to_repeat)

    def retry_transport(self, call: Call, attempt: int) -> bool:
        return attempt < self.max_retries and call.safe_to_repeat


def retry_after_of(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds, or None when the answer has no usable one.

    RFC 9110 allows a number of seconds or an HTTP date (a past date means now). Whatever
    else a server or a proxy in front of it sends (``nan``, ``inf``, a negative number, a
    date that is not one) is None, so the caller falls back to its own backoff instead of
    raising from ``sleep``; ``RetryPolicy.wait`` bounds every wait by ``max_wait_sec``."""
    raw = (response.headers.get("retry-after") or "").strip()
    if not raw:
        return None
    seconds: float | None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = _seconds_until(raw)
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def _seconds_until(http_date: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(http_date)
        if when.tzinfo is None:  # "-0000": UTC without a claim about the local zone
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return None


#: read-your-writes (docs/sdk.md): a write's answer carries its commit position, which the
#: client sends back on later requests so that a read replica serves them only once it has it
POSITION_HEADER = "X-Memlane-Position"
READ_AFTER_HEADER = "X-Memlane-Read-After"


def _position_order(position: str) -> tuple[int, str]:
    """Positions are ``lsn:`` and 16 hex digits; any other form sorts before them."""
    digits = position[4:] if position.startswith("lsn:") else ""
    try:
        return int(digits, 16), position
    except ValueError:
        return -1, position


class WritePositions:
    """The latest position of this client's own writes, sent as ``X-Memlane-Read-After`` on
    its requests so that none reads from a replica that has not replayed them (the server
    looks at it on reads only). ``enabled`` False: nothing is remembered or sent.

    A plain attribute swap: concurrent requests of one client may race to note a position,
    and a position lost that way only makes a later read less strict about an older write,
    never read an older state than the newer write the winner noted."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.latest: str | None = None

    def note(self, response: httpx.Response) -> None:
        position = response.headers.get(POSITION_HEADER)
        if not self.enabled or not position or not response.is_success:
            return
        latest = self.latest
        if latest is None or _position_order(position) > _position_order(latest):
            self.latest = position

    def headers(self) -> dict[str, str]:
        return {READ_AFTER_HEADER: self.latest} if self.enabled and self.latest else {}


def auth_headers(api_key: str | None, jwt: str | None) -> dict[str, str]:
    headers = {"user-agent": "memlane-python-client"}
    if api_key:
        headers["X-Api-Key"] = api_key
    if jwt:
        headers["Authorization"] = f"Bearer {jwt}"
    return headers


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the fields that are set (``None`` means: let the server's default hold)."""
    return {k: v for k, v in fields.items() if v is not None}


def with_idempotency_key(call: Call, key: str | None) -> Call:
    """The call with an ``Idempotency-Key`` (the caller's, else a new one): the same key is
    sent on every retry, so a retried POST never creates a second task."""
    headers = {**call.headers, "Idempotency-Key": key or uuid.uuid4().hex}
    return Call(call.method, call.path, call.json, call.params, True, headers, call.timeout)


def checked(response: httpx.Response) -> httpx.Response:
    if 300 <= response.status_code < 400:
        raise MemlaneRedirectError(response.status_code, response.headers.get("location"))
    if response.status_code >= 400:
        raise error_from(response, retry_after_of(response))
    return response


def parse(model: type[M], response: httpx.Response) -> M:
    return model.model_validate(response.json())


__all__ = ["POSITION_HEADER", "READ_AFTER_HEADER", "Call", "MemlaneAPIError", "RetryPolicy", "WritePositions",
           "auth_headers", "body", "checked", "parse", "retry_after_of", "with_idempotency_key"]  # fmt: skip
