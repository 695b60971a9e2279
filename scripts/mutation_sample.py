"""A reproducible random sample of mutant names, for scripts/mutation.sh --sample.

Reads the mutants mutmut generated (``mutants/**/*.meta``) and prints, one a line, ``SIZE``
names drawn with ``SEED`` from each part of the core: rules, store, and visibility with the
read path (jobs are few enough to run whole: ``scripts/mutation.sh 'memlane.jobs*'``)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

PARTS = (("memlane.rules.",), ("memlane.store.",), ("memlane.domain.visibility", "memlane.services.reading"))


def main(size: int, seed: int) -> None:
    names = sorted(
        name
        for meta in Path("mutants").rglob("*.meta")
        for name in json.loads(meta.read_text()).get("exit_code_by_key", {})
    )
    draw = random.Random(seed)
    for prefixes in PARTS:
        part = [n for n in names if n.startswith(prefixes)]
        for name in sorted(draw.sample(part, min(size, len(part)))):
            print(name)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)
