"""`platformctl` at a terminal (a pseudo-terminal): aligned tables, progress while listing and deleting; and
none of that progress when the output goes to a pipe."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, unique

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    c = Ctl(server, tmp_path, server.token)
    org = unique("org")
    assert c("iam", "groups", "create", org).code == 0
    assert c("config", "set", "org", org).code == 0
    return c


def _table(screen: str) -> list[str]:
    """The lines of the table on the screen (progress lines rewritten in place removed)."""
    lines = []
    for line in screen.split("\n"):
        line = ANSI.sub("", line.rsplit("\r", 1)[-1])
        if line.strip():
            lines.append(line)
    return lines


def test_tables_are_aligned_on_a_terminal(ctl: Ctl) -> None:
    for name, desc in (("a", "short"), ("much-longer-name", "a much longer description"), ("mid-name", "")):
        assert ctl("registry", "repos", "create", name, "--description", desc).code == 0
    code, screen = ctl.pty("registry", "repos", "ls")
    assert code == 0, screen
    lines = _table(screen)
    assert lines[0].split() == ["NAME", "UID", "DESCRIPTION"]
    assert sorted(line.split()[0] for line in lines[1:]) == ["a", "mid-name", "much-longer-name"]
    # Every column starts at the same offset on every line.
    uid_at, desc_at = lines[0].index("UID"), lines[0].index("DESCRIPTION")
    for line in lines[1:]:
        assert line[uid_at - 2 : uid_at] == "  " and line[uid_at] != " ", line
        assert re.fullmatch(r"[0-9a-f/]+", line[uid_at:desc_at].strip()), line
    wide = _table(ctl.pty("registry", "repos", "ls", "-o", "wide")[1])
    assert wide[0].split() == ["NAME", "UID", "DESCRIPTION", "ALIASES", "ACTIVE_TAGS", "CREATED"]
    # One record: its fields as aligned "KEY  value" lines.
    one = _table(ctl.pty("registry", "repos", "get", "much-longer-name")[1])
    assert one[0].split() == ["NAME", "much-longer-name"] and one[1].startswith("UID ")
    assert len({line.index(line.split()[1]) for line in one if len(line.split()) > 1}) == 1


def test_progress_on_a_terminal_only(ctl: Ctl) -> None:
    for i in range(5):
        assert ctl("registry", "repos", "create", f"r{i}").code == 0
    code, screen = ctl.pty("registry", "repos", "ls", "--page-size", "2")
    assert code == 0 and "listing repos: 5" in screen and "\x1b[K" in screen
    piped = ctl("registry", "repos", "ls", "--page-size", "2", "-o", "json")
    assert piped.code == 0 and piped.err == ""
    code, screen = ctl.pty("registry", "repos", "rm", "--yes", "r0", "r1", "r2")
    assert code == 0 and "deleting repos: 3/3" in screen
    assert screen.count("deleted repo ") == 3
    piped = ctl("registry", "repos", "rm", "r3", "r4")
    assert piped.code == 0 and piped.err == "" and piped.out.count("deleted repo ") == 2


def test_errors_at_a_terminal(ctl: Ctl) -> None:
    code, screen = ctl.pty("registry", "repos", "get", "no-such-repo")
    assert code == 5 and "no repo named 'no-such-repo'" in screen


def test_rm_asks_at_a_terminal_only(ctl: Ctl) -> None:
    for name in ("keep", "gone", "piped"):
        assert ctl("registry", "repos", "create", name).code == 0

    def answer(text: str) -> Callable[[str], str | None]:
        said: list[str] = []

        def watch(screen: str) -> str | None:
            if "[y/N]" in screen and not said:
                said.append(text)
                return text
            return None

        return watch

    code, screen = ctl.pty("registry", "repos", "rm", "keep", watch=answer("n\n"))
    assert code == 1 and "delete 1 repo:" in screen and "keep (" in screen and "nothing deleted" in screen, screen
    code, screen = ctl.pty("registry", "repos", "rm", "gone", watch=answer("y\n"))
    assert code == 0 and "continue? [y/N]" in screen and "deleted repo " in screen, screen
    code, screen = ctl.pty("registry", "repos", "rm", "-y", "keep")
    assert code == 0 and "[y/N]" not in screen and "deleted repo " in screen, screen
    # A script (no terminal): never asked, stdin left alone.
    piped = ctl("registry", "repos", "rm", "piped", stdin="n\n")
    assert piped.code == 0 and piped.err == "" and piped.out.startswith("deleted repo "), piped
    assert ctl.json("registry", "repos", "ls") == []
