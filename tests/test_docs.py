"""The docs held true by tests: the README's quick start and settings, every error code the code
can return, the package tree of docs/architecture.md, and every file a doc or docstring names.

A newcomer reads the docs before the code; each test here fails the day a change makes a doc
say something the code no longer does, and says which line to fix.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

from memlane.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "memlane"
README = (ROOT / "README.md").read_text()
DOCS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_quick_start_is_exactly_two_commands() -> None:
    block = re.search(r"## Quick start\s+```\n(.*?)```", README, re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert "memlane serve" in lines[0]
    assert lines[1] == "./scripts/test.sh"


def test_every_setting_is_documented_in_the_readme() -> None:
    missing = [names for _, _, names in Settings.env_names() if not any(n in README for n in names)]
    assert missing == []


#: an environment variable's name as code spells it: quoted (a Python constant is not one)
ENV_NAME = re.compile(r"(?<=[\"'`])(?:MEMLANE|MEMORY|TENANT|OMNIMEMORY)_[A-Z0-9_]*[A-Z0-9](?=[\"'`])")
#: variables a CLI option reads itself (typer ``envvar=``), documented with the command
CLI_OPTION_VARS = re.compile(r"^MEMLANE_MCP_")


def _settings_names() -> set[str]:
    return {n for _, _, names in Settings.env_names() for n in names}


def test_only_settings_read_the_environment() -> None:
    """One place reads configuration: a module that calls os.environ or getenv itself would
    escape the README's table and validation at start-up."""
    readers = [
        str(p.relative_to(ROOT))
        for p in SRC.rglob("*.py")
        if p.name != "config.py" and re.search(r"os\.environ\.get\(|os\.getenv\(|environ\[", p.read_text())
    ]
    assert readers == []


def test_every_variable_named_in_the_code_is_a_setting_and_documented() -> None:
    known = _settings_names()
    named = {m for p in SRC.rglob("*.py") for m in ENV_NAME.findall(p.read_text())}
    outside = sorted(n for n in named if n not in known and not CLI_OPTION_VARS.match(n))
    assert outside == []
    undocumented = sorted(n for n in named if n not in README)
    assert undocumented == []


def test_docs_link_only_to_files_that_exist() -> None:
    broken = []
    for page in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


# --- error codes ---------------------------------------------------------------------------
#: what an error code looks like (``invalid_request``, ``not_found``)
CODE = re.compile(r"^[a-z]+(?:_[a-z]+)*$")


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _module_constants(trees: dict[Path, ast.Module]) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for tree in trees.values():
        for st in tree.body:
            target = (
                st.targets[0] if isinstance(st, ast.Assign) else st.target if isinstance(st, ast.AnnAssign) else None
            )
            if isinstance(target, ast.Name) and st.value is not None:  # type: ignore[union-attr]
                out[target.id] = st.value  # type: ignore[union-attr]
    return out


def _codes_of(node: ast.AST, constants: dict[str, ast.expr]) -> list[str]:
    """The codes one AST node sets, by each way the code base spells an error code."""
    if isinstance(node, ast.keyword) and node.arg == "code":  # Conflict(..., code="x"), code=CONST, code=MAP[k]
        value = node.value
        if isinstance(value, ast.Name) and value.id in constants:
            return _strings(constants[value.id])
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in constants:
            return _strings(constants[value.value.id])
        return _strings(value) if isinstance(value, ast.Constant) else []
    if isinstance(node, ast.ClassDef):  # class NotFound(MemlaneError): code = "not_found"
        return [
            c
            for st in node.body
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "code" for t in st.targets)
            for c in _strings(st.value)
        ]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # def record_error(..., code: str = "x")
        args = node.args
        pairs = [
            *zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True),
            *zip(args.kwonlyargs, args.kw_defaults, strict=True),
        ]
        return [c for arg, default in pairs if arg.arg == "code" and default is not None for c in _strings(default)]
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets):
        return _strings(node.value)  # code = {404: "not_found", ...}.get(status, ...)
    if isinstance(node, ast.Call) and len(node.args) >= 3:  # render(path, 403, "cross_origin_forbidden", ...)
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name == "render" and isinstance(node.args[2], ast.Constant):
            return _strings(node.args[2])
    return []


@cache
def error_codes() -> dict[str, str]:
    """Every error code the server can answer with, and the first module that sets it."""
    trees = {p: ast.parse(p.read_text()) for p in sorted(SRC.rglob("*.py"))}
    constants = _module_constants(trees)
    found: dict[str, str] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            for code in _codes_of(node, constants):
                if CODE.match(code):
                    found.setdefault(code, str(path.relative_to(ROOT)))
    return found


def test_the_error_codes_are_found_where_the_code_sets_them() -> None:
    """A guard on the finder itself: one code of each way of setting one."""
    codes = error_codes()
    assert {"not_found", "client_id_in_use", "rule_governance_required", "tenant_rate_limited_write"} <= set(codes)
    assert {"invalid_export_record", "method_not_allowed", "cross_origin_forbidden"} <= set(codes)
    assert len(codes) >= 80


def test_every_error_code_the_code_can_return_is_documented() -> None:
    docs = "\n".join(p.read_text() for p in DOCS)
    undocumented = sorted(
        f"{code} (set in {where})"
        for code, where in error_codes().items()
        if not re.search(rf"(?<![A-Za-z0-9_]){code}(?![A-Za-z0-9_])", docs)
    )
    assert undocumented == [], "document each in the docs/api-*.md of its surface"


# --- the package tree ------------------------------------------------------------------------
def _documented_tree() -> set[str]:
    """The top-level entries of the ``src/memlane/`` block of docs/architecture.md."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = re.search(r"```\nsrc/memlane/\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md has no src/memlane/ tree"
    return set(re.findall(r"^  ([a-z_]+/|[a-z_]+\.py)(?=\s)", block.group(1), re.M))


def _source_tree() -> set[str]:
    packages = {f"{p.name}/" for p in SRC.iterdir() if (p / "__init__.py").exists()}
    modules = {p.name for p in SRC.glob("*.py") if p.name != "__init__.py"}
    return packages | modules


def test_the_package_tree_in_architecture_md_matches_src() -> None:
    documented, actual = _documented_tree(), _source_tree()
    assert sorted(actual - documented) == [], "packages or modules missing from docs/architecture.md"
    assert sorted(documented - actual) == [], "docs/architecture.md names what src/memlane/ no longer has"


# --- file paths ------------------------------------------------------------------------------
#: a file path as prose names one: ``store/sqlite/keyword_rank.py``, ``docs/api-graph.md``
FILE_PATH = re.compile(r"(?<![\w./*{<$-])((?:\.{1,2}/)*(?:[\w.-]+/)*[\w-]+\.(?:py|md|toml|sh))(?![\w/])")


@cache
def _tracked_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return tuple(out.split())


def _names_a_file(name: str, base: Path) -> bool:
    """True when a tracked file is ``name`` (relative to the doc, the repository, or any folder:
    a docstring says ``sqlite/keyword_rank.py`` from within store/), or ``name`` is outside the
    repository (a sibling checkout) or a git-ignored output (bench/results/)."""
    if name.startswith("."):  # relative to the doc, or (a command line: ./scripts/test.sh) the repository
        resolved = next((p for p in ((base / name).resolve(), (ROOT / name).resolve()) if p.exists()), None)
        if resolved is None or not resolved.is_relative_to(ROOT):
            return resolved is not None or not (base / name).resolve().is_relative_to(ROOT)
        name = str(resolved.relative_to(ROOT))
    if any(f == name or f.endswith("/" + name) for f in _tracked_files()):
        return True
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", name], cwd=ROOT).returncode == 0


def _prose_of(module: Path) -> str:
    """A module's docstrings and comments: where code names other files for a reader."""
    text = module.read_text()
    parts = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            parts.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(parts)


def test_every_file_a_doc_or_docstring_names_exists() -> None:
    named = [(page, page.read_text()) for page in DOCS] + [(m, _prose_of(m)) for m in sorted(SRC.rglob("*.py"))]
    missing = sorted(
        f"{where.relative_to(ROOT)}: {name}"
        for where, prose in named
        for name in set(FILE_PATH.findall(prose))
        if not _names_a_file(name, where.parent)
    )
    assert missing == []
