"""The rule condition language (docs/api-graph.md, "Condition language").

A condition is plain JSON matched against the caller's ``context``. It is evaluated on every
``rules/evaluate`` and ``tools/select`` call, for every visible rule, with a context the caller
controls, so the evaluator must be total (never raise) and cheap (bounded cost, no
catastrophic regexes). Semantics, including the edge cases the supplement leaves open:

* **Object pattern** ``{k: sub, ...}``: matches when every key matches; keys are visited in
  sorted order so results do not depend on how a backend stored the JSON. A key without ``$``
  is a path; dots separate segments (``"agent.role"`` is ``{"agent": {"role": ...}}``). Paths
  walk objects only (no array indexing); a segment that is absent, or a step into a
  non-object, yields *missing*. Keys starting with ``$`` apply to the current value: the
  combinators ``$and``/``$or``/``$not`` or one of the operators. Several ``$`` keys in one
  object are a conjunction (``{"$gte": 1, "$lte": 5}`` is a range). An empty object pattern
  matches anything, including a missing value: the same rule as an empty ``if``.
* **Primitive** (string, number, bool, null): JSON deep equality. ``1 == 1.0`` but
  ``true != 1``; ``null`` matches only an explicit null, never a missing value (use
  ``{"$exists": false}`` for absence).
* **Array pattern**: matches when the context value is an array containing (deep equality)
  every element of the pattern; ``[]`` matches any array. Elements are literals, not patterns.
* **Operators** (their operand is a literal): ``$eq`` deep equality; ``$ne`` its exact negation;
  ``$exists`` (operand must be a bool) presence, where an explicit null counts as present;
  ``$in`` (operand an array) the value equals one element, or the value is an array sharing
  an element with the operand; ``$nin`` the exact negation of ``$in``; ``$gt $gte $lt $lte``
  compare numbers only (bools are not numbers; any other value never matches); ``$contains``
  substring when both sides are strings, deep-equality membership when the value is an
  array; ``$regex`` (operand a string) an RE2 search on a string value.
* **Missing values**: every positive test (``$eq``, ``$in``, comparisons, ``$contains``,
  ``$regex``, literals) fails on a missing value, and ``$ne``/``$nin`` *succeed*. Choosing
  the exact negation (as MongoDB does) keeps ``{"$ne": x}`` equivalent to
  ``{"$not": {"$eq": x}}``, so authors can reason about one rule instead of two, and a rule
  such as ``{"agent.role": {"$ne": "admin"}}`` also covers callers that send no role.
* **Invalid conditions never match, wherever the defect is**: an unknown ``$`` key, a wrong
  operand type (``$exists: "yes"``, ``$in: 3``, ``$gt: "a"``, a non-string or invalid or too
  costly ``$regex``), a non-array ``$and``/``$or``, an empty or ``$``-prefixed path segment,
  non-JSON values, or a condition beyond the size limits. The whole condition is rejected
  before evaluation, so a defect under ``$not`` or inside an ``$or`` branch cannot flip into a
  match. Wrong *context* types are not defects: ``{"$gt": 5}`` on a string is simply false,
  and ``{"$not": {"$gt": 5}}`` on it is true.
* **Exceptions**: a list of conditions; the rule does not match when any of them matches.
  An invalid exception never matches, so it does not exclude anything (reported in
  ``MatchResult.errors``). A single object is accepted as a one-element list; other
  non-list values are reported and ignored; only the first ``MAX_EXCEPTIONS`` are used.
  Exceptions are evaluated only when ``if`` matched (they cannot change the outcome
  otherwise), in order, stopping at the first that matches. ``[{}]`` disables a rule, since
  an empty condition matches everything.
* **Regexes run on RE2** (``domain/patterns.py``): linear time, no backtracking, so no pattern
  can freeze the server. A pattern of at most ``MAX_REGEX_PATTERN_LEN`` characters in RE2
  syntax is valid; constructs RE2 cannot run (backreferences, lookaround, ``(?x)``, atomic
  groups, possessive quantifiers) and programs larger than ``MAX_PROGRAM_SIZE`` instructions
  make the condition invalid. Rule writes refuse them (``400 invalid_rule_pattern``), so they
  only reach evaluation from rows stored before. The work is capped twice: a string longer than
  ``MAX_REGEX_SUBJECT_LEN`` characters is a context-side miss (like a number given to
  ``$regex``: under ``$not`` it therefore counts as a match); and one rule's evaluation (its
  ``if`` and exceptions together) may spend at most ``REGEX_WORK_BUDGET`` units, a test costing
  its program size times the subject length (RE2's worst case). A condition that runs out of
  budget is treated as invalid: it never matches, whatever ``$not`` surrounds the test, and the
  defect is reported. For a plain substring test use ``$contains``.
* **Match detail**: ``condition_paths`` lists the leaf conditions that made the match, as the
  dotted context path plus the operator for operator leaves (``agent.role``,
  ``cost.$lt``); a satisfied ``$not`` is reported as ``$not(<its leaves>)``, e.g.
  ``$not(agent.role)``; only the first matching ``$or`` branch contributes; a root-level leaf
  uses ``$``; duplicates are dropped, first occurrence kept. **Specificity** is the number of
  leaf conditions in ``if`` (each literal, array pattern and operator entry is one leaf;
  combinators are not leaves, their contents are counted).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from memlane.domain.patterns import MAX_PROGRAM_SIZE, PatternError, UserPattern, compile_pattern

COMBINATORS: Final = frozenset({"$and", "$or", "$not"})
OPERATORS: Final = frozenset(
    {"$eq", "$ne", "$exists", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$contains", "$regex"}
)

#: nesting depth of a condition (patterns and literal operands together)
MAX_CONDITION_DEPTH: Final = 32
#: JSON values in one condition; bounds evaluation cost per rule
MAX_CONDITION_NODES: Final = 2000
#: leaf conditions in one condition; with it, priority always dominates rank (see policy.py)
MAX_CONDITION_LEAVES: Final = 200
MAX_REGEX_PATTERN_LEN: Final = 256
MAX_REGEX_SUBJECT_LEN: Final = 4096
#: RE2 instructions x subject characters one rule's evaluation may spend on ``$regex`` tests:
#: five worst-case tests (a 1000-instruction program over 4096 characters), a few ms of CPU
REGEX_WORK_BUDGET: Final = 5 * MAX_PROGRAM_SIZE * (MAX_REGEX_SUBJECT_LEN + 1)
#: the number of exceptions on one rule that are looked at
MAX_EXCEPTIONS: Final = 50


class _Missing:
    """The value at a path that does not exist; distinct from an explicit JSON null."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Outcome of ``matches``: whether the rule applies, and why (for ``match_detail``)."""

    matched: bool
    #: leaf conditions of ``if`` that matched (empty when the rule did not match)
    condition_paths: tuple[str, ...]
    #: whether ``if`` alone matched (before exceptions)
    if_matched: bool
    #: index of the first exception that matched, which vetoed the rule
    excepted_by: int | None
    #: defects found in ``if`` or the exceptions (empty when the rule is well-formed)
    errors: tuple[str, ...]

    @property
    def condition_path_count(self) -> int:
        return len(self.condition_paths)


# --------------------------------------------------------------------------- JSON helpers


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(a: object, b: object) -> bool:
    """JSON deep equality: numbers compare by value, bools are not numbers, null is null.

    Python's ``==`` says ``True == 1`` and ``1 == 1.0``; JSON authors expect the second and not
    the first. Recursion stops at the shallower side, and conditions are depth-limited.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return False


def _contains_equal(items: Sequence[object], value: object) -> bool:
    return any(json_equal(item, value) for item in items)


def resolve_path(value: object, segments: Sequence[str]) -> object:
    """The value at a path of object keys, or ``MISSING``; never indexes into arrays."""
    for segment in segments:
        if isinstance(value, dict) and segment in value:
            value = value[segment]
        else:
            return MISSING
    return value


# --------------------------------------------------------------------------- regex


@dataclass(frozen=True, slots=True)
class CompiledRegex:
    """A ``$regex`` operand compiled by RE2 (domain/patterns.py), or why it cannot be."""

    pattern: UserPattern | None
    error: str | None


def compile_regex(pattern: str) -> CompiledRegex:
    """Compile a ``$regex`` operand (cached by ``compile_pattern``); invalid ones carry ``error``."""
    try:
        return CompiledRegex(compile_pattern(pattern, max_length=MAX_REGEX_PATTERN_LEN), None)
    except PatternError as exc:
        return CompiledRegex(None, str(exc))


class RegexBudget:
    """What one rule's evaluation may still spend on ``$regex`` tests, in RE2 instructions
    times subject characters (RE2's worst-case cost of one search)."""

    __slots__ = ("left",)

    def __init__(self, units: int = REGEX_WORK_BUDGET):
        self.left = units

    def spend(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise _OverBudget


class _OverBudget(Exception):
    pass


# --------------------------------------------------------------------------- validation


@dataclass(slots=True)
class _Census:
    nodes: int = 0
    leaves: int = 0
    errors: list[str] | None = None
    #: (where, reason) of ``$regex`` operands RE2 cannot run
    regex_errors: list[tuple[str, str]] | None = None

    def error(self, where: str, message: str) -> None:
        if self.errors is not None and len(self.errors) < 20:
            self.errors.append(f"{where or '$'}: {message}")


def _where(path: tuple[str, ...], key: str | None = None) -> str:
    parts = (*path, key) if key is not None else path
    return ".".join(parts) if parts else "$"


def _check_literal(value: object, where: str, depth: int, census: _Census) -> None:
    census.nodes += 1
    if depth > MAX_CONDITION_DEPTH:
        census.error(where, f"nested deeper than {MAX_CONDITION_DEPTH}")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                census.error(where, "object keys must be strings")
                return
            _check_literal(item, where, depth + 1, census)
    elif isinstance(value, list):
        for item in value:
            _check_literal(item, where, depth + 1, census)
    elif not (value is None or isinstance(value, str | int | float | bool)):
        census.error(where, f"not a JSON value ({type(value).__name__})")


def _check_operator(op: str, operand: object, path: tuple[str, ...], depth: int, census: _Census) -> None:
    where = _where(path, op)
    census.leaves += 1
    _check_literal(operand, where, depth + 1, census)
    if op == "$exists" and not isinstance(operand, bool):
        census.error(where, "operand must be true or false")
    elif op in ("$in", "$nin") and not isinstance(operand, list):
        census.error(where, "operand must be an array")
    elif op in ("$gt", "$gte", "$lt", "$lte") and not _is_number(operand):
        census.error(where, "operand must be a number")
    elif op == "$regex":
        error = "operand must be a string" if not isinstance(operand, str) else compile_regex(operand).error
        if error is not None:
            census.error(where, error)
            if census.regex_errors is not None:
                census.regex_errors.append((where, error))


def _check_pattern(pattern: object, path: tuple[str, ...], depth: int, census: _Census) -> None:
    census.nodes += 1
    where = _where(path)
    if depth > MAX_CONDITION_DEPTH:
        census.error(where, f"nested deeper than {MAX_CONDITION_DEPTH}")
        return
    if isinstance(pattern, dict):
        for key, sub in pattern.items():
            _check_entry(key, sub, path, depth, census)
    elif isinstance(pattern, list):
        census.leaves += 1
        census.nodes -= 1  # counted again as a literal
        _check_literal(pattern, where, depth, census)
    elif pattern is None or isinstance(pattern, str | int | float | bool):
        census.leaves += 1
    else:
        census.error(where, f"not a JSON value ({type(pattern).__name__})")


def _check_entry(key: object, sub: object, path: tuple[str, ...], depth: int, census: _Census) -> None:
    """One key of an object pattern: a combinator, an operator, or a dotted field path."""
    if not isinstance(key, str):
        census.error(_where(path), "object keys must be strings")
    elif key in ("$and", "$or"):
        if not isinstance(sub, list):
            census.error(_where(path, key), "operand must be an array of conditions")
        else:
            for item in sub:
                _check_pattern(item, path, depth + 1, census)
    elif key == "$not":
        _check_pattern(sub, path, depth + 1, census)
    elif key in OPERATORS:
        _check_operator(key, sub, path, depth, census)
    elif key.startswith("$"):
        census.error(_where(path, key), "unknown operator")
    else:
        segments = key.split(".")
        if any(not s or s.startswith("$") for s in segments):
            census.error(_where(path, key), "empty or '$'-prefixed path segment")
        else:
            _check_pattern(sub, (*path, *segments), depth + 1, census)


def validate_condition(condition: object) -> list[str]:
    """Defects of a condition (empty when valid); also usable at rule-write time."""
    census = _Census(errors=[])
    if condition is None:
        return []
    _check_pattern(condition, (), 0, census)
    errors = census.errors or []
    if census.nodes > MAX_CONDITION_NODES:
        errors.append(f"$: more than {MAX_CONDITION_NODES} values")
    if census.leaves > MAX_CONDITION_LEAVES:
        errors.append(f"$: more than {MAX_CONDITION_LEAVES} leaf conditions")
    return errors


def regex_errors(condition: object) -> list[tuple[str, str]]:
    """(path, reason) of every ``$regex`` operand RE2 cannot run: what a rule write refuses."""
    census = _Census(regex_errors=[])
    if condition is not None:
        _check_pattern(condition, (), 0, census)
    return census.regex_errors or []


def rule_conditions(slots: Mapping[str, Any]) -> list[tuple[str, object]]:
    """A rule's conditions named by their slot field: ``slots.if`` and ``slots.exceptions[i]``
    (a single exception object counts as a one-element list, as ``matches`` reads it)."""
    found: list[tuple[str, object]] = []
    if slots.get("if") is not None:
        found.append(("slots.if", slots["if"]))
    exceptions = slots.get("exceptions")
    items = exceptions if isinstance(exceptions, list) else [exceptions] if isinstance(exceptions, dict) else []
    found.extend((f"slots.exceptions[{i}]", exc) for i, exc in enumerate(items[:MAX_EXCEPTIONS]))
    return found


def specificity(condition: object) -> int:
    """Number of leaf conditions: how narrowly a rule targets its context (a rank tiebreaker)."""
    if condition is None:
        return 0
    census = _Census()
    _check_pattern(condition, (), 0, census)
    return census.leaves


# --------------------------------------------------------------------------- evaluation


_ORDER: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _test_operator(op: str, operand: Any, value: object, budget: RegexBudget) -> bool:
    if op == "$ne":
        return not _test_operator("$eq", operand, value, budget)
    if op == "$nin":
        return not _test_operator("$in", operand, value, budget)
    if op == "$exists":
        return (value is not MISSING) is bool(operand)
    if value is MISSING:
        return False
    if op == "$eq":
        return json_equal(value, operand)
    if op == "$in":
        if _contains_equal(operand, value):
            return True
        return isinstance(value, list) and any(_contains_equal(operand, item) for item in value)
    if op in _ORDER:
        return _is_number(value) and _ORDER[op](cast(float, value), cast(float, operand))
    if op == "$contains":
        if isinstance(value, str):
            return isinstance(operand, str) and operand in value
        return isinstance(value, list) and _contains_equal(value, operand)
    if op == "$regex":
        return _test_regex(operand, value, budget)
    return False


def _test_regex(operand: Any, value: object, budget: RegexBudget) -> bool:
    """A string no longer than the subject bound that the RE2 pattern finds, paid from ``budget``."""
    if not isinstance(value, str) or len(value) > MAX_REGEX_SUBJECT_LEN:
        return False
    regex = compile_regex(operand).pattern
    if regex is None:  # validated conditions never get here; a miss keeps evaluation total
        return False
    budget.spend(regex.program_size * (len(value) + 1))
    return regex.search(value)


def _leaf_paths(pattern: object, path: tuple[str, ...]) -> list[str]:
    """Where the leaves of a validated pattern sit, as ``condition_paths`` would name them."""
    if not isinstance(pattern, dict):
        return [_where(path)]
    found: list[str] = []
    for key in sorted(pattern):
        sub = pattern[key]
        if key in ("$and", "$or"):
            for item in sub:
                found += _leaf_paths(item, path)
        elif key == "$not":
            found += _not_path(sub, path)
        elif key.startswith("$"):
            found.append(_where(path, key))
        else:
            found += _leaf_paths(sub, (*path, *key.split(".")))
    return found


def _not_path(operand: object, path: tuple[str, ...]) -> list[str]:
    """``$not(<leaves>)`` for a satisfied ``$not``; nothing when its operand has no leaves."""
    leaves = list(dict.fromkeys(_leaf_paths(operand, path)))
    return [f"$not({', '.join(leaves)})"] if leaves else []


def _eval(pattern: object, value: object, path: tuple[str, ...], out: list[str], budget: RegexBudget) -> bool:
    """Match a *validated* pattern; appends matched leaf paths to ``out`` only on success."""
    if isinstance(pattern, dict):
        local: list[str] = []
        if not all(_eval_entry(key, pattern[key], value, path, local, budget) for key in sorted(pattern)):
            return False
        out.extend(local)
        return True
    if isinstance(pattern, list):
        ok = isinstance(value, list) and all(_contains_equal(value, item) for item in pattern)
    else:
        ok = value is not MISSING and json_equal(pattern, value)
    if ok:
        out.append(_where(path))
    return ok


def _eval_entry(
    key: str, sub: Any, value: object, path: tuple[str, ...], local: list[str], budget: RegexBudget
) -> bool:
    """One key of an object pattern against ``value``; its matched leaf paths go to ``local``."""
    if key == "$and":
        return all(_eval(item, value, path, local, budget) for item in sub)
    if key == "$or":
        for item in sub:
            branch: list[str] = []
            if _eval(item, value, path, branch, budget):
                local.extend(branch)
                return True
        return False
    if key == "$not":
        ok = not _eval(sub, value, path, [], budget)
        if ok:
            local.extend(_not_path(sub, path))
        return ok
    if key.startswith("$"):
        ok = _test_operator(key, sub, value, budget)
        if ok:
            local.append(_where(path, key))
        return ok
    segments = tuple(key.split("."))
    return _eval(sub, resolve_path(value, segments), (*path, *segments), local, budget)


def evaluate_condition(
    condition: object, context: object, budget: RegexBudget | None = None
) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """(matched, matched leaf paths, defects) for one condition; invalid ones never match, nor
    do those whose ``$regex`` tests run out of ``budget`` (a fresh one when not given)."""
    if condition is None:
        return True, (), ()
    errors = validate_condition(condition)
    if errors:
        return False, (), tuple(errors)
    out: list[str] = []
    try:
        ok = _eval(condition, context, (), out, budget or RegexBudget())
    except _OverBudget:
        return False, (), (f"$: $regex work budget of {REGEX_WORK_BUDGET} exhausted; the condition never matches",)
    return ok, (tuple(dict.fromkeys(out)) if ok else ()), ()


def matches(rule_if: object, exceptions: object, context: object) -> MatchResult:
    """Whether a rule's ``if`` matches ``context`` and none of its exceptions does."""
    budget = RegexBudget()  # one budget for the whole rule: ``if`` and every exception
    if_ok, paths, if_errors = evaluate_condition(rule_if, context, budget)
    errors = [f"if {e}" for e in if_errors]
    if exceptions is None:
        exception_list: list[object] = []
    elif isinstance(exceptions, list):
        exception_list = list(exceptions[:MAX_EXCEPTIONS])
        if len(exceptions) > MAX_EXCEPTIONS:
            errors.append(f"exceptions: only the first {MAX_EXCEPTIONS} are used")
    elif isinstance(exceptions, dict):
        exception_list = [exceptions]
    else:
        exception_list = []
        errors.append("exceptions: must be an array of conditions; ignored")
    excepted_by: int | None = None
    if if_ok:  # exceptions only matter, and only cost, when ``if`` matched
        for index, exception in enumerate(exception_list):
            if exception is None:
                # Only an absent ``if`` means "always"; a null entry in the exception list is a
                # null pattern, which no context object equals. Read as "always", it would
                # silently switch the rule off.
                errors.append(f"exceptions[{index}]: null is not a condition; ignored")
                continue
            ok, _, exc_errors = evaluate_condition(exception, context, budget)
            errors.extend(f"exceptions[{index}] {e}" for e in exc_errors)
            if ok:
                excepted_by = index
                break
    matched = if_ok and excepted_by is None
    return MatchResult(
        matched=matched,
        condition_paths=paths if matched else (),
        if_matched=if_ok,
        excepted_by=excepted_by,
        errors=tuple(errors),
    )
