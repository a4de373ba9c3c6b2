"""Write tests/helpers/file_times.json, the seconds each test file took, from a run's JUnit XML:

    .venv/bin/python -m pytest --junitxml=build/junit.xml && .venv/bin/python scripts/file_times.py build/junit.xml

The suite hands files to its workers longest first (tests/helpers/schedule.py), so that no long file starts last
and runs alone at the end; refresh the file when files are added or change much (a stale one only orders less
well: a file it does not know is weighed by its number of tests)."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "helpers" / "file_times.json"


def file_of(classname: str) -> str:
    """`tests.functional.ops.test_x.TestY` -> `functional/ops/test_x.py`."""
    parts = classname.split(".")
    last = max(i for i, p in enumerate(parts) if p.startswith("test_"))
    return "/".join(parts[1 : last + 1]) + ".py"


def main(junit: str) -> None:
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):
        seconds[file_of(case.get("classname", ""))] += float(case.get("time") or 0)
    ordered = {f: round(s, 1) for f, s in sorted(seconds.items(), key=lambda kv: -kv[1])}
    OUT.write_text(json.dumps(ordered, indent=0) + "\n")
    print(f"{OUT}: {len(ordered)} files, {sum(ordered.values()):.0f} s in all")


if __name__ == "__main__":
    main(sys.argv[1])
