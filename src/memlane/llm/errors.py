"""LLM failures, each mapped to a status so the worker knows whether a retry can help.

Transport problems (timeouts, 429, 5xx) are retryable upstream errors; an answer that is not
the JSON we asked for is :class:`MalformedOutput`, which the structured-output helper retries
once before giving up with the permanent :class:`LLMOutputInvalid`.
"""

from __future__ import annotations

from typing import Any

from memlane.domain.errors import MemlaneError, UpstreamError


class LLMUnavailable(UpstreamError):
    status = 503
    code = "upstream_llm_unavailable"


class LLMRateLimited(UpstreamError):
    status = 429
    code = "upstream_llm_rate_limited"


class LLMTimeout(UpstreamError):
    status = 504
    code = "upstream_llm_timeout"


class LLMBadResponse(UpstreamError):
    """The endpoint answered, but not with a chat completion (wrong URL, proxy page, 4xx)."""

    status = 502
    code = "upstream_llm_bad_response"


class MalformedOutput(Exception):
    """The completion's content is not valid JSON for the requested schema."""

    def __init__(self, message: str, *, raw: str | None = None):
        super().__init__(message)
        self.raw = raw


class LLMOutputInvalid(MemlaneError):
    """Permanent: the model answered malformed output twice; retrying the task would not help."""

    status = 422
    code = "llm_malformed_output"


class LLMBudgetExhausted(MemlaneError):
    """Permanent: the request used up its LLM call budget (bounded cost per ingestion)."""

    status = 422
    code = "llm_call_budget_exhausted"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None):
        super().__init__(message, details=details)
