"""The tools' names, descriptions and JSON Schemas, served as the agent-tools contract writes them (docs/api-tools.md).

memory_add, memory_search, knowledge_query and knowledge_check are the spec's JSON Schemas
verbatim, plus optional properties: for facts over time (``validAt``/``invalidAt`` on
memory_add, ``asOf``/``includeInvalid`` on memory_search), optional and without defaults, so
every call the spec's schema accepts is accepted the same; and on memory_search ``filter``
(``{tags}``), which the spec's own "advanced usage" example sends (unknown filter keys are
refused rather than ignored). memory_delete, knowledge_show, sync_now and sync_status are the
spec's TypeScript inputs written as JSON Schema in the same style.
"""

from __future__ import annotations

from typing import Any

SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"
MEMORY_LAYERS = ["agent", "user", "session", "project", "team", "org", "company"]
KNOWLEDGE_TYPES = ["adr", "policy", "pattern", "spec"]
KNOWLEDGE_LAYERS = ["company", "org", "team", "project"]
KNOWLEDGE_STATUSES = ["draft", "proposed", "accepted", "deprecated", "superseded"]

DESCRIPTIONS: dict[str, str] = {
    "memory_add": (
        "Store a piece of information in memory for future reference. \n"
        "Use this to remember user preferences, project context, decisions made, \n"
        "or any information that should persist across sessions."
    ),
    "memory_search": (
        "Search your memory for relevant past information. Use this to recall \n"
        "user preferences, project context, previous decisions, or any stored knowledge.\n"
        "Results are ranked by relevance and filtered by layer precedence."
    ),
    "memory_delete": (
        "Delete a memory that is no longer relevant or was stored incorrectly.\n"
        "Use this sparingly - memories usually remain valuable for context."
    ),
    "knowledge_query": (
        "Search organizational knowledge for relevant decisions, policies, patterns, \n"
        "or specifications. Use this to find guidance on architectural decisions, \n"
        "coding standards, or established patterns before making changes."
    ),
    "knowledge_check": (
        "Check if planned changes comply with organizational constraints and policies.\n"
        "Use this before adding dependencies, creating files, or making architectural changes\n"
        "to ensure compliance with established standards."
    ),
    "knowledge_show": (
        "Retrieve the complete content of a knowledge item including full text,\n"
        "constraints, and metadata. Use this when you need detailed information\n"
        "about a specific decision, policy, or pattern."
    ),
    "sync_now": (
        "Manually trigger synchronization between memory and knowledge systems.\n"
        "Use this after significant knowledge updates or if you suspect memories\n"
        "are out of date with the latest organizational policies."
    ),
    "sync_status": (
        "Check the status of memory-knowledge synchronization, including\n"
        "last sync time, pending changes, and any sync failures."
    ),
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "memory_add": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "The content to remember"},
            "layer": {
                "type": "string",
                "enum": MEMORY_LAYERS,
                "default": "user",
                "description": "Memory scope",
            },
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags for categorization"},
            "metadata": {"type": "object", "additionalProperties": True, "description": "Additional metadata"},
            "validAt": {
                "type": "string",
                "format": "date-time",
                "description": "When this became true (ISO-8601); omitted: true as far as is known",
            },
            "invalidAt": {
                "type": "string",
                "format": "date-time",
                "description": "When this stopped being true (ISO-8601); omitted: still true",
            },
        },
        "required": ["content"],
    },
    "memory_search": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "layers": {
                "type": "array",
                "items": {"type": "string", "enum": MEMORY_LAYERS},
                "description": "Layers to search",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 10,
                "description": "Maximum results",
            },
            "threshold": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": 0.7,
                "description": "Minimum similarity threshold",
            },
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Filter by tags"},
            "asOf": {
                "type": "string",
                "format": "date-time",
                "description": "Memories that were true at this time (ISO-8601); omitted: true now",
            },
            "includeInvalid": {
                "type": "boolean",
                "description": "Also memories no longer (or not yet) true, with their validAt/invalidAt",
            },
            "filter": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Filter by tags"},
                },
                "additionalProperties": False,
                "description": "Filters (the same as the flat arguments); a result must carry every tag named",
            },
        },
        "required": ["query"],
    },
    "memory_delete": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {"memoryId": {"type": "string", "description": "ID of the memory to delete"}},
        "required": ["memoryId"],
    },
    "knowledge_query": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "type": {"type": "string", "enum": KNOWLEDGE_TYPES, "description": "Filter by type"},
            "layer": {"type": "string", "enum": KNOWLEDGE_LAYERS, "description": "Filter by layer"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Filter by tags"},
            "status": {
                "type": "array",
                "items": {"type": "string", "enum": KNOWLEDGE_STATUSES},
                "default": ["accepted"],
                "description": "Filter by status",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 10,
                "description": "Maximum results",
            },
        },
    },
    "knowledge_check": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["path", "content"],
                },
                "description": "Files to check",
            },
            "dependencies": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                    "required": ["name"],
                },
                "description": "Dependencies to check",
            },
            "minSeverity": {
                "type": "string",
                "enum": ["info", "warn", "block"],
                "default": "warn",
                "description": "Minimum severity to report",
            },
            "knowledgeItemIds": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Specific items to check",
            },
        },
    },
    "knowledge_show": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Knowledge item ID"},
            "includeConstraints": {"type": "boolean", "default": True, "description": "Include constraint definitions"},
            "includeHistory": {"type": "boolean", "default": False, "description": "Include version history"},
        },
        "required": ["id"],
    },
    "sync_now": {
        "$schema": SCHEMA_URI,
        "type": "object",
        "properties": {
            "force": {"type": "boolean", "default": False, "description": "Force full sync (ignore delta detection)"},
            "types": {
                "type": "array",
                "items": {"type": "string", "enum": KNOWLEDGE_TYPES},
                "description": "Only sync specific knowledge types",
            },
            "layers": {
                "type": "array",
                "items": {"type": "string", "enum": KNOWLEDGE_LAYERS},
                "description": "Only sync specific layers",
            },
        },
    },
    "sync_status": {"$schema": SCHEMA_URI, "type": "object", "properties": {}},
}

TOOL_NAMES: tuple[str, ...] = tuple(SCHEMAS)


def openai_functions() -> list[dict[str, Any]]:
    """The same tools in OpenAI function-calling form (``tools=[...]`` of chat completions)."""
    out = []
    for name in TOOL_NAMES:
        params = {k: v for k, v in SCHEMAS[name].items() if k != "$schema"}
        out.append(
            {"type": "function", "function": {"name": name, "description": DESCRIPTIONS[name], "parameters": params}}
        )
    return out
