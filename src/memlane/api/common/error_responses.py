"""The error envelope of each surface as a schema, so ``/openapi.json`` can name it on every
error response (api/common/errors.py renders them; api/common/openapi.py documents them)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class GraphError(TypedDict):
    """``/v1/memory/*``: a machine code, a message naming the field, details when there are any."""

    error: str
    message: str
    details: NotRequired[dict[str, Any]]


@closed
class ConversationError(TypedDict):
    """``/api/v1/*``: the conversation contract's ``{"detail"}``."""

    detail: str


@closed
class LayersError(TypedDict):
    """``/v1/layers/*``: the layered contract's envelope."""

    success: Literal[False]
    error_type: str
    message: str
    details: NotRequired[dict[str, Any]]


@closed
class ToolError(TypedDict):
    """``/v1/tools/*``, ``/v1/knowledge/*`` and MCP: the ToolError envelope."""

    success: Literal[False]
    errorCode: str
    message: str
    details: NotRequired[dict[str, Any]]
    retryable: bool


ENVELOPES: dict[str, type] = {
    "graph": GraphError,
    "conversation": ConversationError,
    "layers": LayersError,
    "tools": ToolError,
}
