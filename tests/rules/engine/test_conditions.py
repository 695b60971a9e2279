"""The condition language, operator by operator and combinator by combinator."""

from __future__ import annotations

import re
from typing import Any

import pytest

from memlane.rules.conditions import (
    MAX_CONDITION_LEAVES,
    MAX_REGEX_PATTERN_LEN,
    MAX_REGEX_SUBJECT_LEN,
    REGEX_WORK_BUDGET,
    compile_regex,
    json_equal,
    matches,
    specificity,
    validate_condition,
)

CTX: dict[str, Any] = {
    "agent": {"id": "a1", "team_id": "t1", "role": "coder"},
    "intent": "code",
    "cost": 3,
    "ratio": 0.5,
    "flag": True,
    "nothing": None,
    "tags": ["prod", "py", {"k": 1}],
    "model": "gpt-4o-mini",
    "nested": {"list": [1, 2], "obj": {"x": 1}},
}


def match(cond: Any, ctx: Any = None) -> bool:
    return matches(cond, None, CTX if ctx is None else ctx).matched


# --------------------------------------------------------------------------- structure


def test_absent_or_empty_if_matches_everything() -> None:
    assert match(None)
    assert match({})
    assert match({}, ctx="not even an object")
    assert matches(None, None, {}).condition_paths == ()


def test_object_pattern_needs_every_key() -> None:
    assert match({"intent": "code", "cost": 3})
    assert not match({"intent": "code", "cost": 4})


def test_dotted_key_is_a_path_and_equals_the_nested_form() -> None:
    assert match({"agent.role": "coder"})
    assert match({"agent": {"role": "coder"}})
    assert not match({"agent.role": "admin"})
    assert match({"nested.obj.x": 1})


def test_path_through_a_non_object_is_missing() -> None:
    assert not match({"intent.length": 4})
    assert match({"intent.length": {"$exists": False}})
    assert not match({"tags.0": "prod"}), "paths never index arrays"


def test_primitive_is_json_deep_equality() -> None:
    assert match({"cost": 3.0}), "3 and 3.0 are the same JSON number"
    assert not match({"flag": 1}), "true is not the number 1"
    assert not match({"cost": "3"})
    assert match({"nested.obj": {"x": 1}}) is True  # an object pattern, every key matches
    assert match({"nested.list": [1, 2]})


def test_null_pattern_matches_explicit_null_only() -> None:
    assert match({"nothing": None})
    assert not match({"absent": None})


def test_array_pattern_is_a_subset_of_the_context_array() -> None:
    assert match({"tags": ["py", "prod"]})
    assert match({"tags": [{"k": 1}]})
    assert match({"tags": []})
    assert not match({"tags": ["prod", "go"]})
    assert not match({"intent": ["code"]}), "a string is not an array"
    assert not match({"absent": []})


def test_empty_object_pattern_matches_even_a_missing_value() -> None:
    assert match({"absent": {}})


# --------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("cond", "expected"),
    [
        ({"intent": {"$eq": "code"}}, True),
        ({"intent": {"$eq": "chat"}}, False),
        ({"nested.obj": {"$eq": {"x": 1}}}, True),
        ({"nested.obj": {"$eq": {"$gt": 0}}}, False),  # an $eq operand is a literal, not a pattern
        ({"absent": {"$eq": None}}, False),
        ({"intent": {"$ne": "chat"}}, True),
        ({"intent": {"$ne": "code"}}, False),
        ({"absent": {"$ne": "x"}}, True),  # exact negation of $eq: missing is "not equal"
        ({"intent": {"$exists": True}}, True),
        ({"nothing": {"$exists": True}}, True),  # an explicit null is present
        ({"absent": {"$exists": False}}, True),
        ({"absent": {"$exists": True}}, False),
        ({"intent": {"$in": ["chat", "code"]}}, True),
        ({"intent": {"$in": ["chat"]}}, False),
        ({"tags": {"$in": ["go", "py"]}}, True),  # an array value overlaps the operand
        ({"tags": {"$in": ["go"]}}, False),
        ({"absent": {"$in": [None]}}, False),
        ({"intent": {"$nin": ["chat"]}}, True),
        ({"intent": {"$nin": ["code"]}}, False),
        ({"absent": {"$nin": ["code"]}}, True),
        ({"tags": {"$nin": ["py"]}}, False),
        ({"cost": {"$gt": 2}}, True),
        ({"cost": {"$gt": 3}}, False),
        ({"cost": {"$gte": 3}}, True),
        ({"cost": {"$lt": 3.5}}, True),
        ({"cost": {"$lte": 2}}, False),
        ({"ratio": {"$gte": 0.5, "$lt": 1}}, True),  # several operators form a range
        ({"intent": {"$gt": "a"}}, False),  # invalid operand: numbers only
        ({"intent": {"$lt": 5}}, False),  # non-number value never matches
        ({"flag": {"$gte": 1}}, False),  # bools are not numbers
        ({"absent": {"$lt": 5}}, False),
        ({"model": {"$contains": "4o"}}, True),
        ({"model": {"$contains": "claude"}}, False),
        ({"tags": {"$contains": "py"}}, True),
        ({"tags": {"$contains": {"k": 1}}}, True),
        ({"tags": {"$contains": "p"}}, False),  # membership, not substring, for arrays
        ({"cost": {"$contains": 3}}, False),
        ({"model": {"$regex": "^gpt-4"}}, True),
        ({"model": {"$regex": "mini$"}}, True),
        ({"model": {"$regex": "^claude"}}, False),
        ({"model": {"$regex": "(?i)GPT"}}, True),
        ({"cost": {"$regex": "3"}}, False),  # numbers are not strings
    ],
)
def test_operator(cond: dict[str, Any], expected: bool) -> None:
    assert match(cond) is expected


@pytest.mark.parametrize(
    "cond",
    [
        {"intent": {"$bogus": 1}},
        {"$where": "1"},
        {"intent": {"$exists": "yes"}},
        {"intent": {"$exists": 1}},
        {"intent": {"$in": "code"}},
        {"intent": {"$nin": "chat"}},
        {"cost": {"$gt": "2"}},
        {"cost": {"$lte": True}},
        {"model": {"$regex": 5}},
        {"model": {"$regex": "("}},
        {"$and": {"intent": "code"}},
        {"$or": "x"},
        {"agent..role": "coder"},
        {"agent.$role": "coder"},
        {"": 1},
    ],
)
def test_invalid_condition_never_matches_and_is_reported(cond: dict[str, Any]) -> None:
    assert validate_condition(cond)
    result = matches(cond, None, CTX)
    assert not result.matched
    assert result.errors


@pytest.mark.parametrize(
    "cond",
    [
        {"$not": {"intent": {"$bogus": 1}}},
        {"$not": {"model": {"$regex": "("}}},
        {"$or": [{"intent": "code"}, {"intent": {"$bogus": 1}}]},
        {"$not": {"$not": {"cost": {"$gt": "x"}}}},
    ],
)
def test_a_defect_anywhere_cannot_flip_into_a_match(cond: dict[str, Any]) -> None:
    assert not match(cond)


def test_wrong_context_type_is_false_not_invalid_so_not_can_negate_it() -> None:
    assert match({"intent": {"$not": {"$gt": 5}}})
    assert validate_condition({"intent": {"$not": {"$gt": 5}}}) == []


# --------------------------------------------------------------------------- combinators


def test_and_needs_all() -> None:
    assert match({"$and": [{"intent": "code"}, {"cost": {"$lt": 5}}]})
    assert not match({"$and": [{"intent": "code"}, {"cost": {"$gt": 5}}]})
    assert match({"$and": []})


def test_or_needs_one() -> None:
    assert match({"$or": [{"intent": "chat"}, {"cost": 3}]})
    assert not match({"$or": [{"intent": "chat"}, {"cost": 4}]})
    assert not match({"$or": []})


def test_not_negates() -> None:
    assert match({"$not": {"intent": "chat"}})
    assert not match({"$not": {"intent": "code"}})


def test_combinators_work_at_any_level() -> None:
    assert match({"agent": {"$or": [{"role": "admin"}, {"role": "coder"}]}})
    assert match({"agent.role": {"$not": {"$in": ["admin", "ops"]}}})
    assert match({"cost": {"$and": [{"$gt": 1}, {"$lt": 4}]}, "$not": {"flag": False}})


# --------------------------------------------------------------------------- exceptions


def test_a_matching_exception_vetoes_the_rule() -> None:
    result = matches({"intent": "code"}, [{"cost": {"$gt": 10}}, {"agent.role": "coder"}], CTX)
    assert result.if_matched and not result.matched
    assert result.excepted_by == 1
    assert result.condition_paths == ()


def test_no_matching_exception_keeps_the_match() -> None:
    result = matches({"intent": "code"}, [{"cost": {"$gt": 10}}], CTX)
    assert result.matched and result.excepted_by is None


def test_an_invalid_exception_excludes_nothing_but_is_reported() -> None:
    result = matches({"intent": "code"}, [{"cost": {"$bogus": 1}}], CTX)
    assert result.matched
    assert result.errors == ("exceptions[0] cost.$bogus: unknown operator",)


def test_a_single_object_exception_is_a_one_element_list() -> None:
    assert not matches({"intent": "code"}, {"cost": 3}, CTX).matched


def test_a_non_list_exception_value_is_ignored_and_reported() -> None:
    result = matches({"intent": "code"}, "cost", CTX)
    assert result.matched and result.errors


def test_an_empty_exception_matches_everything_so_disables_the_rule() -> None:
    assert not matches({}, [{}], CTX).matched


def test_a_null_exception_is_ignored_and_reported_not_read_as_always() -> None:
    # found by the reference-model property test: matches(None, [None], {})
    result = matches(None, [None], {})
    assert result.matched and result.excepted_by is None
    assert result.errors == ("exceptions[0]: null is not a condition; ignored",)
    assert not matches({"intent": "code"}, [None, {"intent": "code"}], CTX).matched


# --------------------------------------------------------------------------- match detail


def test_condition_paths_name_the_leaves_that_matched() -> None:
    cond = {
        "agent.role": "coder",
        "cost": {"$gt": 1, "$lt": 9},
        "$or": [{"intent": "chat"}, {"model": {"$regex": "^gpt"}}],
        "$not": {"flag": False},
        "tags": ["py"],
    }
    result = matches(cond, None, CTX)
    assert result.matched
    assert result.condition_paths == ("$not(flag)", "model.$regex", "agent.role", "cost.$gt", "cost.$lt", "tags")
    assert result.condition_path_count == 6


def test_condition_paths_do_not_depend_on_key_order() -> None:
    a = matches({"intent": "code", "cost": 3}, None, CTX)
    b = matches({"cost": 3, "intent": "code"}, None, CTX)
    assert a.condition_paths == b.condition_paths == ("cost", "intent")


def test_root_level_leaf_uses_dollar() -> None:
    assert matches({"$exists": True}, None, CTX).condition_paths == ("$exists",)
    assert matches("x", None, "x").condition_paths == ("$",)


@pytest.mark.parametrize(
    ("cond", "leaves"),
    [
        (None, 0),
        ({}, 0),
        ({"a": 1}, 1),
        ({"a.b": 1, "c": [1, 2, 3]}, 2),
        ({"a": {"$gt": 1, "$lt": 5}}, 2),
        ({"$or": [{"a": 1}, {"b": 2, "c": 3}]}, 3),
        ({"$not": {"a": {"$in": [1, 2]}}}, 1),
        ({"a": {"b": {"c": {"$exists": True}}}}, 1),
    ],
)
def test_specificity_counts_leaf_conditions(cond: Any, leaves: int) -> None:
    assert specificity(cond) == leaves


def test_too_many_leaves_is_invalid() -> None:
    cond = {f"k{i}": i for i in range(MAX_CONDITION_LEAVES + 1)}
    assert any("leaf" in e for e in validate_condition(cond))


def test_too_deep_is_invalid_not_a_recursion_error() -> None:
    cond: Any = {"a": 1}
    for _ in range(2000):
        cond = {"$not": cond}
    assert not matches(cond, None, {"a": 2}).matched


def test_json_equal_is_json_not_python() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert not json_equal(0, False)
    assert not json_equal(None, [])
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


# --------------------------------------------------------------------------- regexes on RE2

#: (pattern, subject, matches?) for shapes that make a backtracking engine explode: RE2 answers
#: them correctly on subjects at the length cap
BOMBS = [
    (r"(a+)+$", "a" * 4000 + "!", False),
    (r"(a+)+$", "a" * 4000, True),
    (r"(a|a)*b", "a" * 4000, False),
    (r"(a|aa)+c", "a" * 3999 + "c", True),
    (r"^(\w+\s?)*$", "word " * 800 + "!", False),
    (r"(x+x+)+y", "x" * 4000, False),
    (r"(.*a){20}", "a" * 19 + "b" * 3000, False),
    (r"(.*a){20}", "ba" * 20, True),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "a" * 4000 + "1", False),
    ("a?" * 30 + "a" * 30, "a" * 30, True),
]


@pytest.mark.parametrize(("pattern", "subject", "expected"), BOMBS)
def test_backtracking_bombs_are_answered_correctly(pattern: str, subject: str, expected: bool) -> None:
    assert len(subject) <= MAX_REGEX_SUBJECT_LEN
    assert compile_regex(pattern).error is None
    result = matches({"s": {"$regex": pattern}}, None, {"s": subject})
    assert result.matched is expected and result.errors == ()


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(?x)(a+) +$", "verbose mode"),
        (r"(\d+)\1", "backreferences"),
        (r"(?P<x>a)(?P=x)", "backreferences"),
        (r"(?(1)a|b)", "conditionals"),
        (r"a(?=b)", "lookahead"),
        (r"(?<!a)b", "lookbehind"),
        (r"(?>a+)b", "atomic groups"),
        (r"a++b", "possessive"),
        (r"a\Z", "\\z"),
        (r"(.*){1000}", "too complex"),
        ("(", "missing )"),
    ],
)
def test_patterns_re2_cannot_run_are_invalid_and_say_why(pattern: str, named: str) -> None:
    compiled = compile_regex(pattern)
    assert compiled.pattern is None and compiled.error is not None and named in compiled.error
    assert any(named in e for e in validate_condition({"model": {"$regex": pattern}}))
    assert not match({"model": {"$regex": pattern}})
    assert not match({"$not": {"model": {"$regex": pattern}}}), "an invalid regex cannot flip into a match"


def test_regex_pattern_length_is_capped() -> None:
    assert compile_regex("a" * (MAX_REGEX_PATTERN_LEN + 1)).error is not None
    assert compile_regex("a" * MAX_REGEX_PATTERN_LEN).error is None


@pytest.mark.parametrize(
    ("pattern", "subject"),
    [
        (r"^gpt-4(o|-turbo)?$", "gpt-4o"),
        (r"(?i)\bprod(uction)?\b", "PRODUCTION build"),
        (r"^claude-3-.*", "claude-3-opus"),
        (r"@example\.com$", "x@example.com"),
        (r"^[a-z0-9_-]+$", "ok_name-1"),
        (r"x{2,5}", "axxxb"),
        (r"(?P<year>\d{4})-\d\d", "on 2024-05"),
        (r"^a.*z$", "a" + "b" * 4000 + "z"),
    ],
)
def test_everyday_regexes_match_as_python_re_would(pattern: str, subject: str) -> None:
    assert compile_regex(pattern).error is None
    assert match({"s": {"$regex": pattern}}, {"s": subject}) is (re.search(pattern, subject) is not None) is True
    miss = subject.swapcase() + "\n#"
    assert match({"s": {"$regex": pattern}}, {"s": miss}) is (re.search(pattern, miss) is not None)


def test_a_subject_beyond_the_length_cap_is_a_context_side_miss() -> None:
    at_cap = "x" * (MAX_REGEX_SUBJECT_LEN - 6) + "needle"
    assert match({"s": {"$regex": "needle"}}, {"s": at_cap})
    too_long = "x" + at_cap
    assert not match({"s": {"$regex": "needle"}}, {"s": too_long})
    assert match({"s": {"$not": {"$regex": "needle"}}}, {"s": too_long}), "a miss, so $not holds"
    assert match({"s": {"$contains": "needle"}}, {"s": too_long}), "$contains has no such cap"


def test_one_rule_evaluation_has_a_bounded_regex_budget() -> None:
    costly = compile_regex(r"(?:[a-z]{0,30}){0,9}!")
    assert costly.pattern is not None
    subject = "a" * MAX_REGEX_SUBJECT_LEN
    per_test = costly.pattern.program_size * (len(subject) + 1)
    within = REGEX_WORK_BUDGET // per_test
    tests = [{"s": {"$regex": r"(?:[a-z]{0,30}){0,9}!"}} for _ in range(within)]
    # within the budget every test runs; none matches, so $not of the $or holds
    ok = matches({"$not": {"$or": tests}}, None, {"s": subject})
    assert ok.matched and ok.errors == ()
    # one test more and the condition is abandoned: it never matches, even under $not
    over = matches({"$not": {"$or": [*tests, tests[0]]}}, None, {"s": subject})
    assert not over.matched and any("budget" in e for e in over.errors)
    # the budget is per rule evaluation: ``if`` and exceptions share it
    veto = {"s": {"$regex": r"(?:[a-z]{0,30}){0,9}"}}
    assert matches({}, [veto], {"s": subject}).excepted_by == 0, "alone, the exception vetoes the rule"
    shared = matches({"$not": {"$or": tests}}, [veto], {"s": subject})
    assert shared.matched and shared.excepted_by is None, "past the budget an exception excludes nothing"
    assert any(e.startswith("exceptions[0]") and "budget" in e for e in shared.errors)


def test_short_subjects_leave_room_for_many_tests() -> None:
    tests = [{"s": {"$regex": f"^v{i}$"}} for i in range(150)]
    assert matches({"$or": tests}, None, {"s": "v149"}).matched


def test_regex_compilation_is_cached() -> None:
    first, second = compile_regex("^cache-me$"), compile_regex("^cache-me$")
    assert first.pattern is not None and first.pattern is second.pattern


def test_defects_are_named_by_their_path() -> None:
    assert validate_condition({"agent": {"role": {"$in": 3}}}) == ["agent.role.$in: operand must be an array"]
    assert validate_condition({"a.b": {"$regex": "("}})[0].startswith("a.b.$regex: ")


def test_a_satisfied_not_over_an_and_names_its_leaves() -> None:
    result = matches({"$not": {"$and": [{"a": 1}, {"b": 2}]}}, None, {"a": 1, "b": 3})
    assert result.matched and result.condition_paths == ("$not(a, b)",)
