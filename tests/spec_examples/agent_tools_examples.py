"""Every request example of the agent-tools spec (``../shared/spec/agent-tools.md``), as written.

``text`` is the spec's own text, character for character (``test_examples_are_verbatim``
checks each against the spec when it is beside the repository); ``args`` is what it sends.
The JSON examples are parsed from ``text``; the spec's TypeScript one-liners
(``memory_add({ content: "..." })``) are transcribed to the JSON arguments they denote.
The spec shows no input for memory_delete, knowledge_show, sync_now and sync_status; their
entries are the smallest calls their input schemas allow, marked ``from_schema``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolExample:
    label: str
    tool: str
    text: str
    args: dict[str, Any] = field(default_factory=dict)
    from_schema: bool = False


def _json(label: str, tool: str, text: str) -> ToolExample:
    return ToolExample(label, tool, text, json.loads(text))


MINIMAL_ADD = ToolExample(
    "principle 2: minimal memory_add",
    "memory_add",
    'memory_add({ content: "User prefers TypeScript" })',
    {"content": "User prefers TypeScript"},
)
BASIC_SEARCH = ToolExample(
    "principle 3: basic memory_search",
    "memory_search",
    'memory_search({ query: "database preferences" })',
    {"query": "database preferences"},
)
ADVANCED_SEARCH = ToolExample(
    "principle 3: advanced memory_search",
    "memory_search",
    """memory_search({
  query: "database preferences",
  layers: ["project", "org"],
  limit: 20,
  threshold: 0.8,
  filter: { tags: ["infrastructure"] }
})""",
    {
        "query": "database preferences",
        "layers": ["project", "org"],
        "limit": 20,
        "threshold": 0.8,
        "filter": {"tags": ["infrastructure"]},
    },
)
CONTEXT_SEARCH = ToolExample(
    "principle 5: memory_search without identifiers",
    "memory_search",
    'memory_search({ query: "..." }) // Uses session context automatically',
    {"query": "..."},
)
ADD = _json(
    "memory_add example",
    "memory_add",
    """{
  "content": "User prefers functional programming patterns over OOP",
  "layer": "user",
  "tags": ["preferences", "coding-style"]
}""",
)
SEARCH = _json(
    "memory_search example",
    "memory_search",
    """{
  "query": "What are the user's coding preferences?",
  "layers": ["user", "project"],
  "limit": 5
}""",
)
KNOWLEDGE_QUERY = _json(
    "knowledge_query example",
    "knowledge_query",
    """{
  "query": "database selection",
  "type": "adr",
  "status": ["accepted"]
}""",
)
KNOWLEDGE_CHECK = _json(
    "knowledge_check example",
    "knowledge_check",
    """{
  "dependencies": [
    { "name": "mysql2", "version": "3.0.0" }
  ]
}""",
)
#: the error example answers a request for a knowledge item that does not exist
ERROR_SHOW = ToolExample(
    "error example: unknown knowledge item",
    "knowledge_show",
    '"message": "Knowledge item \'adr-999\' not found"',
    {"id": "adr-999"},
)
SHOW = ToolExample(
    "knowledge_show", "knowledge_show", "id: string;", {"id": "adr-042-database-selection"}, from_schema=True
)
SYNC_NOW = ToolExample("sync_now", "sync_now", "interface SyncNowInput {", {}, from_schema=True)
SYNC_STATUS = ToolExample("sync_status", "sync_status", "interface SyncStatusInput {", {}, from_schema=True)
DELETE = ToolExample("memory_delete", "memory_delete", "memoryId: string;", {}, from_schema=True)

ALL: tuple[ToolExample, ...] = (
    MINIMAL_ADD, BASIC_SEARCH, ADVANCED_SEARCH, CONTEXT_SEARCH, ADD, SEARCH, KNOWLEDGE_QUERY, KNOWLEDGE_CHECK,
    ERROR_SHOW, SHOW, SYNC_NOW, SYNC_STATUS, DELETE,
)  # fmt: skip
