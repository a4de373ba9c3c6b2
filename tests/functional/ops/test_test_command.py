"""The README's test command on a machine without docker-registry and skopeo: a run that includes the registry
tests stops at its start with one line naming the command that installs them, instead of skipping them
unseen; PLATFORM_API_TEST_SKIP_REGISTRY=1 skips them; a run without them is not stopped. A bad
PLATFORM_API_TEST_PORTS stops a run the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
REGISTRY_TEST = "tests/functional/registry/test_registry_tokens.py"


def pytest_run(tmp_path: Path, *args: str, collect_only: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    """A run of the suite's own pytest (by default collection only: the start is what is tested) with a PATH
    that has no docker-registry and no skopeo: only a python and a sh."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("sh", "python3"):
        if not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(Path(f"/bin/{tool}") if tool == "sh" else Path(sys.executable))
    # Not this run's: the child is a run of its own (its own number, no xdist worker identity).
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "_PLATFORM_API_TEST", "PLATFORM_API"))}
    full = base | {"PATH": str(bin_dir), "PLATFORM_API_TEST_BACKENDS": "sqlite"} | env
    cmd = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", *args]
    cmd += ["--collect-only"] if collect_only else []
    return subprocess.run(cmd, cwd=ROOT, env=full, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [[REGISTRY_TEST], [REGISTRY_TEST + "::test_x", "tests/unit/core"], []])
def test_a_run_with_the_registry_tests_stops_with_the_command_to_run(tmp_path: Path, args: list[str]) -> None:
    r = pytest_run(tmp_path, *args)
    assert r.returncode == 4, r.stdout + r.stderr
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert lines == [
        "ERROR: docker-registry and skopeo not found, needed by the registry tests: run "
        "`apt-get install -y docker-registry skopeo` (or set PLATFORM_API_TEST_SKIP_REGISTRY=1 to skip those tests)"
    ]


def test_the_registry_tests_skip_when_asked(tmp_path: Path) -> None:
    r = pytest_run(tmp_path, REGISTRY_TEST, "-rs", collect_only=False, PLATFORM_API_TEST_SKIP_REGISTRY="1")
    reason = "docker-registry and skopeo are not installed (apt-get install -y docker-registry skopeo)"
    assert r.returncode == 0 and r.stdout.count(reason) == r.stdout.count("SKIPPED") == 5, r.stdout + r.stderr


def test_a_run_without_the_registry_tests_starts(tmp_path: Path) -> None:
    r = pytest_run(tmp_path, "tests/unit/core")
    assert r.returncode == 0 and "ERROR" not in r.stdout + r.stderr, r.stdout + r.stderr


def test_a_bad_port_range_stops_the_run(tmp_path: Path) -> None:
    r = pytest_run(tmp_path, "tests/unit/core", PLATFORM_API_TEST_PORTS="30000-20000")
    assert r.returncode == 4 and "PLATFORM_API_TEST_PORTS='30000-20000': expected LOW-HIGH" in r.stderr, r.stderr
