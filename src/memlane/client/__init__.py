"""memlane's Python SDK: ``MemlaneClient`` (sync) and ``AsyncMemlaneClient`` (async), typed
methods for every operation of the four surfaces (docs/sdk.md).

It depends only on httpx and pydantic, never on the server's modules, so it installs light.
"""

from memlane.client._async_client import AsyncKnowledge, AsyncLayers, AsyncMemlaneClient, AsyncTools
from memlane.client._core import RetryPolicy
from memlane.client._sync_client import Knowledge, Layers, MemlaneClient, Tools
from memlane.client.errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    MemlaneAPIError,
    MemlaneConnectionError,
    MemlaneError,
    MemlaneRedirectError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
)

__all__ = [
    "AsyncKnowledge",
    "AsyncLayers",
    "AsyncMemlaneClient",
    "AsyncTools",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Knowledge",
    "Layers",
    "MemlaneAPIError",
    "MemlaneClient",
    "MemlaneConnectionError",
    "MemlaneError",
    "MemlaneRedirectError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitedError",
    "RetryPolicy",
    "ServerError",
    "Tools",
]
