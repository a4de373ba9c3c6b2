"""The backend matrix's measurement (tests/helpers/backends.py): line and branch coverage of `store/` and of
every module that runs SQL, by the measured matrix and by the full one, from two runs of the whole suite.

    rm -rf .coverage-data
    COVERAGE_FILE=.coverage-data/reduced/cov .venv/bin/coverage run -m pytest
    COVERAGE_FILE=.coverage-data/rest/cov PLATFORM_API_TEST_MATRIX=rest .venv/bin/coverage run -m pytest
    .venv/bin/python -m tests.helpers.matrix_coverage .coverage-data

The second run is exactly what the matrix leaves out, so the two together are the full matrix. Prints a line
per module (full and measured: lines and branches covered of all) and every line or branch the full matrix
covers that the measured one does not; exit code 1 when there is one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "platform_api"
# What runs SQL: the database interface's calls (store/db.py lists them).
SQL_CALLS = (".fetch(", ".fetchrow(", ".fetchval(", ".fetchtuples(", ".execute(", ".executemany(",
             ".executescript(", ".claim(", ".notify(", ".listen(")  # fmt: skip


def sql_modules() -> list[str]:
    """`store/` and every module outside it that calls the database interface, as paths under src/."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if "/gen/" in rel:
            continue
        if "/store/" in rel or any(call in path.read_text() for call in SQL_CALLS):
            out.append(rel)
    return out


def report(data_dirs: list[Path], out: Path, include: list[str]) -> dict[str, dict[str, list[object]]]:
    """Combine the data of `data_dirs` (kept) and the JSON report of `include`: per file, the lines and
    branches executed and missed."""
    data = out.with_suffix(".data")
    coverage = [sys.executable, "-m", "coverage"]
    parts = [str(p) for d in data_dirs for p in sorted(d.iterdir())]
    subprocess.run([*coverage, "combine", "--keep", "-q", f"--data-file={data}", *parts], check=True)
    patterns = ",".join("*/" + i for i in include)
    subprocess.run([*coverage, "json", "-q", f"--data-file={data}", "-o", str(out), f"--include={patterns}"],
                   check=True)  # fmt: skip
    files = json.loads(out.read_text())["files"]
    return {name: {k: files[name][k] for k in ("executed_lines", "missing_lines", "executed_branches",
                                               "missing_branches")} for name in files}  # fmt: skip


def _pct(done: int, total: int) -> str:
    return f"{done}/{total}" + (f" ({100 * done / total:.1f}%)" if total else "")


def main(base: Path) -> int:
    include = sql_modules()
    full = report([base / "reduced", base / "rest"], base / "full.json", include)
    measured = report([base / "reduced"], base / "measured.json", include)
    lost = 0
    totals = [0, 0, 0, 0, 0, 0]
    for name in sorted(full):
        f, m = full[name], measured.get(name, {"executed_lines": [], "executed_branches": []})
        lines = len(f["executed_lines"]) + len(f["missing_lines"])
        branches = len(f["executed_branches"]) + len(f["missing_branches"])
        row = [len(f["executed_lines"]), len(m["executed_lines"]), lines,
               len(f["executed_branches"]), len(m["executed_branches"]), branches]  # fmt: skip
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        gone_lines = sorted(set(f["executed_lines"]) - set(m["executed_lines"]))  # type: ignore[arg-type]
        gone_arcs = sorted(map(tuple, f["executed_branches"]))  # type: ignore[arg-type]
        gone_arcs = [a for a in gone_arcs if list(a) not in m["executed_branches"]]
        lost += len(gone_lines) + len(gone_arcs)
        gone = f"; NOT REACHED: lines {gone_lines} branches {gone_arcs}" if gone_lines or gone_arcs else ""
        print(f"{name}: lines full {_pct(row[0], lines)} measured {_pct(row[1], lines)}; "
              f"branches full {_pct(row[3], branches)} measured {_pct(row[4], branches)}{gone}")  # fmt: skip
    print(f"TOTAL {len(full)} modules: lines full {_pct(totals[0], totals[2])} measured {_pct(totals[1], totals[2])}; "
          f"branches full {_pct(totals[3], totals[5])} measured {_pct(totals[4], totals[5])}; lost {lost}")  # fmt: skip
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".coverage-data"))
