"""Every benchmark script imports: a helper moved or renamed breaks here, not in the next person's run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = sorted(p.stem for p in (ROOT / "bench").glob("*.py"))


def test_every_bench_script_imports() -> None:
    # One interpreter, as the scripts themselves run: bench/ and the repo root on the path, main() not called.
    assert "run" in SCRIPTS and "common" in SCRIPTS
    code = (
        f"import importlib, sys; sys.path[:0] = [{str(ROOT / 'bench')!r}, {str(ROOT)!r}]\n"
        f"for name in {SCRIPTS!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        sys.exit(f'{name}: {type(e).__name__}: {e}')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
