"""The ToolError envelope for transports that are not an HTTP response (MCP tool results)."""

from __future__ import annotations

from typing import Any

from memlane.domain.errors import MemlaneError

TOOL_CODES = {
    400: "INVALID_INPUT",
    401: "UNAUTHORIZED",
    403: "UNAUTHORIZED",
    404: "NOT_FOUND",
    409: "CONFLICT",
    413: "INVALID_INPUT",
    422: "INVALID_INPUT",
    429: "RATE_LIMITED",
    502: "PROVIDER_ERROR",
    503: "PROVIDER_ERROR",
    504: "TIMEOUT",
}
RETRYABLE_STATUS = (409, 429, 502, 503, 504)


class ToolTimeout(MemlaneError):
    """The work is queued and continues; the caller may ask again (sync_status, or retry)."""

    status = 504
    code = "TIMEOUT"


def envelope(exc: MemlaneError) -> dict[str, Any]:
    code = exc.code if exc.code.isupper() else TOOL_CODES.get(exc.status, "PROVIDER_ERROR")
    body: dict[str, Any] = {
        "success": False,
        "errorCode": code,
        "message": exc.message,
        "retryable": exc.status in RETRYABLE_STATUS,
    }
    if exc.details:
        body["details"] = exc.details
    return body


def internal_envelope(reference: str) -> dict[str, Any]:
    return {
        "success": False,
        "errorCode": "PROVIDER_ERROR",
        "message": f"internal error (reference {reference})",
        "retryable": True,
    }
