"""`platform-api import <kind> ... --database <the server's database>` as the tests run it: the completed
process whatever its exit code, and the two outcomes the importers promise (see `cli.import_cmd`):
a JSON summary on stdout (exit 0), or a refusal that applies nothing (exit 7, INVALID in the exit-code table
both CLIs share: `{"error": {file, place, problem}}` on stdout and one line on stderr)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from platform_api.ctl import exit_codes
from tests.helpers.run_cli import run_cli
from tests.helpers.server import Server


def run_import(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    """`platform-api import <args>` against the server's database, whatever its exit code."""
    return run_cli("import", *args, "--database", server.database_url)


def summary_of(r: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON summary of an import that applied everything (exit 0)."""
    assert r.returncode == 0, (r.returncode, r.stderr)
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def refusal_of(r: subprocess.CompletedProcess[str]) -> tuple[dict[str, str], str]:
    """An import refused in one line (exit 7): its JSON error ({file, place, problem}) and that line."""
    assert r.returncode == exit_codes.INVALID, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    error: dict[str, str] = json.loads(r.stdout)["error"]
    return error, lines[0]


def imported(server: Server, *args: str) -> dict[str, Any]:
    """`platform-api import <args>` that must apply everything: its JSON summary."""
    return summary_of(run_import(server, *args))


def refused(server: Server, *args: str) -> tuple[dict[str, str], str]:
    """`platform-api import <args>` that must be refused in one line: its JSON error and the line."""
    return refusal_of(run_import(server, *args))
