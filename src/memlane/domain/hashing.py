"""Canonical JSON and sha256: commit hashes must be reproducible by anyone auditing them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commit_hash(parent_hash: str | None, diff: Any) -> str:
    """``sha256(parent_hash + canonical diff)``; the first commit of a scope has an empty parent."""
    return sha256_hex((parent_hash or "") + canonical_json(diff))


@dataclass(frozen=True, slots=True)
class ChainLink:
    """What a chain check reads of one commit, in the scope's order."""

    id: str
    parent_hash: str | None
    commit_hash: str
    diff: Any
    erased: bool


def verify_chain(links: Sequence[ChainLink]) -> list[str]:
    """Problems of one scope's chain, oldest commit first (empty: it verifies).

    Every commit must name its predecessor's hash as ``parent_hash``, and every commit that
    still has its diff must hash to its ``commit_hash``. An erased commit has no diff to hash;
    its hash is still bound on both sides, by its successor's ``parent_hash`` and by its own
    ``parent_hash``, so nothing can be changed, inserted or removed around it unnoticed
    (docs/security.md, "Erasure and the hash chain")."""
    problems: list[str] = []
    previous: str | None = None
    for link in links:
        if link.parent_hash != previous:
            problems.append(f"{link.id}: parent_hash does not match the previous commit")
        if not link.erased and commit_hash(link.parent_hash, link.diff) != link.commit_hash:
            problems.append(f"{link.id}: commit_hash does not match its diff")
        previous = link.commit_hash
    return problems
