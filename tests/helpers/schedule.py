"""The order in which a run hands its test files to pytest-xdist's workers: longest first (file_times.json,
written by scripts/file_times.py), so that a long file never starts last and runs alone while the other
workers idle. pytest-xdist's own reordering (files with the most tests first) put the one-test fuzz files, the
longest of all, at the very end; `--no-loadscope-reorder` (pyproject's addopts) keeps this order instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TIMES = Path(__file__).with_name("file_times.json")
# A file the times do not know yet: weighed by its tests, at about what an average test takes.
PER_TEST = 0.3


def longest_first(items: list[pytest.Item], root: Path) -> list[pytest.Item]:
    """`items` grouped by file, the files longest first; within a file the order is kept (module-scoped
    fixtures and their parameters depend on it)."""
    known: dict[str, float] = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)

    def weight(path: Path) -> float:
        relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else ""
        return known.get(relative, PER_TEST * len(by_file[path]))

    files = sorted(by_file, key=lambda f: -weight(f))
    return [item for f in files for item in by_file[f]]
