"""Exceptions the SDK raises: one class per kind of failure, each carrying the answer's error
envelope as the surface wrote it (graph ``{"error", "message"}``, conversation
``{"detail"}``, layered ``{"success": false, "error_type", "message"}``, tools
``{"success": false, "errorCode", "message", "retryable"}``)."""

from __future__ import annotations

from typing import Any

import httpx


class MemlaneError(Exception):
    """Anything the SDK raises."""


class MemlaneConnectionError(MemlaneError):
    """The server could not be reached (or did not answer in time), retries included."""


class MemlaneRedirectError(MemlaneError):
    """The answer was a redirect (3xx), which the SDK never follows: the credentials it sends
    would go with it to wherever ``location`` points. memlane itself does not redirect; a
    proxy in front of it might (``http://`` -> ``https://``): use the final address as the
    ``base_url``."""

    def __init__(self, status_code: int, location: str | None):
        self.status_code = status_code
        self.location = location
        super().__init__(
            f"{status_code} redirect to {location or '(no location)'} not followed: "
            "the SDK sends credentials only to its base_url; point base_url at the final address"
        )


class MemlaneAPIError(MemlaneError):
    """The server answered with an error status.

    ``code`` is the envelope's machine-readable code (``error``, ``errorCode`` or
    ``error_type``; the conversation surface has none, so the status's name), ``message`` its
    text (``message`` or ``detail``), ``envelope`` the whole body, ``details`` its details.
    """

    def __init__(self, status_code: int, envelope: dict[str, Any], *, retry_after: float | None = None):
        self.status_code = status_code
        self.envelope = envelope
        self.code = str(envelope.get("error") or envelope.get("errorCode") or envelope.get("error_type")
                        or STATUS_CODES.get(status_code, "http_error"))  # fmt: skip
        detail = envelope.get("message", envelope.get("detail"))
        self.message = detail if isinstance(detail, str) else str(detail)
        raw = envelope.get("details")
        self.details: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self.retry_after = retry_after
        super().__init__(f"{status_code} {self.code}: {self.message}")


class BadRequestError(MemlaneAPIError):
    """400: the request is invalid; the message names the field."""


class AuthenticationError(MemlaneAPIError):
    """401: no or wrong credentials."""


class PermissionDeniedError(MemlaneAPIError):
    """403: the credentials may not do this (another tenant, identity mismatch...)."""


class NotFoundError(MemlaneAPIError):
    """404."""


class ConflictError(MemlaneAPIError):
    """409: e.g. an Idempotency-Key reused for a different request."""


class PayloadTooLargeError(MemlaneAPIError):
    """413."""


class RateLimitedError(MemlaneAPIError):
    """429, after the retries; ``retry_after`` says how long the server asked to wait."""


class ServerError(MemlaneAPIError):
    """5xx, after the retries where a retry was safe."""


STATUS_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict",
                413: "payload_too_large", 429: "rate_limited", 500: "internal_error", 502: "bad_gateway",
                503: "unavailable", 504: "timeout"}  # fmt: skip
_CLASSES: dict[int, type[MemlaneAPIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitedError,
}


def error_from(response: httpx.Response, retry_after: float | None) -> MemlaneAPIError:
    try:
        body = response.json()
    except ValueError:
        body = None
    envelope = body if isinstance(body, dict) else {"detail": response.text or response.reason_phrase}
    cls = _CLASSES.get(response.status_code, ServerError if response.status_code >= 500 else MemlaneAPIError)
    return cls(response.status_code, envelope, retry_after=retry_after)
