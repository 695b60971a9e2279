"""A reproducible random sample of mutant names, for scripts/mutation.sh --sample.

Reads the mutants mutmut generated (``mutants/**/*.meta``) and prints ``SIZE`` names drawn
uniformly with ``SEED`` (so each package is sampled in proportion to its mutants), one a line."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path


def main(size: int, seed: int) -> None:
    names = sorted(
        name
        for meta in Path("mutants").rglob("*.meta")
        for name in json.loads(meta.read_text()).get("exit_code_by_key", {})
    )
    for name in sorted(random.Random(seed).sample(names, min(size, len(names)))):
        print(name)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)
