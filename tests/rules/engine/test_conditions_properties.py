"""Property tests: ``matches`` agrees with a deliberately naive reference model of the language.

The reference below is written from docs/api-graph.md and the documented edge-case
choices, in a different style from the implementation: it evaluates every branch eagerly,
propagates invalidity as a third truth value (``None``), compares JSON through a canonical
encoding, and knows regex validity from a fixed table instead of the shape scanner.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memlane.rules.conditions import matches, specificity, validate_condition

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- reference model

ABSENT = object()
#: regex operands the strategies use, with their validity under RE2 and the documented limits
REGEXES: dict[str, bool] = {
    "^x": True,
    "y$": True,
    "x|y": True,
    "(?i)X": True,
    "^$": True,
    "[": False,  # does not compile
    "(x+)+": True,  # nested repetition: linear under RE2, so accepted
    "(\\w)\\1": False,  # backreference
    "z" * 300: False,  # too long
    # the primitive strings the strategies also draw as operands: plain, valid patterns
    "": True,
    "x": True,
    "xy": True,
    "yx": True,
    "X": True,
}
COMPARISONS = {"$gt", "$gte", "$lt", "$lte"}


def canon(x: Any) -> Any:
    if x is True or x is False:
        return ("bool", x)
    if isinstance(x, int | float):
        return ("num", float(x))
    if isinstance(x, str):
        return ("str", x)
    if x is None:
        return ("null",)
    if isinstance(x, list):
        return ("list", tuple(canon(i) for i in x))
    return ("obj", tuple(sorted((k, canon(v)) for k, v in x.items())))


def same(a: Any, b: Any) -> bool:
    return a is not ABSENT and b is not ABSENT and canon(a) == canon(b)


def lookup(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if type(value) is dict and part in value:
            value = value[part]
        else:
            return ABSENT
    return value


def is_num(x: Any) -> bool:
    return type(x) in (int, float)


def all3(results: list[bool | None]) -> bool | None:
    return None if None in results else all(results)


def ref_op(op: str, arg: Any, v: Any) -> bool | None:
    if op in ("$eq", "$ne"):
        equal = same(v, arg)
        return equal if op == "$eq" else not equal
    if op == "$exists":
        return None if type(arg) is not bool else (v is not ABSENT) == arg
    if op in ("$in", "$nin"):
        if type(arg) is not list:
            return None
        hit = any(same(v, a) for a in arg) or (type(v) is list and any(same(e, a) for e in v for a in arg))
        return hit if op == "$in" else not hit
    if op in COMPARISONS:
        if not is_num(arg):
            return None
        if not is_num(v):
            return False
        return bool({"$gt": v > arg, "$gte": v >= arg, "$lt": v < arg, "$lte": v <= arg}[op])
    if op == "$contains":
        if type(v) is str:
            return type(arg) is str and arg in v
        return type(v) is list and any(same(e, arg) for e in v)
    if op == "$regex":
        if type(arg) is not str or not REGEXES.get(arg, False):
            return None
        return type(v) is str and re.search(arg, v) is not None
    return None  # unknown operator


def ref(p: Any, v: Any) -> bool | None:
    if type(p) is dict:
        results: list[bool | None] = []
        for key, sub in p.items():
            if key in ("$and", "$or"):
                if type(sub) is not list:
                    results.append(None)
                    continue
                inner = [ref(s, v) for s in sub]
                if None in inner:
                    results.append(None)
                else:
                    results.append(all(inner) if key == "$and" else any(inner))
            elif key == "$not":
                inner_one = ref(sub, v)
                results.append(None if inner_one is None else not inner_one)
            elif key.startswith("$"):
                results.append(ref_op(key, sub, v))
            elif any(part == "" or part.startswith("$") for part in key.split(".")):
                results.append(None)
            else:
                results.append(ref(sub, lookup(v, key)))
        return all3(results)
    if type(p) is list:
        return type(v) is list and all(any(same(e, x) for x in v) for e in p)
    return same(p, v)


def ref_matches(rule_if: Any, exceptions: list[Any], context: Any) -> bool:
    if rule_if is not None and ref(rule_if, context) is not True:
        return False
    return not any(ref(e, context) is True for e in exceptions)


# --------------------------------------------------------------------------- strategies

KEYS = ["a", "b", "c"]
PATH_KEYS = ["a", "b", "c", "a.b", "b.c", "a.b.c", "a..b", "a.$x"]
primitives = st.sampled_from([0, 1, 2, -1, 1.0, 0.5, True, False, None, "", "x", "xy", "yx", "X"])
literal_lists = st.lists(primitives, max_size=3)
context_values = st.recursive(
    st.one_of(primitives, literal_lists),
    lambda children: st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
    max_leaves=8,
)
contexts = st.dictionaries(st.sampled_from(KEYS), context_values, max_size=3)

OPS = ["$eq", "$ne", "$exists", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$contains", "$regex", "$bogus"]
operands = st.one_of(primitives, literal_lists, st.sampled_from(list(REGEXES)), st.booleans())
operator_objects = st.builds(lambda op, arg: {op: arg}, st.sampled_from(OPS), operands)
range_objects = st.builds(
    lambda lo, hi: {"$gte": lo, "$lt": hi}, st.sampled_from([-1, 0, 1]), st.sampled_from([1, 2, 3])
)


def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.dictionaries(st.sampled_from(PATH_KEYS), children, min_size=1, max_size=2),
        st.builds(lambda xs: {"$and": xs}, st.lists(children, max_size=3)),
        st.builds(lambda xs: {"$or": xs}, st.lists(children, max_size=3)),
        st.builds(lambda x: {"$not": x}, children),
        st.builds(lambda x: {"$and": x}, children),  # invalid: operand not an array
    )


conditions = st.recursive(
    st.one_of(primitives, literal_lists, operator_objects, range_objects, st.just({})),
    extend,
    max_leaves=8,
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=10,
)


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(cond=conditions, context=contexts)
def test_matches_agrees_with_the_reference_model(cond: Any, context: Any) -> None:
    assert matches(cond, None, context).matched is ref_matches(cond, [], context)


@SETTINGS
@given(cond=conditions, exceptions=st.lists(conditions, max_size=2), context=contexts)
def test_exceptions_agree_with_the_reference_model(cond: Any, exceptions: list[Any], context: Any) -> None:
    assert matches(cond, exceptions, context).matched is ref_matches(cond, exceptions, context)


@SETTINGS
@given(cond=conditions)
def test_validity_agrees_with_the_reference_model(cond: Any) -> None:
    # the reference visits every part of a condition whatever the context, so one probe decides
    assert (ref(cond, {}) is None) is bool(validate_condition(cond))


@SETTINGS
@given(sub=conditions, context=contexts)
def test_dotted_path_equals_nested_objects(sub: Any, context: Any) -> None:
    dotted = matches({"a.b": sub}, None, context)
    nested = matches({"a": {"b": sub}}, None, context)
    assert dotted.matched is nested.matched
    assert dotted.condition_paths == nested.condition_paths


@SETTINGS
@given(arg=operands, context=contexts, key=st.sampled_from(["a", "a.b", "c"]))
def test_ne_and_nin_are_exact_negations(arg: Any, context: Any, key: str) -> None:
    assert (
        matches({key: {"$ne": arg}}, None, context).matched
        is matches({key: {"$not": {"$eq": arg}}}, None, context).matched
    )
    assert (
        matches({key: {"$nin": arg}}, None, context).matched
        is matches({key: {"$not": {"$in": arg}}}, None, context).matched
    )


@SETTINGS
@given(cond=conditions, context=contexts)
def test_double_negation_is_identity(cond: Any, context: Any) -> None:
    # A null ``if`` is an absent condition (matches everything); nested under ``$not`` the same
    # null is a literal pattern (matches only an explicit null). Different things by design.
    assume(cond is not None)
    assert matches({"$not": {"$not": cond}}, None, context).matched is matches(cond, None, context).matched


def test_a_null_if_is_absent_but_a_nested_null_is_a_literal() -> None:
    assert matches(None, None, {}).matched
    assert not matches({"$not": {"$not": None}}, None, {}).matched
    assert matches({"$not": {"$not": None}}, None, None).matched


@SETTINGS
@given(cond=conditions, context=contexts)
def test_condition_paths_only_on_match_and_bounded_by_specificity(cond: Any, context: Any) -> None:
    result = matches(cond, None, context)
    if not result.matched:
        assert result.condition_paths == ()
    else:
        assert len(result.condition_paths) <= specificity(cond)


@SETTINGS
@given(cond=json_values, context=json_values, exceptions=json_values)
def test_never_raises_on_arbitrary_json(cond: Any, context: Any, exceptions: Any) -> None:
    result = matches(cond, exceptions, context)
    assert isinstance(result.matched, bool)
