#!/usr/bin/env bash
# The TypeScript SDK's check (clients/typescript): installs its dev dependencies from the lock
# file, builds it, and runs its tests against real memlane servers started from .venv
# (scripts/setup.sh makes it). Needs Node.js 20 or newer with npm.
set -euo pipefail
cd "$(dirname "$0")/../clients/typescript"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "scripts/test-typescript.sh: the TypeScript SDK's tests (clients/typescript) need Node.js 20 or newer with npm;" \
    "node or npm is not on PATH: install Node.js 20+ and run ./scripts/test.sh again" >&2
  exit 1
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "scripts/test-typescript.sh: the TypeScript SDK needs Node.js 20 or newer; $(command -v node) is $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
npm test
