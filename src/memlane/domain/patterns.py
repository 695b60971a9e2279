"""User-supplied regular expressions, compiled with RE2 so that matching runs in linear time.

Python's ``re`` backtracks: ``(a+)+$`` on 30 characters takes seconds and holds the event loop
(and the GIL) for all of it. RE2 (``google-re2``) never backtracks; its cost is bounded by the
size of the compiled program times the length of the subject. Every pattern a caller can store
(rule ``$regex`` operands, knowledge constraint patterns) goes through :func:`compile_pattern`.

The costs are capped here, once for every caller:

* the compiled program may have at most :data:`MAX_PROGRAM_SIZE` RE2 instructions (a pattern
  such as ``(.*){1000}`` is ten characters long but compiles to 10,000 instructions);
* each compiled pattern may use at most :data:`RE2_MAX_MEM` bytes (program and the lazily built
  DFA together; past it RE2 falls back to its slower, still linear, NFA);
* the cache holds :data:`CACHE_SIZE` compiled patterns, so memory stays bounded too.

Callers cap the subject length themselves (their semantics differ: a rule treats an over-long
string as a miss, a knowledge check reads the first characters of a line).

RE2's syntax is Python's minus the constructs that need backtracking: backreferences
(``\\1``, ``(?P=name)``), lookaround (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), atomic groups and
possessive quantifiers, conditionals, verbose mode ``(?x)``, and ``\\Z`` (RE2 spells it ``\\z``).
Such patterns are refused with :class:`PatternError`, whose message names the construct.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final

import re2

#: largest compiled program accepted, in RE2 instructions (work per character scanned)
MAX_PROGRAM_SIZE: Final = 1000
#: memory one compiled pattern may use (program + DFA cache), in bytes
RE2_MAX_MEM: Final = 1 << 20
#: compiled patterns kept; with RE2_MAX_MEM this bounds the cache's memory
CACHE_SIZE: Final = 256

_HINTS: Final = (
    ("invalid escape sequence: \\Z", "\\Z is not supported; RE2 spells end-of-text \\z"),
    ("invalid escape sequence: \\", "backreferences and unknown escapes are not supported"),
    ("invalid named capture group", "invalid group name"),
    ("(?P=", "backreferences are not supported"),
    ("(?=", "lookahead is not supported"),
    ("(?!", "negative lookahead is not supported"),
    ("(?<=", "lookbehind is not supported"),
    ("(?<!", "negative lookbehind is not supported"),
    ("(?>", "atomic groups are not supported"),
    ("(?(", "conditionals are not supported"),
    ("(?x", "verbose mode (?x) is not supported"),
    ("bad repetition operator", "possessive or doubled quantifiers are not supported"),
    ("pattern too large", f"the pattern is too complex (more than {MAX_PROGRAM_SIZE} RE2 instructions)"),
)


class PatternError(ValueError):
    """The pattern cannot be run by RE2 within the caps; the message says why."""


@dataclass(frozen=True, slots=True)
class UserPattern:
    """A compiled user pattern; matching never raises and never backtracks."""

    source: str
    #: RE2 instructions: the work per subject character in the worst case
    program_size: int
    _regex: Any

    def search(self, text: str) -> bool:
        return self._regex.search(text) is not None

    def fullmatch(self, text: str) -> bool:
        return self._regex.fullmatch(text) is not None


def _options(ignore_case: bool) -> Any:
    options = re2.Options()
    options.log_errors = False  # errors come back as PatternError, not as lines on stderr
    options.max_mem = RE2_MAX_MEM
    options.case_sensitive = not ignore_case
    return options


def _explain(raw: str, pattern: str) -> str:
    """RE2's message with a hint naming the construct (RE2 cuts ``(?P=`` to ``(?P``)."""
    for needle, hint in _HINTS:
        if needle in raw or (needle.startswith("(?") and needle in pattern):
            return f"{hint} (RE2: {raw})"
    return f"not a valid RE2 pattern: {raw}"


@functools.lru_cache(maxsize=CACHE_SIZE)
def _compile(pattern: str, ignore_case: bool) -> UserPattern | str:
    try:
        regex = re2.compile(pattern, _options(ignore_case))
    except re2.error as exc:
        raw = exc.args[0] if exc.args else exc
        return _explain(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw), pattern)
    except (TypeError, ValueError) as exc:  # e.g. a lone surrogate that UTF-8 cannot encode
        return f"not a valid RE2 pattern: {exc}"
    size = int(regex.programsize)
    if size > MAX_PROGRAM_SIZE:
        return f"the pattern is too complex: {size} RE2 instructions, at most {MAX_PROGRAM_SIZE}"
    return UserPattern(pattern, size, regex)


def forget_compiled() -> None:
    """Drop every cached pattern (an erasure must not leave erased text in memory)."""
    _compile.cache_clear()


def compile_pattern(pattern: str, *, max_length: int, ignore_case: bool = False) -> UserPattern:
    """Compile (or fetch from the cache) a user pattern; :class:`PatternError` says why not."""
    if not isinstance(pattern, str):
        raise PatternError("must be a string")
    if len(pattern) > max_length:
        raise PatternError(f"longer than {max_length} characters")
    compiled = _compile(pattern, ignore_case)
    if isinstance(compiled, str):
        raise PatternError(compiled)
    return compiled


__all__ = [
    "CACHE_SIZE",
    "MAX_PROGRAM_SIZE",
    "RE2_MAX_MEM",
    "PatternError",
    "UserPattern",
    "compile_pattern",
    "forget_compiled",
]
