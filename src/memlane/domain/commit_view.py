"""A commit as one viewer may see it: its diff cut to the entries that name only memories the
viewer may see.

A commit records one write of a scope, and one write may touch memories of several lanes (an
agent's private node and the edge from it to a shared node). Listing that commit on the shared
node's history, with its actor and time, would tell every reader of the shared node that
something it may not see is linked to it, and who wrote it. So history is shown per viewer
(docs/security.md, "Commit history"):

* the memory ids a diff names are its UUID-shaped strings, keys or values, except the values
  of keys that name something else (``NOT_MEMORY_KEYS``: a run, an operation, a client's own
  id) and the ``id`` of an edge record (a record with ``src_id`` and ``dst_id``: an edge is
  judged by its two ends);
* an *entry* naming an id the viewer may not see is dropped: a record (an object) naming it in
  one of its fields goes whole, a pair of an id-keyed mapping goes alone, and a list keeps its
  other elements. An id the viewer cannot be shown to see (a memory deleted since, another
  store's commit id inside an imported commit) counts as hidden;
* a history lists a commit only if what is left still names the memory asked about: the
  viewer then sees a change it may see, made by that commit's actor.

The rule is pure (which ids are visible is the caller's question: services/reading.py asks
``visibility_of``), so both backends answer alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: how memlane's ids (nodes, edges, commits: UUIDs) look in a diff
ID_SHAPE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
#: keys whose values identify something other than a memory
NOT_MEMORY_KEYS = frozenset({"client_id", "operation_id", "run_id"})


class _Hidden:
    """What a record naming a hidden memory in one of its fields becomes: nothing."""


HIDDEN = _Hidden()


def is_memory_id(value: object) -> bool:
    return isinstance(value, str) and ID_SHAPE.fullmatch(value) is not None


def _is_edge(record: dict[str, Any]) -> bool:
    return "src_id" in record and "dst_id" in record


def _exempt(record: dict[str, Any], key: str) -> bool:
    """A field whose value is not a memory reference (kept as it is)."""
    return key in NOT_MEMORY_KEYS or (key == "id" and _is_edge(record))


def named_ids(diff: Any) -> set[str]:
    """The memory ids ``diff`` names (see the module docstring)."""
    found: set[str] = set()
    _collect(diff, found)
    return found


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if is_memory_id(key):
                found.add(key)
            if not _exempt(value, key):
                _collect(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _collect(inner, found)
    elif is_memory_id(value):
        found.add(value)


def visible_diff(diff: dict[str, Any], shown: Callable[[str], bool]) -> dict[str, Any]:
    """``diff`` without the entries that name an id ``shown`` refuses."""
    kept = _project(diff, shown)
    return kept if isinstance(kept, dict) else {}


def _project(value: Any, shown: Callable[[str], bool]) -> Any:
    if isinstance(value, dict):
        return _project_record(value, shown)
    if isinstance(value, list):
        return [p for inner in value if (p := _project(inner, shown)) is not HIDDEN]
    if is_memory_id(value) and not shown(value):
        return HIDDEN
    return value


def _project_record(record: dict[str, Any], shown: Callable[[str], bool]) -> Any:
    out: dict[str, Any] = {}
    for key, inner in record.items():
        if is_memory_id(key) and not shown(key):
            continue  # one pair of a mapping keyed by memory id
        if _exempt(record, key):
            out[key] = inner
            continue
        kept = _project(inner, shown)
        if kept is HIDDEN and not isinstance(inner, dict):
            return HIDDEN  # the record names a hidden memory in one of its fields
        if kept is not HIDDEN:
            out[key] = kept
    return out


__all__ = ["HIDDEN", "ID_SHAPE", "NOT_MEMORY_KEYS", "is_memory_id", "named_ids", "visible_diff"]
