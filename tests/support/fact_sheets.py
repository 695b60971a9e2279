"""The fact sheet of issue #27 item 6, twenty short facts about one person, taken from the
memory-truth benchmark's cases (bench/memory_truth_cases/sheets.py) so that the tests and the
benchmark judge the same text."""

from __future__ import annotations

from bench.memory_truth_cases.sheets import SHEETS

#: "Alice lives in Berlin.", ...: every fact names her, which makes them all look alike
ALICE: list[str] = list(next(s for s in SHEETS if s.id == "sheet-alice").facts)
