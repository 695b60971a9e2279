"""What a source file imports, with line numbers: Python and JavaScript/TypeScript.

Python: ``import a.b``, ``import a, b as c``, ``from a.b import c`` (relative ``from . import``
is skipped: it names no package). JS/TS: ``import x from 'm'``, ``import {a} from "m"``,
``import 'm'``, ``export ... from 'm'``, ``require('m')``, ``import('m')``. Each import is
reported as the module and, for matching, also its package (``a.b`` -> ``a``;
``@scope/pkg/sub`` -> ``@scope/pkg``; ``lodash/fp`` -> ``lodash``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PY_EXT = (".py", ".pyi")
JS_EXT = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")

_PY_IMPORT = re.compile(r"^\s*import\s+(.+?)\s*(?:#.*)?$")
_PY_FROM = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\b")
_JS_FROM = re.compile(r"""(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1""")
_JS_BARE = re.compile(r"""^\s*import\s*(['"])([^'"]+)\1""")
_JS_CALL = re.compile(r"""\b(?:require|import)\s*\(\s*(['"])([^'"]+)\1\s*\)""")


@dataclass(frozen=True, slots=True)
class Import:
    module: str
    line: int

    @property
    def package(self) -> str:
        m = self.module
        if m.startswith("@"):
            return "/".join(m.split("/")[:2])
        if "/" in m:
            return m.split("/")[0]
        return m.split(".")[0]

    @property
    def names(self) -> tuple[str, ...]:
        """The names a pattern is matched against: the module, and its package if different."""
        return (self.module,) if self.package == self.module else (self.module, self.package)


def language_of(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith(PY_EXT):
        return "python"
    if lower.endswith(JS_EXT):
        return "javascript"
    return None


def parse_imports(path: str, content: str) -> list[Import]:
    lang = language_of(path)
    if lang == "python":
        return _python(content)
    if lang == "javascript":
        return _javascript(content)
    return []


def _python(content: str) -> list[Import]:
    out: list[Import] = []
    for no, line in enumerate(content.splitlines(), start=1):
        m = _PY_FROM.match(line)
        if m:
            out.append(Import(m.group(1), no))
            continue
        m = _PY_IMPORT.match(line)
        if m:
            for part in m.group(1).split(","):
                name = part.strip().split(" as ")[0].strip().strip("()")
                if re.fullmatch(r"[A-Za-z_][\w.]*", name):
                    out.append(Import(name, no))
    return out


def _javascript(content: str) -> list[Import]:
    out: list[Import] = []
    for no, line in enumerate(content.splitlines(), start=1):
        found: list[str] = []
        for rx in (_JS_FROM, _JS_BARE, _JS_CALL):
            found += [m.group(2) for m in rx.finditer(line)]
        for module in dict.fromkeys(found):
            out.append(Import(module, no))
    return out
