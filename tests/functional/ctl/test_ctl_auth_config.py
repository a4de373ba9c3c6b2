"""`platformctl auth` (login cache through --token-stdin, status, token, logout), `config`, `completion`."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from platform_api.ctl import main as ctl_main
from tests.functional.ctl.cli import PLATFORMCTL, Ctl
from tests.helpers import Server


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    return Ctl(server, tmp_path, None)  # no PLATFORM_API_TOKEN: the login cache is the source


def test_login_status_token_logout(ctl: Ctl, server: Server) -> None:
    r = ctl("auth", "status", "-o", "json")
    assert r.code == 3 and json.loads(r.out)["source"] == "none"
    assert ctl("auth", "token").code == 3
    assert ctl("iam", "groups", "get", server.owner_org).code == 3

    r = ctl("auth", "login", "--token-stdin", stdin=server.token + "\n")
    assert r.code == 0 and server.owner in r.err
    cache = ctl.home / "platformctl" / "credentials.json"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600 and stat.S_IMODE(cache.parent.stat().st_mode) == 0o700
    status = json.loads(ctl("auth", "status", "-o", "json").out)
    assert status["source"] == "login" and status["valid"] is True and status["identity"] == server.owner
    assert status["server"] == server.base_url and status["expiry"].endswith("Z")
    # Who that is, in words (WhoAmI: the identity's name and e-mail), not only its uid.
    assert status["name"] and status["email"] == ""
    assert ctl("auth", "token").out.strip() == server.token
    assert ctl.json("iam", "groups", "get", server.owner_org)["uid"] == server.owner_org

    assert ctl("auth", "logout").code == 0
    assert ctl("auth", "status").code == 3 and ctl("auth", "token").code == 3
    # A refused token: the status says so (exit 3), with the server's message.
    ctl("auth", "login", "--token-stdin", stdin="not-a-token")
    r = ctl("auth", "status", "-o", "json")
    assert r.code == 3 and json.loads(r.out)["valid"] is False
    assert ctl("auth", "login", "--token-stdin", stdin="").code == 2


def test_status_names_the_identity(ctl: Ctl, server: Server) -> None:
    uid, token = server.identity_with_role(server.owner_org, "viewer")
    me = server.http.get(f"/iam/v2/identities/{uid}").json()  # an e-mail comes from a login's claims: none here
    assert ctl("auth", "login", "--token-stdin", stdin=token + "\n").code == 0
    status = json.loads(ctl("auth", "status", "-o", "json").out)
    assert (status["identity"], status["name"], status["email"]) == (uid, me["name"], me.get("email", ""))
    lines = [line.split(None, 1) for line in ctl("auth", "status").out.splitlines()]
    assert ["name:", me["name"]] in lines and ["identity:", uid] in lines, lines


def test_config_get_set_and_precedence(ctl: Ctl, server: Server) -> None:
    assert ctl("config", "set", "org", "my-org").code == 0
    assert ctl("config", "set", "output", "json").code == 0
    assert ctl("config", "get", "org").out.strip() == "my-org"
    assert yaml.safe_load((ctl.home / "platformctl" / "config.yaml").read_text()) == {"org": "my-org", "output": "json"}
    assert ctl("config", "set", "output", "xml").code == 2
    assert ctl("config", "set", "colour", "red").code == 2
    assert ctl("config", "set", "server", "ftp://x").code == 2
    assert ctl("config", "set", "transport", "carrier-pigeon").code == 2
    assert ctl("config", "get", "colour").code == 2
    # The server URL from the config file when neither flag nor environment give one.
    env_url = ctl.env.pop("PLATFORM_API_URL")
    ctl.env["PLATFORM_API_TOKEN"] = server.token
    ctl("config", "set", "server", env_url)
    ctl("config", "set", "org", "")
    assert json.loads(ctl("iam", "groups", "get", server.owner_org).out)["uid"] == server.owner_org  # output: json
    # The flag wins over both.
    r = ctl("--server", "http://127.0.0.1:1", "--grpc", "127.0.0.1:1", "iam", "groups", "get", server.owner_org)
    assert r.code == 8
    # An unreadable settings file is an error naming it, not a silent default.
    (ctl.home / "platformctl" / "config.yaml").write_text("- not\n- a mapping\n")
    r = ctl("config", "get")
    assert r.code == 1 and "config.yaml" in r.err


def _complete(script: str, words: list[str]) -> list[str]:
    line = " ".join(f"'{w}'" for w in words)
    cmd = f'{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _platformctl; echo "${{COMPREPLY[@]}}"'
    r = subprocess.run(["bash", "--norc", "-c", cmd], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def offline(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`platformctl` where no server is needed (no `server` fixture: runs once, not per backend)."""
    env = {"PATH": os.environ.get("PATH", ""), "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    return subprocess.run([PLATFORMCTL, *args], env=env, capture_output=True, text=True, timeout=30)


def test_bash_completion(tmp_path: Path) -> None:
    r = offline(tmp_path, "completion", "bash")
    assert r.returncode == 0
    assert "complete -F _platformctl platformctl" in r.stdout
    assert _complete(r.stdout, ["platformctl", "reg"]) == ["registry"]
    assert _complete(r.stdout, ["platformctl", "registry", "repos", ""]) == ["create", "delete", "get", "list", "ls",
                                                                         "rm", "update"]  # fmt: skip
    assert "--description" in _complete(r.stdout, ["platformctl", "registry", "repos", "create", "--d"])
    assert _complete(r.stdout, ["platformctl", "-o", "json", "iam", "role-b"]) == ["role-bindings"]
    zsh = offline(tmp_path, "completion", "zsh")
    assert zsh.returncode == 0 and zsh.stdout.startswith("#compdef platformctl") and "bashcompinit" in zsh.stdout
    # The values of flags that take a fixed set.
    assert _complete(r.stdout, ["platformctl", "iam", "groups", "ls", "-o", ""]) == ["table", "wide", "json", "yaml"]
    assert _complete(r.stdout, ["platformctl", "--transport", "h"]) == ["http"]
    assert _complete(r.stdout, ["platformctl", "completion", ""]) == ["bash", "fish", "zsh"]


def test_fish_completion(tmp_path: Path) -> None:
    r = offline(tmp_path, "completion", "fish")
    assert r.returncode == 0 and 'complete -c platformctl -f -a "(__platformctl_complete)"' in r.stdout
    script = tmp_path / "platformctl.fish"
    script.write_text(r.stdout)
    fish = shutil.which("fish")
    if fish is None:  # no fish here (Debian: apt-get install fish): the script's parts, not its behaviour
        assert 'case "registry repos"' in r.stdout and "case -o --output" in r.stdout
        return

    def complete(line: str) -> list[str]:
        done = subprocess.run([fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
                              capture_output=True, text=True, timeout=30)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return sorted(done.stdout.split())

    assert complete("platformctl reg") == ["registry"]
    assert complete("platformctl registry repos ") == ["create", "delete", "get", "list", "ls", "rm", "update"]
    assert "--description" in complete("platformctl registry repos create --d")
    assert complete("platformctl -o json iam role-b") == ["role-bindings"]
    assert complete("platformctl iam groups ls -o ") == ["json", "table", "wide", "yaml"]


def test_every_command_has_help_with_examples(tmp_path: Path) -> None:
    script = offline(tmp_path, "completion", "bash").stdout
    paths = [line.split('"')[1] for line in script.splitlines() if line.strip().startswith('"') and ") echo" in line]
    commands = [p for p in paths if p and p.split()[-1] not in ("list", "delete")]
    assert len(commands) > 50
    # In this process (the parser is what prints help): 60-odd interpreter starts took 25 s of the suite.
    for path in commands:
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown), pytest.raises(SystemExit) as done:
            ctl_main.main([*path.split(), "--help"])
        assert done.value.code == 0 and "examples:" in shown.getvalue(), path
        # Metavars name the flag (--identity IDENTITY), not the parser's internal destination (F_IDENTITY).
        assert " F_" not in shown.getvalue() and "{F_" not in shown.getvalue(), path


FAKE_LOGIN = """
import importlib.machinery, json, sys, types
from dataclasses import dataclass
from datetime import datetime, timezone

@dataclass(frozen=True)
class LoginResult:
    token: str
    refresh_token: str
    expiry: datetime | None

calls = []

class LoginError(Exception):
    pass

class LoginRefused(LoginError):
    code = 0

def browser_login(server, *, idp_id="", invite_code="", identity="", create_refresh_token=True, open_browser,
                  timeout=300.0):
    calls.append({"flow": "browser", "server": server, "idp_id": idp_id, "invite_code": invite_code,
                  "identity": identity, "opens": callable(open_browser)})
    if sys.argv[1] == "refuse":
        raise LoginError("the provider said no")
    return LoginResult(sys.argv[1], "refresh-1", datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc))

def headless_login(server, *, idp_id="", invite_code="", show, confirm, timeout=600.0):
    show("visit https://example/device and enter ABCD")
    typed = confirm("the code? ")
    calls.append({"flow": "headless", "server": server, "idp_id": idp_id, "invite_code": invite_code,
                  "typed": typed})
    return LoginResult(sys.argv[1], "", None)

def whoami(server, token):
    return {"subject": "the-subject", "email": "who@example.com"} if token != "refuse" else {}

mod = types.ModuleType("platform_api.client.login")
mod.__spec__ = importlib.machinery.ModuleSpec("platform_api.client.login", None)
mod.LoginResult, mod.LoginError, mod.LoginRefused = LoginResult, LoginError, LoginRefused
mod.browser_login, mod.headless_login, mod.whoami = browser_login, headless_login, whoami
sys.modules["platform_api.client.login"] = mod
from platform_api.ctl.main import main
code = main(sys.argv[2:])
print(json.dumps(calls))
sys.exit(code)
"""


@pytest.mark.parametrize("headless", [False, True])
def test_login_calls_the_login_flows_and_caches_their_tokens(ctl: Ctl, server: Server, headless: bool) -> None:
    """`auth login` against the login module's published signatures (a stand-in for the module here; the
    browser flow end to end is the login helper's test)."""
    import sys

    args = ["auth", "login", "--idp-id", "idp-1", "--invite-code", "inv-1"]
    args += ["--headless"] if headless else ["--identity", "ident-1"]
    r = subprocess.run([sys.executable, "-c", FAKE_LOGIN, server.token, *args], env=ctl.env, capture_output=True,
                       text=True, timeout=60, input="k7qd-m2xp\n")  # fmt: skip
    assert r.returncode == 0, r.stderr
    (call,) = json.loads(r.stdout.strip().splitlines()[-1])
    assert call["server"] == server.base_url and call["idp_id"] == "idp-1" and call["invite_code"] == "inv-1"
    assert "as who@example.com (the-subject)" in r.stderr  # who the server says signed in
    if headless:
        assert call["flow"] == "headless" and "enter ABCD" in r.stderr and "the code? " in r.stderr
        assert call["typed"] == "k7qd-m2xp"
    else:
        assert call == {**call, "flow": "browser", "identity": "ident-1", "opens": True}
    cached = json.loads((ctl.home / "platformctl" / "credentials.json").read_text())["servers"][server.base_url]
    assert cached["token"] == server.token
    assert cached["refreshToken"] == ("" if headless else "refresh-1")
    if not headless:
        assert cached["expiry"] == "2030-01-02T03:04:05Z"
    status = json.loads(ctl("auth", "status", "-o", "json").out)
    assert status["source"] == "login" and status["valid"] is True
    if not headless:  # a refused login is exit 3 with the reason, and the cached login is left as it was
        r = subprocess.run([sys.executable, "-c", FAKE_LOGIN, "refuse", "auth", "login"], env=ctl.env,
                           capture_output=True, text=True, timeout=60)  # fmt: skip
        assert r.returncode == 3 and "login failed: the provider said no" in r.stderr
        assert json.loads(ctl("auth", "status", "-o", "json").out)["valid"] is True
