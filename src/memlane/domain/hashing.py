"""Canonical JSON and sha256: commit hashes must be reproducible by anyone auditing them."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commit_hash(parent_hash: str | None, diff: Any) -> str:
    """``sha256(parent_hash + canonical diff)``; the first commit of a scope has an empty parent."""
    return sha256_hex((parent_hash or "") + canonical_json(diff))
