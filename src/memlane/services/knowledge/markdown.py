"""Knowledge items as Markdown files with YAML front matter, the natural home of ADRs.

```
---
id: adr-042-database-selection      # default: the file name without .md
type: adr                           # adr | policy | pattern | spec
layer: org                          # company | org | team | project
title: Database Selection for New Services
status: accepted
severity: block
summary: Use PostgreSQL for all new services requiring relational data
tags: [database, infrastructure]
supersedes: adr-017-mysql           # optional
constraints:
  - operator: must_not_use
    target: dependency
    pattern: "mysql|mysql2|mariadb"
    severity: block
    message: MySQL not allowed for new services per ADR-042. Use PostgreSQL instead.
metadata: {owner: platform-team}
---
# body: the full Markdown content
```
Keys other than these go into ``metadata`` so nothing a file says is lost.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from memlane.domain.errors import InvalidRequest
from memlane.services.knowledge.model import ItemInput

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)
KNOWN_KEYS = {
    "id", "type", "layer", "title", "summary", "status", "severity", "tags", "constraints", "metadata", "supersedes",
}  # fmt: skip
MAX_FILE_BYTES = 1024 * 1024


def parse_document(text: str, *, path: str) -> ItemInput:
    """One Markdown document -> the item it describes; the error names the file and field."""
    m = _FRONT.match(text.lstrip("\ufeff"))
    if not m:
        raise InvalidRequest(
            f"{path}: no YAML front matter (the file must start with a '---' block)",
            code="invalid_request",
            details={"field": "content", "path": path},
        )
    try:
        front: Any = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as exc:
        raise InvalidRequest(
            f"{path}: front matter is not valid YAML: {exc}", code="invalid_request", details={"path": path}
        ) from None
    if not isinstance(front, dict):
        raise InvalidRequest(f"{path}: front matter must be a mapping", code="invalid_request", details={"path": path})
    body = m.group(2).strip("\n")
    item_id = front.get("id") or Path(path).stem
    raw_meta = front.get("metadata") or {}
    metadata = {str(k): _plain(v) for k, v in raw_meta.items()} if isinstance(raw_meta, dict) else raw_meta
    if isinstance(metadata, dict):
        for key, value in front.items():
            if key not in KNOWN_KEYS:
                metadata.setdefault(str(key), _plain(value))
    title = front.get("title") or _heading(body) or str(item_id)
    return ItemInput(
        id=str(item_id),
        type=front.get("type", "adr"),
        layer=front.get("layer", "project"),
        title=title,
        summary=str(front.get("summary") or ""),
        content=body,
        status=front.get("status", "accepted"),
        severity=front.get("severity", "warn"),
        tags=front.get("tags"),
        constraints=front.get("constraints"),
        metadata=metadata,
        supersedes=front.get("supersedes"),
        source=path,
    )


def _heading(body: str) -> str | None:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _plain(value: Any) -> Any:
    """YAML dates and other objects as JSON-friendly values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def scan_folder(root: Path) -> list[tuple[str, str]]:
    """``(relative path, text)`` of every ``*.md`` file under ``root``, sorted by path."""
    out: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.md")):
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            continue
        # bytes that are not UTF-8 stay visible (surrogate escapes): build_record refuses
        # that one file, naming it, instead of the whole folder failing to load
        out.append((path.relative_to(root).as_posix(), path.read_text(encoding="utf-8", errors="surrogateescape")))
    return out


def folder_signature(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Cheap change detection: names, sizes and modification times of the Markdown files."""
    sig: list[tuple[str, int, int]] = []
    for path in sorted(root.rglob("*.md")):
        try:
            st = path.stat()
        except OSError:
            continue
        sig.append((path.relative_to(root).as_posix(), st.st_size, st.st_mtime_ns))
    return tuple(sig)
