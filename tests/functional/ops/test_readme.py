"""The README's path from a fresh database to the first authorized call works as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import start_server, stop_server

ROOT = Path(__file__).resolve().parents[3]


def first_call_block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## First calls") :]
    return re.findall(r"```sh\n(.*?)```", section, re.S)[0]


def test_readme_bootstrap_to_first_call(tmp_path: Path) -> None:
    block = first_call_block()
    assert "bootstrap" in block and "curl" in block
    # The server the README's first command starts: its default database file in the working folder.
    server = start_server("sqlite", tmp_path, database_url=f"sqlite:///{tmp_path / 'platform-api.db'}")
    try:
        (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
        port = server.base_url.rsplit(":", 1)[1]
        script = "set -e\n" + block.replace("localhost:8080", f"localhost:{port}")
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        group = json.loads(r.stdout.strip().splitlines()[-1])
        assert group["uid"] == server.owner_org and group["name"] == "my-org"
    finally:
        stop_server(server)


@pytest.mark.parametrize("fmt", ["json", "env"])
def test_bootstrap_output_formats(tmp_path: Path, fmt: str) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    r = subprocess.run([sys.executable, "-m", "platform_api.cli", "bootstrap", "--database", db, "--format", fmt],
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 0, r.stderr
    if fmt == "json":
        assert set(json.loads(r.stdout)) == {"organization", "identity", "token"}
    else:
        assert [line.split("=", 1)[0] for line in r.stdout.splitlines()] == ["export ORG", "export ME", "export TOKEN"]
