"""Every case of the suite, and the split each belongs to.

The split rule (decided with the cases, before any memory rule was tuned): within each group
(``update:<kind>``, ``additive``, ``pair:opposite``, ``pair:paraphrase``, ``expiring``), order
the cases by the sha256 of their id; positions 0, 3, 6... are ``untouched``, the others
``tune``. Each group is thus a third untouched (rounded up), whatever its size. The sets are
closed: a case added to a group moves others between splits, so new cases go into a new group
and say so in BENCHMARKS.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bench.memory_truth_cases import (
    SPLITS,
    AdditiveCase,
    ConsolidationPair,
    ExpiringMemory,
    UpdateCase,
    check_cases,
)
from bench.memory_truth_cases.additive import ADDITIVE
from bench.memory_truth_cases.consolidation import PAIRS
from bench.memory_truth_cases.expiry import EXPIRING
from bench.memory_truth_cases.updates import UPDATES


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def assign_splits(groups: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """``{case id: split}`` by the rule above."""
    out: dict[str, str] = {}
    for ids in groups.values():
        for position, case_id in enumerate(sorted(ids, key=_digest)):
            out[case_id] = "untouched" if position % 3 == 0 else "tune"
    return out


@dataclass(frozen=True)
class Catalog:
    updates: list[UpdateCase]
    additive: list[AdditiveCase]
    pairs: list[ConsolidationPair]
    expiring: list[ExpiringMemory]
    split: dict[str, str]

    def pick(self, split: str) -> Catalog:
        """The cases of one split (``all``: every case)."""

        def keep(case_id: str) -> bool:
            return split == "all" or self.split[case_id] == split

        return Catalog(
            [c for c in self.updates if keep(c.id)],
            [c for c in self.additive if keep(c.id)],
            [c for c in self.pairs if keep(c.id)],
            [c for c in self.expiring if keep(c.id)],
            self.split,
        )

    def fingerprint(self) -> str:
        """sha256 of the sorted untouched ids: equal fingerprints, equal splits."""
        return _digest("\n".join(sorted(i for i, s in self.split.items() if s == "untouched")))[:16]


def load() -> Catalog:
    problems = check_cases(UPDATES, ADDITIVE, PAIRS, EXPIRING)
    if problems:
        raise ValueError("the memory truth cases are inconsistent:\n  " + "\n  ".join(problems))
    groups: dict[str, list[str]] = {}
    for u in UPDATES:
        groups.setdefault(f"update:{u.kind}", []).append(u.id)
    groups["additive"] = [a.id for a in ADDITIVE]
    for p in PAIRS:
        groups.setdefault(f"pair:{p.kind}", []).append(p.id)
    groups["expiring"] = [e.id for e in EXPIRING]
    split = assign_splits(groups)
    assert set(split.values()) <= set(SPLITS)
    return Catalog(list(UPDATES), list(ADDITIVE), list(PAIRS), list(EXPIRING), split)
