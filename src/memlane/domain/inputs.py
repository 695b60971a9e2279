"""What memlane accepts as input, the same on every surface, on both backends and in imports.

**Text it can store.** PostgreSQL stores no U+0000 (NUL) in ``text`` or ``jsonb``, and no
backend can encode a lone surrogate (U+D800 to U+DFFF) as UTF-8. SQLite would keep a NUL, so
the two backends answered the same request differently (a 500 on PostgreSQL). memlane refuses
both everywhere, with a 400 naming the field, before anything is stored: ``unstorable`` and
``find_unstorable`` are the one check, applied to request bodies (api/common/body.py), query and
path parameters, tool arguments (services/tools/service.py) and import records.

**Names and ids.** Server-made ids (nodes, edges, commits, jobs) are UUIDs; every id a
caller sends (a ``client_id``, a memory or task id) is ``[A-Za-z0-9._:-]``, so no id can
change a URL it is put in (``?``, ``#``, ``/``). Tenants, scopes, users, agents, teams,
sessions and other names may be any text without control characters (``NAME_PATTERN``),
within the lengths the store's columns hold (a tenant 128 characters, a scope 200, so
``<scope>#workspace`` fits).

**Free-form JSON** (a node's ``slots``, metadata, planner contexts...) is bounded in depth,
keys and size (``JsonLimits``; settings ``MEMLANE_JSON_MAX_*``).

The pydantic types here are shared by the request models of every surface (api/*/requests.py) and
the import's record models (services/transfer/record_models.py), so a record is held to the
same rules as the request that would have written it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

import pydantic_core
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from memlane.domain.clock import as_utc

#: characters no backend stores: NUL (PostgreSQL ``text``/``jsonb``) and lone surrogates (not UTF-8)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
#: a JSON ``\u0000`` escape in raw bytes (the only way a NUL gets into a JSON document)
_NUL_ESCAPE = b"\\u0000"

#: names (tenant, scope, user, agent, team, session, actor, tag...): no control characters
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*$"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: every id a caller sends or gets (node ids, ``mem_`` ids, a ``client_id``, task ids): the
#: server's ids are UUIDs, its own client ids ``conv:<uuid>:0``, ``knowledge:<item id>``...
ID_PATTERN = r"^[A-Za-z0-9._:-]*$"
_ID = re.compile(ID_PATTERN)
#: a UUID as memlane writes it (``domain/clock.py`` ``new_id``): lower-case, hyphenated
UUID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
_UUID = re.compile(UUID_PATTERN)

MAX_TENANT_LENGTH = 128
#: 256 (the column) less ``#workspace``, the suffix of the layered surface's workspace scope
MAX_SCOPE_LENGTH = 200
MAX_NAME_LENGTH = 256
MAX_ID_LENGTH = 256
#: model and prompt versions (their columns hold 128)
MAX_VERSION_LENGTH = 128
MAX_TAG_LENGTH = 128


def describe(char: str) -> str:
    code = ord(char)
    if code == 0:
        return "U+0000 (NUL)"
    # a file or a line read with surrogate escapes holds its non-UTF-8 bytes as U+DC80-U+DCFF
    return f"U+{code:04X} (a lone surrogate: text that is not UTF-8)"


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored (the character, described), or None."""
    found = UNSTORABLE.search(text)
    return describe(found.group()) if found else None


Path = tuple[str | int, ...]


def find_unstorable(value: Any, at: Path = ()) -> tuple[Path, str] | None:
    """The first string (key or value) of a JSON value that cannot be stored: its path and why.

    Iterative, so any depth is fine. A key's path ends with the key, escaped (``\\u0000``)."""
    stack: list[tuple[Any, Path]] = [(value, at)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            problem = unstorable(item)
            if problem is not None:
                return path, problem
        elif isinstance(item, dict):
            for key, member in item.items():
                if isinstance(key, str):
                    problem = unstorable(key)
                    if problem is not None:
                        return (*path, escaped(key)), f"the key contains {problem}"
                stack.append((member, (*path, key)))
        elif isinstance(item, list | tuple):
            stack.extend((member, (*path, i)) for i, member in enumerate(item))
    return None


def escaped(text: str) -> str:
    """``text`` with unstorable characters written as ``\\uXXXX``, safe to echo in an error."""
    return UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_may_hold_nul(raw: bytes) -> bool:
    """Whether a JSON document's bytes decode to a string with a NUL: a ``\\u0000`` escape whose
    backslash is not itself escaped. Runs at C speed; a body without one needs no walk."""
    start = raw.find(_NUL_ESCAPE)
    while start >= 0:
        backslashes = 0
        i = start - 1
        while i >= 0 and raw[i] == 0x5C:  # "\\"
            backslashes += 1
            i -= 1
        if backslashes % 2 == 0:
            return True
        start = raw.find(_NUL_ESCAPE, start + 1)
    return False


# --- free-form JSON -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class JsonLimits:
    """Bounds of one free-form JSON value (a node's ``slots``, a metadata object...)."""

    #: containers nested in each other (``{"a": {"b": 1}}`` is 2)
    max_depth: int = 32
    #: object keys, counted over the whole value
    max_keys: int = 1000
    #: the value written as compact JSON (UTF-8)
    max_bytes: int = 64 * 1024

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is beyond these limits, or None. Iterative (no recursion), and stops
        early: a value with more members than fit in ``max_bytes`` is not walked to its end.
        Only containers are visited (a write checks the ``slots`` of every node it holds)."""
        # every JSON value takes at least two bytes with its separator ("0,")
        max_values = self.max_bytes // 2 + 1
        stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
        values = keys = 0
        while stack:
            item, depth = stack.pop()
            if depth > self.max_depth:
                return f"is nested deeper than {self.max_depth} levels (MEMLANE_JSON_MAX_DEPTH)"
            members: Any = item
            if isinstance(item, dict):
                keys += len(item)
                if keys > self.max_keys:
                    return f"has more than {self.max_keys} keys (MEMLANE_JSON_MAX_KEYS)"
                members = item.values()
            values += len(item)
            if values > max_values:
                return self._too_big()
            for member in members:
                if isinstance(member, dict | list):
                    stack.append((member, depth + 1))
        try:
            size = len(pydantic_core.to_json(value))
        except pydantic_core.PydanticSerializationError:
            size = len(pydantic_core.to_json(value, fallback=str))
        return self._too_big() if size > self.max_bytes else None

    def _too_big(self) -> str:
        return f"is more than {self.max_bytes} bytes as JSON (MEMLANE_JSON_MAX_BYTES)"


#: the limits free-form fields are checked against: set per request from the settings
#: (api/common/body.py) and by an import; the defaults otherwise
DEFAULT_JSON_LIMITS = JsonLimits()
JSON_LIMITS: ContextVar[JsonLimits] = ContextVar("memlane_json_limits", default=DEFAULT_JSON_LIMITS)


@contextlib.contextmanager
def json_limits(limits: JsonLimits) -> Iterator[None]:
    token = JSON_LIMITS.set(limits)
    try:
        yield
    finally:
        JSON_LIMITS.reset(token)


def within_limits(value: Any) -> Any:
    problem = JSON_LIMITS.get().problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


class Strict(BaseModel):
    """The base of every request and import record model. Unknown fields are refused: a
    misspelt bound should fail loudly, not be ignored. Values are strict too: ``0`` is not
    ``false`` and ``2.0`` is not ``2``, as the schema says; NaN and infinities are refused."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


# --- the checks behind the pydantic types ---------------------------------------------------
def check_name(value: Any) -> Any:
    """A name holds no control character (a tab or a line break in an id is never meant)."""
    if isinstance(value, str) and _CONTROL.search(value):
        raise ValueError("must be text without control characters (U+0000-U+001F, U+007F-U+009F)")
    return value


def is_id(value: str) -> bool:
    """Whether ``value`` is an id in the one alphabet, 1 to ``MAX_ID_LENGTH`` characters."""
    return 0 < len(value) <= MAX_ID_LENGTH and _ID.match(value) is not None


def check_id(value: Any) -> Any:
    if isinstance(value, str) and not _ID.match(value):
        raise ValueError("must be letters, digits, '.', '_', ':' or '-'")
    return value


def check_uuid(value: str) -> str:
    if not _UUID.match(value):
        raise ValueError("must be a UUID in lower case with hyphens (8-4-4-4-12 hex digits)")
    return value


#: a tenant id: its column holds 128 characters
TenantName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_TENANT_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]
#: a scope (the conversation surface's ``app_id``)
ScopeName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_SCOPE_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]
#: an agent, team, user or session id, an actor, a run id, a model name...
Name = Annotated[
    str,
    Field(min_length=1, max_length=MAX_NAME_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]
#: a model or prompt version
VersionName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_VERSION_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]
#: a tag
TagName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_TAG_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(check_name),
]
#: a caller's key for a node
ClientId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID_LENGTH, json_schema_extra={"pattern": ID_PATTERN}),
    AfterValidator(check_id),
]
#: an id sent back to look something up (a memory, a task)
IdText = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID_LENGTH, json_schema_extra={"pattern": ID_PATTERN}),
    AfterValidator(check_id),
]
#: a server-made id (node, edge, commit, job) as text
UuidText = Annotated[
    str, Field(min_length=36, max_length=36, json_schema_extra={"pattern": UUID_PATTERN}), AfterValidator(check_uuid)
]


def _iso_text(value: object) -> object:
    """JSON carries an instant as an ISO-8601 string (a number is not read as epoch seconds)."""
    if isinstance(value, str | datetime):
        return value
    raise ValueError("must be an ISO-8601 date-time string")


#: an instant: ISO-8601 text, held as aware UTC (no zone: UTC); not strict inside strict
#: models (a string must become a datetime), but only text
Instant = Annotated[datetime, BeforeValidator(_iso_text), Field(strict=False), AfterValidator(as_utc)]


def object_only(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError("must be a JSON object")
    return value


#: a free-form JSON object within ``JSON_LIMITS`` (a node's ``slots``, metadata)
FreeObject = Annotated[dict[str, Any], BeforeValidator(object_only), AfterValidator(within_limits)]

__all__ = [
    "ID_PATTERN",
    "JSON_LIMITS",
    "MAX_ID_LENGTH",
    "MAX_SCOPE_LENGTH",
    "MAX_TENANT_LENGTH",
    "NAME_PATTERN",
    "UUID_PATTERN",
    "ClientId",
    "FreeObject",
    "IdText",
    "Instant",
    "JsonLimits",
    "Name",
    "ScopeName",
    "Strict",
    "TagName",
    "TenantName",
    "UuidText",
    "VersionName",
    "check_id",
    "check_name",
    "check_uuid",
    "escaped",
    "find_unstorable",
    "is_id",
    "json_limits",
    "json_may_hold_nul",
    "object_only",
    "unstorable",
]
