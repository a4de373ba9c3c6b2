"""`platformctl` friction (issue 29 item 13): `--version`, states as `--state` takes them, who `auth status`
names, confirmation of `rm` at a terminal, repo and path columns, built-in roles under a default organization,
re-enabling a subscription."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from platform_api.ctl import main as ctl_main
from tests.functional.ctl.cli import PLATFORMCTL, Ctl
from tests.helpers import Server, unique
from tests.helpers.run_cli import run_cli, run_entry


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    c = Ctl(server, tmp_path, server.token)
    org = unique("org")
    assert c("iam", "groups", "create", org).code == 0
    assert c("config", "set", "org", org).code == 0
    return c


def test_both_clis_tell_their_version(tmp_path: Path) -> None:
    version = metadata.version("platform-api")
    env = {"XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    r = run_entry(ctl_main.main, [PLATFORMCTL], "platformctl", ["--version"], env=env)
    assert (r.returncode, r.stdout) == (0, f"platformctl {version}\n"), r
    r = run_cli("--version")
    assert (r.returncode, r.stdout) == (0, f"platform-api {version}\n"), r
