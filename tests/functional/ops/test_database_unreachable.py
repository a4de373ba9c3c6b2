"""A database that cannot be opened (issue 29 item 6): every command that opens it, `serve` included, stops with
exit code 8 (UNAVAILABLE in the table both CLIs share, ctl/exit_codes.py) and one line on stderr naming the
database (its URL without the password) and what to do, not the driver's traceback (`serve`: before it
starts its workers, not after Granian's crash loop)."""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from platform_api.ctl import exit_codes
from tests.helpers import BACKENDS, PG_ADMIN, free_port
from tests.helpers.run_cli import run_cli

# Each command that opens the database, with the arguments it needs to get that far.
COMMANDS = [
    ["migrate"],
    ["bootstrap"],
    ["token", "--identity", "x"],
    ["grant", "--group", "g", "--identity", "i", "--role-name", "r", "advisories.create"],
    ["keys", "list"],
    ["domains", "ls"],
    ["import", "sbom", "repo", "sha256:" + "0" * 64, "sbom.json"],
    ["dispatch"],
]


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    """A loopback port bound but never listening: connections to it are refused, and nobody else takes it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def _targets(closed_port: int, tmp: Path) -> dict[str, tuple[str, str, str]]:
    """Unreachable databases: their URL, what the line must name, and words of its advice."""
    (tmp / "a-file").write_text("")
    pg = PG_ADMIN.rsplit("/", 1)[0]
    return {
        "refused": (
            f"postgresql://someone:s3cret@127.0.0.1:{closed_port}/db",
            f"127.0.0.1:{closed_port}",
            "is PostgreSQL running",
        ),
        "missing database": (f"{pg}/pa_missing_{secrets.token_hex(4)}", "pa_missing_", "createdb"),
        "sqlite folder blocked": (
            f"sqlite:///{tmp / 'a-file' / 'sub' / 'x.db'}",
            str(tmp / "a-file"),
            "choose another path",
        ),
        "sqlite path a folder": (f"sqlite:///{tmp}", str(tmp), "choose another path"),
    }


TARGETS = ["refused", "missing database", "sqlite folder blocked", "sqlite path a folder"]


def _check(r: subprocess.CompletedProcess[str], command: str, names: str, advice: str) -> None:
    assert r.returncode == exit_codes.UNAVAILABLE, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"platform-api {command}: cannot open the database "), lines[0]
    assert names in lines[0] and advice in lines[0] and "s3cret" not in lines[0], lines[0]
    assert r.stdout == ""


def _skip_without_postgres(target: str) -> None:
    if target == "missing database" and "postgres" not in BACKENDS:
        pytest.skip("PostgreSQL not among PLATFORM_API_TEST_BACKENDS")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_command_stops_with_one_line(args: list[str], target: str, closed_port: int, tmp_path: Path) -> None:
    _skip_without_postgres(target)
    url, names, advice = _targets(closed_port, tmp_path)[target]
    r = run_cli(*args, "--database", url)
    command = " ".join(args[:2]) if args[0] in ("import", "domains", "keys") else args[0]
    _check(r, command, names, advice)


@pytest.mark.parametrize("target", TARGETS)
def test_serve_stops_with_one_line_before_its_workers(target: str, closed_port: int, tmp_path: Path) -> None:
    _skip_without_postgres(target)
    url, names, advice = _targets(closed_port, tmp_path)[target]
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--http-port",
           str(free_port()), "--grpc-port", str(free_port()), "--database", url]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    _check(r, "serve", names, advice)
