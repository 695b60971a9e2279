"""The ToolError envelope, for HTTP responses and MCP tool results alike."""

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
    415: "INVALID_INPUT",
    421: "INVALID_INPUT",
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


def tool_envelope(
    status: int, code: str, message: str, details: dict[str, Any] | None, retryable: bool | None = None
) -> dict[str, Any]:
    """The ToolError envelope, for every transport: a tool-specific code (upper case) stands,
    any other failure is named by its status; ``retryable`` follows the status unless the
    error says otherwise."""
    body: dict[str, Any] = {
        "success": False,
        "errorCode": code if code.isupper() else TOOL_CODES.get(status, "PROVIDER_ERROR"),
        "message": message,
        "retryable": status in RETRYABLE_STATUS if retryable is None else retryable,
    }
    if details:
        body["details"] = details
    return body


def envelope(exc: MemlaneError) -> dict[str, Any]:
    return tool_envelope(exc.status, exc.code, exc.message, exc.details, exc.retryable)


def internal_envelope(reference: str) -> dict[str, Any]:
    return {
        "success": False,
        "errorCode": "PROVIDER_ERROR",
        "message": f"internal error (reference {reference})",
        "retryable": True,
    }
