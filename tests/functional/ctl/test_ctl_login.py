"""`platformctl auth login` end to end, as a person at a terminal: the installed console script in a
pseudo-terminal, a server whose login provider is the test OIDC provider, the browser step played by the
test's HTTP client from the URL the CLI shows. Then the CLI and the Python client act as that person; an
upstream group mapped to a role gives it for the session only. Headless: the URL opened elsewhere, the
confirmation code that browser shows typed at the terminal."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from platform_api.client import Client, PermissionDenied, Repo, UIDPFilter
from tests.functional.ctl.cli import Ctl
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server
from tests.helpers.oidc_provider import Provider, complete, login_server, to_provider

CLIENT = "platformctl-test"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT)
    p.add_client("org-sso", "org-sso-secret")
    yield p
    p.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: Provider
) -> Iterator[Server]:
    with login_server(request.param, tmp_path_factory.mktemp("ctl-login"), provider, CLIENT) as s:
        yield s


def login_at_terminal(ctl: Ctl, user: str, *args: str) -> tuple[int, str]:
    """`platformctl auth login <args>` in a pseudo-terminal; when it shows the login URL, the browser (the
    test's HTTP client, as `user`) follows it to the end. The exit code and what the terminal showed."""
    browsed: list[str] = []

    def browse(screen: str) -> None:
        found = re.search(r"Opening (http\S+)", screen)
        if found and not browsed:
            browsed.append(found.group(1))
            threading.Thread(
                target=complete, args=(browsed[0], user), kwargs={"follow_final": True}, daemon=True
            ).start()

    # No browser here: BROWSER=true accepts the URL, and the test plays the browser.
    return ctl.pty("auth", "login", *args, env={"BROWSER": "true"}, watch=browse)


def headless_login_at_terminal(ctl: Ctl, user: str, *args: str) -> tuple[int, str]:
    """`platformctl auth login --headless <args>` in a pseudo-terminal: the person opens the URL it shows in a
    browser elsewhere (the test's HTTP client, as `user`), then types the confirmation code that browser
    shows when the CLI asks for it."""
    codes: list[str] = []
    typed: list[str] = []

    def sign_in(url: str) -> None:
        with httpx.Client(timeout=30) as c:
            r = to_provider(c, url)
            r = c.get(c.get(r.headers["location"] + "&login_hint=" + user).headers["location"])
        found = re.search(r"<h1>([A-Z0-9]{4}-[A-Z0-9]{4})</h1>", r.text)
        codes.append(found.group(1) if found else "(none)")

    def person(screen: str) -> str | None:
        found = re.search(r"sign in:\s+(http\S+)", screen)
        if found and not codes and not typed:
            typed.append("browsing")
            threading.Thread(target=sign_in, args=(found.group(1),), daemon=True).start()
        if "Type the confirmation code" in screen and codes and len(typed) == 1:
            typed.append(codes[0])
            return codes[0] + "\n"
        return None

    return ctl.pty("auth", "login", "--headless", *args, watch=person)


def test_a_person_logs_in_then_works_with_the_cli_and_the_python_client(
    srv: Server, provider: Provider, tmp_path: Path
) -> None:
    name = "dana-" + secrets.token_hex(3)
    provider.add_user(name, f"{name}@example.com")
    ctl = Ctl(srv, tmp_path, None)
    code, screen = login_at_terminal(ctl, name)
    assert code == 0, screen
    assert f"as {name}@example.com (" in screen  # who the server signed in (WhoAmI)
    status = json.loads(ctl("auth", "status", "-o", "json").out)
    assert status["valid"] is True and status["source"] == "login"
    assert status["email"] == f"{name}@example.com"  # who, in words (WhoAmI), besides the uid
    me = status["identity"]
    # A new user holds nothing yet: the owner makes them an owner of an organization.
    org = srv.http.post("/iam/v2/groups/", json={"name": "cli-" + secrets.token_hex(3)}).json()["uid"]
    bound = srv.http.post(
        f"/iam/v2/roleBindings/{org}", json={"identityUid": me, "roleUid": BUILTIN_ROLE_UIDS["owner"]}
    )
    assert bound.status_code == 200, bound.text
    created = ctl.json("registry", "repos", "create", "web", "--parent", org)
    assert created["name"] == "web"
    listed = ctl.json("registry", "repos", "ls", "--parent", org)
    assert [r["name"] for r in listed] == ["web"]
    # The Python client, as the same person, with the token the CLI keeps.
    token = ctl("auth", "token").out.strip()
    client = Client(srv.base_url, grpc=srv.grpc_target, token=token)
    assert [r.name for r in client.registry.list_repos(uidp=UIDPFilter(children_of=org))] == ["web"]


def test_an_upstream_group_gives_its_role_for_the_session_only(srv: Server, provider: Provider, tmp_path: Path) -> None:
    org = srv.http.post("/iam/v2/groups/", json={"name": "sso-" + secrets.token_hex(3)}).json()["uid"]
    oidc = {"issuer": provider.issuer, "clientId": "org-sso", "clientSecret": "org-sso-secret", "groupsClaim": "groups"}
    r = srv.http.post(
        f"/iam/v2/identityProviders/{org}",
        json={"name": "sso", "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": oidc},
    )
    assert r.status_code == 200, r.text
    idp = r.json()["uid"]
    mapping = {"externalGroupId": "builders", "roleUid": BUILTIN_ROLE_UIDS["editor"], "scope": org}
    assert srv.http.post(f"/iam/v2/externalGroupRoleMappings/{idp}", json=mapping).status_code == 200
    name = "erin-" + secrets.token_hex(3)
    provider.add_user(name, f"{name}@example.com", ["builders"])
    ctl = Ctl(srv, tmp_path, None)
    code, screen = login_at_terminal(ctl, name, "--idp-id", idp)
    assert code == 0, screen
    assert ctl.json("registry", "repos", "create", "built", "--parent", org)["name"] == "built"
    # Out of the group upstream: the next login has no such role, and the CLI says so (exit 4 or 5).
    provider.users[name].groups = []
    code, screen = login_at_terminal(ctl, name, "--idp-id", idp)
    assert code == 0, screen
    refused = ctl("registry", "repos", "create", "again", "--parent", org)
    assert refused.code in (4, 5), (refused.code, refused.err)
    token = ctl("auth", "token").out.strip()
    with pytest.raises(PermissionDenied):
        Client(srv.base_url, grpc=srv.grpc_target, token=token).registry.create_repo(org, Repo(name="nope"))


def test_a_person_logs_in_headless_with_the_browsers_confirmation_code(
    srv: Server, provider: Provider, tmp_path: Path
) -> None:
    """No browser on this machine: the CLI shows a URL, the person signs in on another machine's browser, which
    shows a confirmation code; typed at the terminal, it releases the login, and the CLI says who signed in."""
    name = "fay-" + secrets.token_hex(3)
    provider.add_user(name, f"{name}@example.com")
    ctl = Ctl(srv, tmp_path, None)
    code, screen = headless_login_at_terminal(ctl, name)
    assert code == 0, screen
    assert "headless_code=" in screen and "Type the confirmation code" in screen
    # Instructions with the URL: where, what comes back, how long it waits.
    assert "sign in from a browser on any machine" in screen and "within 10 minutes" in screen, screen
    assert f"as {name}@example.com (" in screen
    status = json.loads(ctl("auth", "status", "-o", "json").out)
    assert status["valid"] is True and status["source"] == "login"


def test_login_at_a_server_without_a_login_provider_stops_at_once(server: Server, tmp_path: Path) -> None:
    """The server (no --login-issuer) is asked first: no browser opened, no code asked for, the reason given."""
    ctl = Ctl(server, tmp_path, None)
    start = time.monotonic()
    code, screen = ctl.pty("auth", "login", env={"BROWSER": "true"})  # a person at a terminal
    assert code == 6 and "no login provider" in screen and "--idp-id" in screen, screen
    assert "Opening" not in screen and "Traceback" not in screen
    r = ctl("auth", "login", "--headless", stdin="ABCD-EFGH\n")  # a script: nothing shown, nothing read
    assert r.code == 6 and "no login provider" in r.err and "Open this URL" not in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1
    r = ctl("auth", "login", "--idp-id", "0" * 40, "--headless", stdin="")  # no such identity provider
    assert r.code == 5 and "cannot log in" in r.err and "Open this URL" not in r.err, r.err
    assert time.monotonic() - start < 30
    assert ctl("auth", "status").code == 3  # nothing cached
