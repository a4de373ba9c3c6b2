"""Shell completion of resource names: `platformctl __complete groups|repos` offers the paths of one page of
them, reads the server at most once per TTL, and says nothing when anything fails; the bash script asks it
where a group or a repo is expected."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.functional.ctl.cli import PLATFORMCTL, Ctl
from tests.helpers import Server, free_port, unique
from tests.helpers.counting import counted_calls
from tests.helpers.run_cli import IN_PROCESS


@pytest.fixture
def ctl(server: Server, tmp_path: Path, http: httpx.Client) -> Ctl:
    """Default organization `<org>` holding team/, and repos nginx (in the organization) and app (in team)."""
    c = Ctl(server, tmp_path, server.token, "grpc" if server.backend == "sqlite" else "http")
    name = unique("org")
    org = http.post("/iam/v2/groups/", json={"name": name}).json()["uid"]
    team = http.post(f"/iam/v2/groups/{org}", json={"name": "team"}).json()["uid"]
    assert http.post(f"/registry/v2/repos/{org}", json={"name": "nginx"}).status_code == 200
    assert http.post(f"/registry/v2/repos/{team}", json={"name": "app"}).status_code == 200
    assert c("config", "set", "org", name).code == 0
    c.org_name = name  # type: ignore[attr-defined]
    return c


def test_names_are_paths_under_the_default_organization(ctl: Ctl) -> None:
    org = ctl.org_name  # type: ignore[attr-defined]
    r = ctl("__complete", "repos")
    assert r.code == 0 and sorted(r.out.split()) == [f"{org}/nginx", f"{org}/team/app"], r
    assert ctl("__complete", "groups").out.split() == [f"{org}/team"]
    assert ctl("__complete", "repos", f"{org}/te").out.split() == [f"{org}/team/app"]


@pytest.mark.skipif(not IN_PROCESS, reason="counts the client's calls in this process")
def test_the_listing_is_reused_for_a_while(ctl: Ctl, http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ctl("__complete", "repos").out
    with counted_calls(monkeypatch) as calls:
        assert ctl("__complete", "repos").out == first
    assert not calls, calls
    monkeypatch.setattr("platform_api.ctl.complete.TTL", 0.0)  # expired: read again
    with counted_calls(monkeypatch) as calls:
        assert ctl("__complete", "repos").out == first
    assert calls["ListRepos"] == 1, calls


def test_another_token_never_sees_the_cached_names(ctl: Ctl, server: Server) -> None:
    assert ctl("__complete", "repos").out.split()  # cached for the owner's token
    other = Ctl(server, ctl.home, "not-a-token", "http")  # the same config directory and organization
    r = other("__complete", "repos")
    assert (r.code, r.out) == (0, ""), r


def test_silent_on_failure(server: Server, tmp_path: Path) -> None:
    ctl = Ctl(server, tmp_path, "not-a-token", "http")
    r = ctl("__complete", "repos")
    assert (r.code, r.out, r.err) == (0, "", "")
    ctl.env["PLATFORM_API_URL"] = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    del ctl.env["PLATFORM_API_GRPC"]
    r = ctl("__complete", "groups")
    assert (r.code, r.out, r.err) == (0, "", "")


def _env(ctl: Ctl) -> dict[str, str]:
    """ctl's environment, with the installed platformctl first on PATH (the scripts call it by name)."""
    return {**ctl.env, "PATH": f"{Path(PLATFORMCTL).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(sys.path)}  # fmt: skip


def _bash_complete(ctl: Ctl, words: list[str]) -> list[str]:
    script = ctl("completion", "bash").out
    line = " ".join(f"'{w}'" for w in words)
    cmd = f'{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _platformctl; echo "${{COMPREPLY[@]}}"'
    r = subprocess.run(["bash", "--norc", "-c", cmd], capture_output=True, text=True, timeout=60, env=_env(ctl))
    assert r.returncode == 0, r.stderr
    return sorted(r.stdout.split())


def test_bash_offers_the_names(ctl: Ctl) -> None:
    org = ctl.org_name  # type: ignore[attr-defined]
    assert _bash_complete(ctl, ["platformctl", "registry", "repos", "get", ""]) == [f"{org}/nginx", f"{org}/team/app"]
    assert _bash_complete(ctl, ["platformctl", "iam", "groups", "rm", "--yes", ""]) == [f"{org}/team"]
    assert _bash_complete(ctl, ["platformctl", "registry", "tags", "ls", "--repo", f"{org}/n"]) == [f"{org}/nginx"]
    assert _bash_complete(ctl, ["platformctl", "registry", "repos", "ls", "--parent", ""]) == [f"{org}/team"]
    # Not where a name is not expected: the subcommands, the flags.
    assert "get" in _bash_complete(ctl, ["platformctl", "registry", "repos", ""])
    assert "--yes" in _bash_complete(ctl, ["platformctl", "registry", "repos", "rm", "--y"])


@pytest.mark.skipif(shutil.which("fish") is None, reason="no fish here (Debian: apt-get install fish)")
def test_fish_offers_the_names(ctl: Ctl, tmp_path: Path) -> None:
    org = ctl.org_name  # type: ignore[attr-defined]
    script = tmp_path / "platformctl.fish"
    script.write_text(ctl("completion", "fish").out)

    def complete(line: str) -> list[str]:
        fish = [str(shutil.which("fish")), "--no-config", "-c", f"source {script}; complete -C '{line}'"]
        done = subprocess.run(fish, capture_output=True, text=True, timeout=60, env=_env(ctl))
        assert done.returncode == 0, done.stderr
        return sorted(done.stdout.split())

    assert complete("platformctl registry repos get ") == [f"{org}/nginx", f"{org}/team/app"]
    assert complete("platformctl registry repos ls --parent ") == [f"{org}/team"]
    assert "get" in complete("platformctl registry repos ")
