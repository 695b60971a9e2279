"""Success responses of the agent tools (``/v1/tools``) and knowledge (``/v1/knowledge``)
routes, as built by api/tools.py, api/tools_dto.py and services/knowledge/views.py."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

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


@closed
class KnowledgeItem(TypedDict):
    id: str
    type: str
    layer: str
    title: str
    summary: str
    content: str
    status: str
    severity: str
    tags: list[str]
    metadata: dict[str, Any]
    createdAt: str | None
    updatedAt: str | None
    supersedes: NotRequired[str]
    constraints: NotRequired[list[dict[str, Any]]]
    version: str
    source: str | None
    supersededBy: list[str]


@closed
class Version(TypedDict):
    version: str
    timestamp: str | None
    author: str
    message: str | None


@closed
class ItemList(TypedDict):
    success: Literal[True]
    items: list[KnowledgeItem]
    totalCount: int


@closed
class ItemReply(TypedDict):
    success: Literal[True]
    item: KnowledgeItem
    history: NotRequired[list[Version]]


@closed
class ItemDeleted(TypedDict):
    success: Literal[True]
    message: str


@closed
class History(TypedDict):
    success: Literal[True]
    history: list[Version]


@closed
class ImportedItem(TypedDict):
    id: str
    version: str
    status: str


@closed
class ImportReply(TypedDict):
    success: Literal[True]
    items: list[ImportedItem]
