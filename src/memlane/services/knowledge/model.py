"""Knowledge items and constraints: the vocabulary, validation, and the content hash.

A constraint is ``{operator, target, pattern, severity?, message?, appliesTo?}``:

operators: ``must_use``, ``must_not_use``, ``must_match``, ``must_not_match``
targets:   ``dependency`` (package names), ``import`` (modules imported by the checked files),
           ``file`` (file paths), ``content`` (file content, line by line; ``code`` is an alias)
pattern:   a regular expression in RE2 syntax (domain/patterns.py: Python's syntax without
           backreferences, lookaround or ``(?x)``), case-insensitive, run in linear time.
           Dependency and import patterns must match the whole name (``mysql|mysql2`` does not
           match ``mysqlx``); file and content patterns match anywhere (use ``^``/``$`` to anchor).
appliesTo: optional glob(s) restricting which file paths a file/content/import constraint sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import canonical_json, sha256_hex
from memlane.domain.inputs import JSON_LIMITS, JsonLimits, find_unstorable
from memlane.domain.patterns import PatternError, UserPattern, compile_pattern
from memlane.store.knowledge import KnowledgeRecord

TYPES: tuple[str, ...] = ("adr", "policy", "pattern", "spec")
LAYERS: tuple[str, ...] = ("company", "org", "team", "project")
STATUSES: tuple[str, ...] = ("draft", "proposed", "accepted", "deprecated", "superseded")
SEVERITIES: tuple[str, ...] = ("info", "warn", "block")
SEVERITY_RANK: dict[str, int] = {"info": 0, "warn": 1, "block": 2}
OPERATORS: tuple[str, ...] = ("must_use", "must_not_use", "must_match", "must_not_match")
TARGETS: tuple[str, ...] = ("dependency", "import", "file", "content")
TARGET_ALIASES: dict[str, str] = {"code": "content", "path": "file", "file_path": "file", "package": "dependency"}
#: allowed status changes through the API; files in the knowledge folder say what they say
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "draft": ("proposed", "accepted", "deprecated"),
    "proposed": ("draft", "accepted", "deprecated"),
    "accepted": ("deprecated", "superseded"),
    "deprecated": ("accepted",),
    "superseded": (),
}
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
MAX_PATTERN = 1000


def constraint_pattern(pattern: str) -> UserPattern:
    """A constraint's pattern as the check runs it: RE2, case-insensitive."""
    return compile_pattern(pattern, max_length=MAX_PATTERN, ignore_case=True)


def invalid(field: str, message: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {message}", code="invalid_request", details={"field": field})


def _choice(value: Any, allowed: tuple[str, ...], field: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise invalid(field, f"must be one of {', '.join(allowed)} (got {value!r})")
    return value


def normalise_constraint(raw: Any, where: str) -> dict[str, Any]:
    """A checked constraint with the canonical target name; regexes are compiled to fail early."""
    if not isinstance(raw, dict):
        raise invalid(where, "a constraint is an object with operator, target and pattern")
    unknown = set(raw) - {"operator", "target", "pattern", "severity", "message", "appliesTo"}
    if unknown:
        raise invalid(where, f"unknown constraint field(s): {', '.join(sorted(unknown))}")
    operator = _choice(raw.get("operator"), OPERATORS, f"{where}.operator")
    target_raw = raw.get("target")
    target = TARGET_ALIASES.get(str(target_raw), target_raw)
    target = _choice(target, TARGETS, f"{where}.target")
    pattern = raw.get("pattern")
    if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_PATTERN:
        raise invalid(f"{where}.pattern", f"must be a non-empty regular expression of at most {MAX_PATTERN} chars")
    try:
        constraint_pattern(pattern)
    except PatternError as exc:
        raise invalid(f"{where}.pattern", f"is not a pattern memlane can run: {exc}") from None
    out: dict[str, Any] = {"operator": operator, "target": target, "pattern": pattern}
    if raw.get("severity") is not None:
        out["severity"] = _choice(raw["severity"], SEVERITIES, f"{where}.severity")
    if raw.get("message") is not None:
        if not isinstance(raw["message"], str):
            raise invalid(f"{where}.message", "must be a string")
        out["message"] = raw["message"]
    applies = raw.get("appliesTo")
    if applies is not None:
        globs = [applies] if isinstance(applies, str) else applies
        if not isinstance(globs, list) or not all(isinstance(g, str) and g for g in globs):
            raise invalid(f"{where}.appliesTo", "must be a glob or a list of globs")
        out["appliesTo"] = globs
    return out


@dataclass(slots=True)
class ItemInput:
    """Fields of an item as a client or a Markdown file gives them, before validation."""

    id: str
    type: Any
    layer: Any
    title: Any
    summary: Any = ""
    content: Any = ""
    status: Any = "draft"
    severity: Any = "warn"
    tags: Any = None
    constraints: Any = None
    metadata: Any = None
    supersedes: Any = None
    source: str | None = None


#: the fields of an item a client or a file gives, checked for text no backend stores
_GIVEN = ("id", "type", "layer", "title", "summary", "content", "status", "severity", "tags", "constraints",
          "metadata", "supersedes")  # fmt: skip


def _check_storable(raw: ItemInput, where: str) -> None:
    """No given field holds text a backend cannot store (named by its path in the item)."""
    for name in _GIVEN:
        found = find_unstorable(getattr(raw, name), (name,))
        if found is not None:
            path, why = found
            field = where + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
            raise invalid(field, f"contains {why}, which memlane does not store")


def _check_text_fields(raw: ItemInput, where: str) -> None:
    """A well-formed id, a non-blank title, and string summary and content."""
    if not isinstance(raw.id, str) or not ID_PATTERN.match(raw.id):
        raise invalid(f"{where}.id", "must be 1-200 characters of letters, digits, '.', '_' or '-'")
    if not isinstance(raw.title, str) or not raw.title.strip():
        raise invalid(f"{where}.title", "is required")
    for name in ("summary", "content"):
        if not isinstance(getattr(raw, name), str):
            raise invalid(f"{where}.{name}", "must be a string")


def _tags(given: Any, where: str) -> list[str]:
    tags = given or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise invalid(f"{where}.tags", "must be a list of strings")
    return tags


def _metadata(given: Any, where: str, limits: JsonLimits | None) -> dict[str, Any]:
    """Free-form JSON within ``limits`` (default: the request's, domain/inputs.py)."""
    metadata = given or {}
    if not isinstance(metadata, dict):
        raise invalid(f"{where}.metadata", "must be an object")
    problem = (limits or JSON_LIMITS.get()).problem(metadata)
    if problem is not None:
        raise invalid(f"{where}.metadata", problem)
    return metadata


def _check_supersedes(raw: ItemInput, where: str) -> None:
    if raw.supersedes is not None and not isinstance(raw.supersedes, str):
        raise invalid(f"{where}.supersedes", "must be an item id")
    if raw.supersedes == raw.id:
        raise invalid(f"{where}.supersedes", "an item cannot supersede itself")


def build_record(
    tenant_id: str, raw: ItemInput, *, where: str = "item", limits: JsonLimits | None = None
) -> KnowledgeRecord:
    """The checked item; every way in (the API, Markdown documents, the knowledge folder)
    comes through here. ``metadata`` is free-form JSON within ``limits`` (default: the
    request's, domain/inputs.py)."""
    _check_storable(raw, where)
    _check_text_fields(raw, where)
    tags = _tags(raw.tags, where)
    constraints = raw.constraints or []
    if not isinstance(constraints, list):
        raise invalid(f"{where}.constraints", "must be a list")
    metadata = _metadata(raw.metadata, where, limits)
    _check_supersedes(raw, where)
    summary = raw.summary.strip() or _first_paragraph(raw.content)
    rec = KnowledgeRecord(
        tenant_id=tenant_id,
        id=raw.id,
        type=_choice(raw.type, TYPES, f"{where}.type"),
        layer=_choice(raw.layer, LAYERS, f"{where}.layer"),
        title=raw.title.strip(),
        summary=summary,
        content=raw.content,
        status=_choice(raw.status, STATUSES, f"{where}.status"),
        severity=_choice(raw.severity, SEVERITIES, f"{where}.severity"),
        tags=list(dict.fromkeys(t.strip() for t in tags if t.strip())),
        constraints=[normalise_constraint(c, f"{where}.constraints[{i}]") for i, c in enumerate(constraints)],
        metadata=metadata,
        supersedes=raw.supersedes,
        source=raw.source,
    )
    rec.content_hash = content_hash(rec)
    return rec


def content_hash(rec: KnowledgeRecord) -> str:
    """What the item says (not when or by whom): equal hashes mean nothing to store or sync."""
    return sha256_hex(
        canonical_json(
            {
                "type": rec.type,
                "layer": rec.layer,
                "title": rec.title,
                "summary": rec.summary,
                "content": rec.content,
                "status": rec.status,
                "severity": rec.severity,
                "tags": rec.tags,
                "constraints": rec.constraints,
                "metadata": rec.metadata,
                "supersedes": rec.supersedes,
                "superseded_by": rec.superseded_by,
            }
        )
    )


def _first_paragraph(content: str) -> str:
    for block in re.split(r"\n\s*\n", content or ""):
        lines = [ln.strip() for ln in block.strip().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            text = " ".join(lines)
            return text if len(text) <= 300 else text[:297].rstrip() + "..."
    return ""
