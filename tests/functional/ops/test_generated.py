"""The committed generated code is exactly what scripts/gen_proto.py produces from proto/."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GEN = ROOT / "src" / "platform_api" / "gen"


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_generated_code_is_current(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(out)], check=True)
    fresh, committed = _files(out), _files(GEN)
    assert sorted(fresh) == sorted(committed), "run: python scripts/gen_proto.py"
    stale = [name for name in fresh if not filecmp.cmp(fresh[name], committed[name], shallow=False)]
    assert not stale, f"stale generated files {stale}; run: python scripts/gen_proto.py"
