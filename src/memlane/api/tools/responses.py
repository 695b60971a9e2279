"""Success responses of the agent tools over HTTP (``/v1/tools``), as built by
api/tools/routes.py; a tool's own result is the tool service's."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class ToolSpec(TypedDict):
    name: str
    description: str
    inputSchema: dict[str, Any]


@closed
class ToolList(TypedDict):
    """Each tool with the JSON Schema of its arguments, and the same in OpenAI function form."""

    tools: list[ToolSpec]
    openai: list[dict[str, Any]]


@with_config(ConfigDict(extra="allow"))
class ToolResult(TypedDict):
    """A tool's own result: its fields depend on the tool (docs/api-tools.md, and each tool's
    ``outputSchema`` where it has one); failures use the ToolError envelope."""
