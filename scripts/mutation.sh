#!/usr/bin/env bash
# Mutation testing of the core (docs/testing.md). Slow, so not part of scripts/test.sh.
#   scripts/mutation.sh                    every mutant of the modules in [tool.mutmut]
#   scripts/mutation.sh 'memlane.rules.*'  only the mutants whose name matches (fnmatch)
#   scripts/mutation.sh --sample 60 SEED   60 random mutants of each part (reproducible by SEED)
# Results stay in ./mutants; `.venv/bin/mutmut results` lists survivors, `mutmut show NAME` the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
export MEMLANE_TEST_SKIP_POSTGRES=1  # a PostgreSQL server per mutant run costs more than the run
children="${MUTMUT_CHILDREN:-2}"
if [ "${1:-}" = "--sample" ]; then
  size="${2:?sample size}"
  seed="${3:-1}"
  # generate (and list) every mutant first, then run the sample
  .venv/bin/mutmut run --max-children "$children" 'no-such-mutant*' >/dev/null 2>&1 || true
  mapfile -t names < <(.venv/bin/python scripts/mutation_sample.py "$size" "$seed")
  .venv/bin/mutmut run --max-children "$children" "${names[@]}"
else
  .venv/bin/mutmut run --max-children "$children" "$@"
fi
.venv/bin/mutmut results
