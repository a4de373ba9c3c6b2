"""Every benchmark script imports: a helper moved or renamed breaks here, not in the next person's run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = sorted(p.stem for p in (ROOT / "bench").glob("*.py"))


def test_the_bench_folder_has_scripts() -> None:
    assert "run" in SCRIPTS and "common" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_script_imports(script: str) -> None:
    # Imported as the scripts themselves run: bench/ and the repo root on the path, main() not called.
    code = f"import sys; sys.path[:0] = [{str(ROOT / 'bench')!r}, {str(ROOT)!r}]; import {script}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
