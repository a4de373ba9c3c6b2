"""The tree stays lint-clean (ruff) and the core type-checks (mypy). CI runs these as a step of its own after
the suite (.ci/run: `ruff check`, `ruff format --check`, `mypy`); here they run inside pytest only on request,
PLATFORM_API_TEST_LINT=1 (~20 s of the suite's two processes otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    os.environ.get("PLATFORM_API_TEST_LINT") != "1", reason="lint runs as .ci/run's own step (PLATFORM_API_TEST_LINT=1)"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff() -> None:
    r = _run("ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format() -> None:
    r = _run("ruff", "format", "--check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy() -> None:
    r = _run("mypy")
    assert r.returncode == 0, r.stdout + r.stderr
