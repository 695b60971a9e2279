"""One exception type per failure kind, each with a stable code.

Surfaces translate these into their own envelopes in one place (``api/common/errors.py``), so a
service never knows which surface called it.
"""

from __future__ import annotations

from typing import Any


class MemlaneError(Exception):
    """Base of every expected failure; ``status`` is the HTTP status it maps to.

    ``retryable`` says whether the same request may succeed later, for envelopes that tell
    (the tools surface); None leaves it to the status (409, 429, 5xx are). A conflict that
    retrying cannot resolve (an id that exists) says False."""

    status: int = 400
    code: str = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
    ):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details
        self.retryable = retryable


class InvalidRequest(MemlaneError):
    status = 400
    code = "invalid_request"


class NotFound(MemlaneError):
    status = 404
    code = "not_found"


class Unauthorized(MemlaneError):
    status = 401
    code = "unauthorized"


class Forbidden(MemlaneError):
    status = 403
    code = "forbidden"


class Conflict(MemlaneError):
    status = 409
    code = "conflict"


class RateLimited(MemlaneError):
    """Carries ``retry_after`` seconds so every surface can set the header."""

    status = 429
    code = "rate_limited"

    def __init__(
        self, message: str, *, retry_after: float, code: str | None = None, details: dict[str, Any] | None = None
    ):
        super().__init__(message, code=code, details=details)
        self.retry_after = retry_after


class UpstreamError(MemlaneError):
    """A provider we depend on (embeddings, LLM) failed; never a generic 500."""

    status = 502
    code = "upstream_error"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        code: str | None = None,
        details: dict[str, Any] | None = None,
    ):
        super().__init__(message, code=code, details=details)
        self.retry_after = retry_after


class UpstreamEmbeddingRateLimited(UpstreamError):
    status = 429
    code = "upstream_embedding_rate_limited"


class UpstreamEmbeddingUnavailable(UpstreamError):
    status = 503
    code = "upstream_embedding_unavailable"


class UpstreamEmbeddingBadResponse(UpstreamError):
    status = 502
    code = "upstream_embedding_bad_response"


class ServiceUnavailable(MemlaneError):
    status = 503
    code = "service_unavailable"


class Overloaded(ServiceUnavailable):
    """503 with ``retry_after``: the background queue is at its bound and the caller's tenant
    holds at least its share of it (services/backlog.py)."""

    code = "backlog_full"

    def __init__(
        self, message: str, *, retry_after: float, backlog: int, limit: int, tenant_backlog: int, tenant_share: int
    ):
        details = {"backlog": backlog, "limit": limit, "tenant_backlog": tenant_backlog, "tenant_share": tenant_share}
        super().__init__(message, details=details)
        self.retry_after = retry_after


class StoreUnavailable(ServiceUnavailable):
    """503 with ``retry_after``: the database cannot answer right now (a failover in progress,
    a connection closed mid-statement, a primary that became read-only or is in recovery, a
    refused connection). The same request may succeed once it is back
    (store/availability.py decides which database errors these are)."""

    code = "store_unavailable"

    def __init__(self, message: str, *, retry_after: float = 1.0):
        super().__init__(message, retryable=True)
        self.retry_after = retry_after
