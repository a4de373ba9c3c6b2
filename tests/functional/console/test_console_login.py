"""The server's own console receives a browser login like a configured console origin (signin/login.py): a
redirect to `<public URL>/console/...` is accepted and the result comes back in the fragment, never the query;
anything that would lead out of /console/ (dot segments, another path, another host) is refused."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from tests.helpers import Server
from tests.helpers.oidc_provider import Provider, callback_params, complete, login_server

CLIENT, SECRET = "console", "s3cret-" + secrets.token_hex(4)


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT, SECRET)
    p.add_user("alice", "alice@example.com")
    p.user = "alice"
    yield p
    p.close()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, provider: Provider) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("console-login")
    (tmp / "secret").write_text(SECRET + "\n")
    with login_server("sqlite", tmp, provider, CLIENT, "--login-client-secret-file", str(tmp / "secret")) as s:
        yield s


def oauth(srv: Server, redirect: str) -> str:
    public = srv.base_url.replace("127.0.0.1", "localhost")
    query = {"redirect": redirect, "exit": "redirect", "state": "s1", "create_refresh_token": "true"}
    return f"{public}/oauth?{urlencode(query)}"


def test_the_console_receives_the_login_in_the_fragment(srv: Server) -> None:
    console = srv.base_url.replace("127.0.0.1", "localhost") + "/console/"
    final = complete(oauth(srv, console + "images?org=x"))
    assert final.startswith(console + "images?org=x#"), final
    result = callback_params(final)
    assert result["token"] and result["refresh_token"] and result["state"] == "s1"
    with srv.client(result["token"]) as c:
        assert c.get("/auth/v1/ok").status_code == 200


@pytest.mark.parametrize(
    "path", ["/console/../openapi.json", "/console/%2e%2e/x", "/consolex/", "/console", "/openapi.json"]
)
def test_other_pages_of_the_server_are_only_loopback_callbacks(srv: Server, path: str) -> None:
    """On loopback every page is a loopback callback (the result posted by a form, never in a URL); a page out
    of /console/ is never handed the fragment."""
    redirect = srv.base_url.replace("127.0.0.1", "localhost") + path
    final = complete(oauth(srv, redirect))
    assert "#" not in final and final.startswith(redirect + "?"), final


def test_nor_the_console_at_another_address(srv: Server) -> None:
    """The session lives at the public URL: the console at another address gets no fragment (its page sends
    the browser to the public URL before signing in)."""
    redirect = srv.base_url + "/console/"
    final = complete(oauth(srv, redirect))
    assert "#" not in final, final
