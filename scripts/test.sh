#!/usr/bin/env bash
# Sets up the dev environment and runs the whole check: lint, formatting, types, the layer rules
# (import-linter's contracts in pyproject.toml), the TypeScript SDK's
# tests (scripts/test-typescript.sh), then the Python tests.
# pytest's "no tests collected" (exit 5) fails this script like any other failure.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --dev
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
.venv/bin/mypy
.venv/bin/lint-imports
./scripts/test-typescript.sh
.venv/bin/python -m pytest -q "$@"
