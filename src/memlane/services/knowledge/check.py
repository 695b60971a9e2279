"""knowledge_check: planned files and dependencies against every applicable constraint.

Semantics per operator (see ``model.py`` for targets and pattern rules):

* ``must_not_use`` / ``must_not_match``: every dependency, import, file path or content line
  that matches is a violation (content and imports report file and line).
* ``must_use``: at least one of the checked dependencies / imports / file paths / content
  lines must match; judged only when the check includes something of that target.
* ``must_match``: every checked dependency / import / file path must match; for content, every
  checked file must contain a matching line.

``passed`` is false when any ``block`` violation exists, whatever ``minSeverity`` hides.

Patterns run on RE2 (``constraint_pattern``): linear time, so the work of one test is bounded by
the pattern's program size (at most ``MAX_PROGRAM_SIZE`` instructions) times the subject. Each
subject (a dependency or import name, a path, a content line) is tested on its first
``MAX_SUBJECT_CHARS`` characters; ``checked.truncatedSubjects`` counts the longer ones. A stored
constraint RE2 cannot run (only rows stored before patterns were checked) is skipped and
counted in ``checked.skippedConstraints``, never an error. The service runs the check in a
worker thread: RE2 releases the GIL while it matches, so the event loop keeps serving.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from memlane.domain.patterns import PatternError, UserPattern
from memlane.services.knowledge.imports import parse_imports
from memlane.services.knowledge.model import SEVERITY_RANK, constraint_pattern
from memlane.store.knowledge import KnowledgeRecord

#: characters of one subject (name, path, content line) a pattern is tested on
MAX_SUBJECT_CHARS: Final = 10_000


@dataclass(frozen=True, slots=True)
class CheckedFile:
    path: str
    content: str


@dataclass(frozen=True, slots=True)
class Dependency:
    name: str
    version: str | None = None


@dataclass(slots=True)
class CheckResult:
    passed: bool
    violations: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=lambda: {"info": 0, "warn": 0, "block": 0})
    checked: dict[str, int] = field(default_factory=dict)


def _applies(constraint: dict[str, Any], path: str) -> bool:
    globs = constraint.get("appliesTo")
    if not globs:
        return True
    return any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(path.split("/")[-1], g) for g in globs)


def _violation(
    item: KnowledgeRecord, c: dict[str, Any], default_message: str, file: str | None = None, line: int | None = None
) -> dict[str, Any]:
    severity = c.get("severity") or item.severity
    out: dict[str, Any] = {
        "knowledgeItemId": item.id,
        "knowledgeItemTitle": item.title,
        "constraint": {"operator": c["operator"], "target": c["target"], "pattern": c["pattern"]},
        "severity": severity,
        "message": c.get("message") or default_message,
    }
    if file is not None:
        loc: dict[str, Any] = {"file": file}
        if line is not None:
            loc["line"] = line
        out["location"] = loc
    return out


@dataclass(slots=True)
class _Matcher:
    """A constraint's pattern with the subject cap applied, counting the subjects it cut."""

    pattern: UserPattern
    truncated: int = 0

    def _subject(self, text: str) -> str:
        if len(text) <= MAX_SUBJECT_CHARS:
            return text
        self.truncated += 1
        return text[:MAX_SUBJECT_CHARS]

    def search(self, text: str) -> bool:
        return self.pattern.search(self._subject(text))

    def fullmatch(self, text: str) -> bool:
        return self.pattern.fullmatch(self._subject(text))


def evaluate_constraint(
    item: KnowledgeRecord, c: dict[str, Any], rx: _Matcher, files: list[CheckedFile], deps: list[Dependency]
) -> list[dict[str, Any]]:
    """The violations of one constraint, by what it targets: dependencies, imports, file paths,
    or (the default) file content line by line."""
    check = _Check(item, c, rx, f"{c['target']} pattern /{c['pattern']}/ ({item.id})")
    target = c["target"]
    if target == "dependency":
        return check.dependencies(deps)
    scoped = [f for f in files if _applies(c, f.path)]
    if target == "import":
        return check.imports(scoped)
    if target == "file":
        return check.files(scoped)
    return check.content(scoped)


_S = TypeVar("_S")


@dataclass(frozen=True, slots=True)
class _Check:
    """One constraint against one kind of target; ``what`` names it in every message."""

    item: KnowledgeRecord
    c: dict[str, Any]
    rx: _Matcher
    what: str

    @property
    def op(self) -> str:
        return str(self.c["operator"])

    @property
    def forbids(self) -> bool:
        return self.op in ("must_not_use", "must_not_match")

    def violation(self, message: str, path: str | None = None, line: int | None = None) -> dict[str, Any]:
        return _violation(self.item, self.c, message, path, line)

    def judge(
        self,
        subjects: Sequence[_S],
        hit: Callable[[_S], bool],
        *,
        forbidden: Callable[[_S], dict[str, Any]],
        missing: str,
        mismatch: Callable[[_S], dict[str, Any]],
    ) -> list[dict[str, Any]]:
        """The operator over ``subjects`` (none: nothing to judge): each forbidden one that
        ``hit`` finds; one violation when a required pattern is found nowhere (``missing``); each
        that must match and does not."""
        if not subjects:
            return []
        if self.forbids:
            return [forbidden(s) for s in subjects if hit(s)]
        return self.require(subjects, hit, missing=missing, mismatch=mismatch)

    def require(
        self,
        subjects: Sequence[_S],
        hit: Callable[[_S], bool],
        *,
        missing: str,
        mismatch: Callable[[_S], dict[str, Any]],
    ) -> list[dict[str, Any]]:
        if self.op == "must_use" and not any(hit(s) for s in subjects):
            return [self.violation(missing)]
        if self.op == "must_match":
            return [mismatch(s) for s in subjects if not hit(s)]
        return []

    def dependencies(self, deps: list[Dependency]) -> list[dict[str, Any]]:
        what = self.what
        return self.judge(
            deps,
            lambda d: self.rx.fullmatch(d.name),
            forbidden=lambda d: self.violation(f"dependency {d.name!r} is not allowed: {what}"),
            missing=f"none of the dependencies matches the required {what}",
            mismatch=lambda d: self.violation(f"dependency {d.name!r} does not match the required {what}"),
        )

    def imports(self, scoped: list[CheckedFile]) -> list[dict[str, Any]]:
        what = self.what
        imports = [(f, i) for f in scoped for i in parse_imports(f.path, f.content)]
        return self.judge(
            imports,
            lambda fi: any(self.rx.fullmatch(n) for n in fi[1].names),
            forbidden=lambda fi: self.violation(
                f"import of {fi[1].module!r} is not allowed: {what}", fi[0].path, fi[1].line
            ),
            missing=f"no checked file imports the required {what}",
            mismatch=lambda fi: self.violation(
                f"import of {fi[1].module!r} does not match the required {what}", fi[0].path, fi[1].line
            ),
        )

    def files(self, scoped: list[CheckedFile]) -> list[dict[str, Any]]:
        what = self.what
        return self.judge(
            scoped,
            lambda f: self.rx.search(f.path),
            forbidden=lambda f: self.violation(f"file {f.path!r} is not allowed: {what}", f.path),
            missing=f"none of the checked files matches the required {what}",
            mismatch=lambda f: self.violation(f"file path {f.path!r} does not match the required {what}", f.path),
        )

    def content(self, scoped: list[CheckedFile]) -> list[dict[str, Any]]:
        """Line by line: a forbidden pattern is reported on each line it matches; a required one
        must be in some line of every file (must_match) or of any file (must_use)."""
        if not scoped:
            return []
        what, rx = self.what, self.rx
        if self.forbids:
            return [
                self.violation(f"line matches the forbidden {what}", f.path, no)
                for f in scoped
                for no, line in enumerate(f.content.splitlines(), start=1)
                if rx.search(line)
            ]
        return self.require(
            scoped,
            lambda f: any(rx.search(line) for line in f.content.splitlines()),
            missing=f"no checked file contains the required {what}",
            mismatch=lambda f: self.violation(f"file {f.path!r} contains nothing matching the required {what}", f.path),
        )


def run_check(
    items: list[KnowledgeRecord], files: list[CheckedFile], deps: list[Dependency], min_severity: str
) -> CheckResult:
    violations: list[dict[str, Any]] = []
    constraints = skipped = truncated = 0
    for item in items:
        for c in item.constraints:
            constraints += 1
            try:
                rx = _Matcher(constraint_pattern(c["pattern"]))
            except PatternError:
                skipped += 1
                continue
            violations += evaluate_constraint(item, c, rx, files, deps)
            truncated += rx.truncated
    blocked = any(v["severity"] == "block" for v in violations)
    floor = SEVERITY_RANK[min_severity]
    reported = [v for v in violations if SEVERITY_RANK[v["severity"]] >= floor]
    summary = {"info": 0, "warn": 0, "block": 0}
    for v in reported:
        summary[v["severity"]] += 1
    return CheckResult(
        passed=not blocked,
        violations=reported,
        summary=summary,
        checked={
            "items": len(items),
            "constraints": constraints,
            "files": len(files),
            "dependencies": len(deps),
            "skippedConstraints": skipped,
            "truncatedSubjects": truncated,
        },
    )
