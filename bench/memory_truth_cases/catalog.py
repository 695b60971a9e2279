"""Every case of the suite, and the split each belongs to.

The split rule (decided with the cases, before any memory rule was tuned): within each group
(``update:<kind>``, ``additive``, ``pair:opposite``, ``pair:paraphrase``, ``expiring``), order
the cases by the sha256 of their id; positions 0, 3, 6... are ``untouched``, the others
``tune``. Each group is thus a third untouched (rounded up), whatever its size. The sets are
closed: a case added to a group moves others between splits, so new cases go into a new group
and say so in BENCHMARKS.md.

The ``everyday-update:<kind>`` and ``everyday-additive`` groups (updates_everyday.py,
additive_everyday.py) are such new groups: written later, apart from the memory rules, as a
fresh held-out test of wording the rules were not developed on. The ``blind3-update:<kind>``
and ``blind3-additive`` groups (updates_blind3.py, additive_blind3.py) are a third set, written
blind to the rules' code, for measurement only: every case of theirs is ``untouched``
(:data:`UNTOUCHED_GROUPS`), so they have no ``tune`` split to fit. The ``blind4-update:<kind>``
and ``blind4-additive`` groups (updates_blind4.py, additive_blind4.py) are a fourth such set,
written before the ranking work and likewise ``untouched`` whole, and the ``blind5-update:<kind>``
and ``blind5-additive`` groups (updates_blind5.py, additive_blind5.py) a fifth, written before
the second round of closing by succession, and the ``blind6-update:<kind>`` and
``blind6-additive`` groups (updates_blind6.py, additive_blind6.py) a sixth, written before the
next change to the closing rules, and the ``blind7-update:<kind>`` and ``blind7-additive``
groups (updates_blind7.py, additive_blind7.py) a seventh, written blind to the rules once every
earlier set had been seen. ``--groups`` of
bench/memory_truth.py runs some groups alone (:meth:`Catalog.only`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bench.memory_truth_cases import (
    SPLITS,
    AdditiveCase,
    ConsolidationPair,
    Conversation,
    ExpiringMemory,
    UpdateCase,
    check_cases,
)
from bench.memory_truth_cases.additive import ADDITIVE
from bench.memory_truth_cases.additive_blind3 import BLIND3_ADDITIVE
from bench.memory_truth_cases.additive_blind4 import BLIND4_ADDITIVE
from bench.memory_truth_cases.additive_blind5 import BLIND5_ADDITIVE
from bench.memory_truth_cases.additive_blind6 import BLIND6_ADDITIVE
from bench.memory_truth_cases.additive_blind7 import BLIND7_ADDITIVE
from bench.memory_truth_cases.additive_everyday import EVERYDAY_ADDITIVE
from bench.memory_truth_cases.consolidation import PAIRS
from bench.memory_truth_cases.expiry import EXPIRING
from bench.memory_truth_cases.updates import UPDATES
from bench.memory_truth_cases.updates_blind3 import BLIND3_UPDATES
from bench.memory_truth_cases.updates_blind4 import BLIND4_UPDATES
from bench.memory_truth_cases.updates_blind5 import BLIND5_UPDATES
from bench.memory_truth_cases.updates_blind6 import BLIND6_UPDATES
from bench.memory_truth_cases.updates_blind7 import BLIND7_UPDATES
from bench.memory_truth_cases.updates_everyday import EVERYDAY_UPDATES

#: groups that topics.py does not tag: the persons of the ``thresholds`` phase (and
#: bench/calibrate_background.py) pool the other groups only, so they stay what they were
UNPOOLED_GROUPS = (
    "everyday-update",
    "everyday-additive",
    "blind3-update",
    "blind3-additive",
    "blind4-update",
    "blind4-additive",
    "blind5-update",
    "blind5-additive",
    "blind6-update",
    "blind6-additive",
    "blind7-update",
    "blind7-additive",
)
#: groups (a name without ``:<kind>`` names each of its kinds) whose cases are all ``untouched``:
#: sets kept for measurement only, with nothing to tune on
UNTOUCHED_GROUPS = (
    "blind3-update",
    "blind3-additive",
    "blind4-update",
    "blind4-additive",
    "blind5-update",
    "blind5-additive",
    "blind6-update",
    "blind6-additive",
    "blind7-update",
    "blind7-additive",
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _in_group(group: str, name: str) -> bool:
    """Whether ``name`` selects ``group``: its own name, or the name before its ``:<kind>``."""
    return group == name or group.startswith(f"{name}:")


def assign_splits(groups: Mapping[str, Sequence[str]], untouched: Sequence[str] = ()) -> dict[str, str]:
    """``{case id: split}`` by the rule above; every case of a group ``untouched`` names is
    ``untouched``."""
    out: dict[str, str] = {}
    for name, ids in groups.items():
        held_out = any(_in_group(name, n) for n in untouched)
        for position, case_id in enumerate(sorted(ids, key=_digest)):
            out[case_id] = "untouched" if held_out or position % 3 == 0 else "tune"
    return out


@dataclass(frozen=True)
class Catalog:
    updates: list[UpdateCase]
    additive: list[AdditiveCase]
    pairs: list[ConsolidationPair]
    expiring: list[ExpiringMemory]
    split: dict[str, str]
    #: ``{case id: group}``, for every case of the suite
    group: dict[str, str]
    #: the groups this catalog holds the cases of
    groups: frozenset[str]

    def _keep(self, keep: Callable[[str], bool], groups: frozenset[str]) -> Catalog:
        return Catalog(
            [c for c in self.updates if keep(c.id)],
            [c for c in self.additive if keep(c.id)],
            [c for c in self.pairs if keep(c.id)],
            [c for c in self.expiring if keep(c.id)],
            self.split,
            self.group,
            groups,
        )

    def pick(self, split: str) -> Catalog:
        """The cases of one split (``all``: every case)."""
        return self._keep(lambda i: split == "all" or self.split[i] == split, self.groups)

    def only(self, names: Sequence[str]) -> Catalog:
        """The cases of the named groups; a name without ``:<kind>`` names each of its kinds
        (``everyday-update`` is every ``everyday-update:<kind>``)."""
        unknown = [n for n in names if not any(_in_group(g, n) for g in self.groups)]
        if unknown:
            raise ValueError(f"unknown groups {unknown}; the groups are {', '.join(sorted(self.groups))}")
        groups = frozenset(g for g in self.groups if any(_in_group(g, n) for n in names))
        return self._keep(lambda i: self.group[i] in groups, groups)

    def pooled(self) -> list[Conversation]:
        """The update and additive cases the ``thresholds`` phase pools into persons: those of
        the groups topics.py tags (not :data:`UNPOOLED_GROUPS`)."""
        return [
            c
            for c in (*self.updates, *self.additive)
            if not any(_in_group(self.group[c.id], n) for n in UNPOOLED_GROUPS)
        ]

    def fingerprint(self) -> str:
        """sha256 of the sorted untouched ids of the catalog's groups: equal fingerprints, equal
        splits (the groups of the first set alone give the fingerprint they gave before the
        everyday groups were added)."""
        untouched = (i for i, s in self.split.items() if s == "untouched" and self.group[i] in self.groups)
        return _digest("\n".join(sorted(untouched)))[:16]


def load() -> Catalog:
    updates = [
        *UPDATES,
        *EVERYDAY_UPDATES,
        *BLIND3_UPDATES,
        *BLIND4_UPDATES,
        *BLIND5_UPDATES,
        *BLIND6_UPDATES,
        *BLIND7_UPDATES,
    ]
    additives = [
        *ADDITIVE,
        *EVERYDAY_ADDITIVE,
        *BLIND3_ADDITIVE,
        *BLIND4_ADDITIVE,
        *BLIND5_ADDITIVE,
        *BLIND6_ADDITIVE,
        *BLIND7_ADDITIVE,
    ]
    problems = check_cases(updates, additives, PAIRS, EXPIRING)
    if problems:
        raise ValueError("the memory truth cases are inconsistent:\n  " + "\n  ".join(problems))
    groups: dict[str, list[str]] = {}
    for u in UPDATES:
        groups.setdefault(f"update:{u.kind}", []).append(u.id)
    groups["additive"] = [a.id for a in ADDITIVE]
    for p in PAIRS:
        groups.setdefault(f"pair:{p.kind}", []).append(p.id)
    groups["expiring"] = [e.id for e in EXPIRING]
    for u in EVERYDAY_UPDATES:
        groups.setdefault(f"everyday-update:{u.kind}", []).append(u.id)
    groups["everyday-additive"] = [a.id for a in EVERYDAY_ADDITIVE]
    for u in BLIND3_UPDATES:
        groups.setdefault(f"blind3-update:{u.kind}", []).append(u.id)
    groups["blind3-additive"] = [a.id for a in BLIND3_ADDITIVE]
    for u in BLIND4_UPDATES:
        groups.setdefault(f"blind4-update:{u.kind}", []).append(u.id)
    groups["blind4-additive"] = [a.id for a in BLIND4_ADDITIVE]
    for u in BLIND5_UPDATES:
        groups.setdefault(f"blind5-update:{u.kind}", []).append(u.id)
    groups["blind5-additive"] = [a.id for a in BLIND5_ADDITIVE]
    for u in BLIND6_UPDATES:
        groups.setdefault(f"blind6-update:{u.kind}", []).append(u.id)
    groups["blind6-additive"] = [a.id for a in BLIND6_ADDITIVE]
    for u in BLIND7_UPDATES:
        groups.setdefault(f"blind7-update:{u.kind}", []).append(u.id)
    groups["blind7-additive"] = [a.id for a in BLIND7_ADDITIVE]
    split = assign_splits(groups, UNTOUCHED_GROUPS)
    assert set(split.values()) <= set(SPLITS)
    group = {case_id: name for name, ids in groups.items() for case_id in ids}
    return Catalog(updates, additives, list(PAIRS), list(EXPIRING), split, group, frozenset(groups))
