"""The API's layout is what docs/architecture.md says it is: one package per surface, shared
code in api/common, and no package that imports one which imports it back."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "src" / "memlane" / "api"
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text()


def _packages() -> list[str]:
    return sorted(p.parent.name for p in API.glob("*/__init__.py"))


def _imported_api_packages(package: str) -> set[str]:
    """The other api packages a package's modules import (at any depth: a function's own
    import counts too)."""
    found: set[str] = set()
    for path in (API / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["memlane", "api"] and len(parts) > 2 and parts[2] != package:
                    found.add(parts[2])
    return found


def test_every_api_package_is_in_the_architecture_tree() -> None:
    tree = ARCHITECTURE.split("```")[1]
    missing = [p for p in _packages() if f"{p}/" not in tree]
    assert missing == []


def test_every_surface_has_its_routes_module() -> None:
    without = [p for p in _packages() if p != "common" and not (API / p / "routes.py").exists()]
    assert without == []


def test_no_api_package_imports_one_that_imports_it() -> None:
    graph = {p: _imported_api_packages(p) for p in _packages()}
    cycles = sorted((a, b) for a, deps in graph.items() for b in deps if a < b and a in graph.get(b, set()))
    assert cycles == []
    # and the shared code depends on no surface
    assert graph["common"] - {"common"} == set()


def test_the_ui_templates_and_static_files_ship_in_the_package() -> None:
    """A fresh install has only what package-data names: every template and static file must match."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["memlane"]
    src = ROOT / "src" / "memlane"
    shipped = {f for pattern in patterns for f in src.glob(pattern)}
    needed = {f for d in ("templates", "static") for f in (API / "ui" / d).iterdir() if f.is_file()}
    assert needed and needed - shipped == set()
