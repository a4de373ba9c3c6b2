"""The server's own console receives a browser login (signin/login.py): a redirect to `<public URL>/console/...`
is accepted and the result is posted by a form to `POST /console/callback` (console/routes.py), never put in a
URL; anything that would lead out of /console/ (dot segments, another path, another host) is refused. The
callback's answer is the console's page with the result in an inert, escaped element, not cached; it takes a
small url-encoded form only."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from platform_api.console import shell
from tests.helpers import Server, assert_error
from tests.helpers.oidc_provider import Provider, complete, login_server, posted_form, to_provider

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
    with login_server("sqlite", tmp, provider, CLIENT, secret=SECRET) as s:
        yield s


def public(srv: Server) -> str:
    """The server's public URL (its issuer): the console lives there."""
    return srv.base_url.replace("127.0.0.1", "localhost")


def oauth(srv: Server, redirect: str) -> str:
    query = {"redirect": redirect, "exit": "redirect", "state": "s1", "create_refresh_token": "true"}
    return f"{public(srv)}/oauth?{urlencode(query)}"


class _Result(HTMLParser):
    """The attributes of the page's <template id="login-result">, and the text of every <script> (there is none
    but the module the skeleton loads by URL)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, str] | None = None
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = {k: v or "" for k, v in attrs}
        if tag == "template" and values.get("id") == "login-result":
            self.found = {k.removeprefix("data-"): v for k, v in values.items() if k.startswith("data-")}


def login_result(r: httpx.Response) -> dict[str, str] | None:
    parser = _Result()
    parser.feed(r.text)
    return parser.found


def test_the_console_receives_the_login_by_a_form_post_never_in_a_url(srv: Server) -> None:
    console = public(srv) + "/console/"
    with httpx.Client(timeout=30, follow_redirects=False) as c:
        r = to_provider(c, oauth(srv, console + "images?org=x"))
        r = c.get(r.headers["location"])  # the provider approves at once
        callback = r.headers["location"]
        r = c.get(callback)  # our /oauth/callback: the page that posts the result
        assert "token" not in callback.split("?", 1)[0] and "#" not in callback
        action, fields = posted_form(r)
        assert action == console + "callback"
        assert "form-action " + public(srv) in r.headers["content-security-policy"]
        assert r.headers["cache-control"] == "no-store" and r.headers["referrer-policy"] == "no-referrer"
        assert fields["token"] and fields["refresh_token"] and fields["state"] == "s1"
        assert fields["page"] == "/console/images?org=x"
        answer = c.post(action, data=fields)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assert answer.headers["cache-control"] == "no-store" and answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["content-security-policy"] == shell.CSP
    result = login_result(answer)
    assert result is not None
    assert result["token"] == fields["token"] and result["refresh-token"] == fields["refresh_token"]
    assert result["state"] == "s1" and result["page"] == "/console/images?org=x" and result["expiry"]
    with srv.client(result["token"]) as api:
        assert api.get("/auth/v1/ok").status_code == 200


def test_a_failed_login_is_posted_to_the_console_too(srv: Server) -> None:
    """An error after the pending login was found (here the provider's refusal) reaches the console the same
    way, with its state, never in a URL."""
    with httpx.Client(timeout=30, follow_redirects=False) as c:
        r = to_provider(c, oauth(srv, public(srv) + "/console/"))
        state = parse_qs(urlsplit(r.headers["location"]).query)["state"][0]  # the provider's, not the console's
        r = c.get(f"{public(srv)}/oauth/callback?{urlencode({'state': state, 'error': 'access_denied'})}")
        action, fields = posted_form(r)
    assert action == public(srv) + "/console/callback"
    assert fields["error"] and fields["state"] == "s1" and "token" not in fields and fields["page"] == "/console/"


def test_the_callback_escapes_every_value_and_keeps_the_page_in_the_console(srv: Server) -> None:
    hostile = '"><script>window.__pwned=1</script><img src=x onerror=alert(1)>'
    fields = {"token": hostile, "state": hostile, "error_description": hostile, "other": "dropped",
              "page": "/console/../openapi.json"}  # fmt: skip
    r = httpx.post(public(srv) + "/console/callback", data=fields)
    assert r.status_code == 200, r.text
    parser = _Result()
    parser.feed(r.text)
    assert parser.found == {"token": hostile, "state": hostile, "error-description": hostile, "page": "/console/"}
    assert "img" not in parser.tags and "<script>window" not in r.text
    for page, kept in (("/console/access", "/console/access"), ("/openapi.json", "/console/"),
                       ("/console/%2E%2E/x", "/console/"), ("", "/console/")):  # fmt: skip
        answer = httpx.post(public(srv) + "/console/callback", data={"state": "x", "page": page})
        assert login_result(answer) == {"state": "x", "page": kept}


@pytest.mark.parametrize(
    ("content", "headers", "status"),
    [
        (b'{"token": "t"}', {"content-type": "application/json"}, 415),
        (b"token=t", {"content-type": "multipart/form-data; boundary=x"}, 415),
        (b"token=" + b"t" * 17000, {"content-type": "application/x-www-form-urlencoded"}, 400),
        (b"token=" + b"t" * 16000, {"content-type": "application/x-www-form-urlencoded"}, 200),
        (b"token=a&token=b", {"content-type": "application/x-www-form-urlencoded"}, 400),
        (b"&".join(b"f%d=1" % i for i in range(20)), {"content-type": "application/x-www-form-urlencoded"}, 400),
        (b"token=%ff", {"content-type": "application/x-www-form-urlencoded"}, 200),
    ],
)
def test_the_callback_takes_a_small_url_encoded_form_only(
    srv: Server, content: bytes, headers: dict[str, str], status: int
) -> None:
    r = httpx.post(public(srv) + "/console/callback", content=content, headers=headers)
    assert r.status_code == status, r.text
    assert r.headers["cache-control"] == "no-store" and r.headers["content-security-policy"] == shell.CSP
    if status != 200:
        assert login_result(r) is None and "token" not in r.text.replace("a login's result", "")


def test_a_chunked_body_is_read_no_further_than_the_bound(srv: Server) -> None:
    """No content-length to refuse it by: the body is refused once it outgrows the bound."""

    def chunks() -> Iterator[bytes]:
        yield b"token="
        for _ in range(100):
            yield b"t" * 1024

    headers = {"content-type": "application/x-www-form-urlencoded"}
    r = httpx.post(public(srv) + "/console/callback", content=chunks(), headers=headers)
    assert r.status_code == 400 and login_result(r) is None


def test_a_reload_of_the_callback_is_the_plain_console_page(srv: Server) -> None:
    r = httpx.get(public(srv) + "/console/callback")
    assert r.status_code == 200 and login_result(r) is None


@pytest.mark.parametrize(
    "path", ["/console/../openapi.json", "/console/%2e%2e/x", "/consolex/", "/console", "/openapi.json"]
)
def test_other_pages_of_the_server_are_only_loopback_callbacks(srv: Server, path: str) -> None:
    """On loopback every page is a loopback callback (the result posted by a form to that page, never in a
    URL); a page out of /console/ is never handed the console's callback."""
    redirect = public(srv) + path
    final = complete(oauth(srv, redirect))
    assert "#" not in final and final.startswith(redirect + "?"), final


def test_nor_the_console_at_another_address(srv: Server) -> None:
    """The session lives at the public URL: the console at another address is only a loopback page (its page
    sends the browser to the public URL before signing in)."""
    redirect = srv.base_url + "/console/"
    final = complete(oauth(srv, redirect))
    assert "#" not in final and final.startswith(redirect + "?"), final


# ---------------------------------------------------------------- the callback's origin check


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"sec-fetch-site": "cross-site"}, 403),
        ({"sec-fetch-site": "same-site"}, 403),
        ({"origin": "https://evil.example"}, 403),
        ({"origin": "http://127.0.0.1"}, 403),  # this server at another address, not its public origin
        ({"sec-fetch-site": "cross-site", "origin": "null"}, 403),
        ({"sec-fetch-site": "same-origin"}, 200),
        ({"sec-fetch-site": "none"}, 200),
        ({"origin": "null"}, 200),  # what the login page's no-referrer policy makes a browser send
        ({}, 200),  # an older browser: the tab's state check still guards
    ],
)
def test_the_callback_refuses_a_post_another_site_makes(srv: Server, headers: dict[str, str], status: int) -> None:
    r = httpx.post(public(srv) + "/console/callback", data={"state": "x"}, headers=headers)
    assert r.status_code == status, r.text
    assert r.headers["cache-control"] == "no-store" and r.headers["content-security-policy"] == shell.CSP
    if status == 403:
        assert r.headers["content-type"].startswith("text/plain") and login_result(r) is None


def test_the_callback_takes_a_post_from_the_public_origin(srv: Server) -> None:
    port = srv.base_url.rsplit(":", 1)[1]
    for origin in (public(srv), f"HTTP://LOCALHOST:{port}"):
        r = httpx.post(public(srv) + "/console/callback", data={"state": "x"},
                       headers={"origin": origin, "sec-fetch-site": "same-origin"})  # fmt: skip
        assert r.status_code == 200 and login_result(r) == {"state": "x", "page": "/console/"}
    r = httpx.post(public(srv) + "/console/callback", data={"state": "x"}, headers={"origin": origin + "1"})
    assert r.status_code == 403


# ---------------------------------------------------------------- sign-out: POST /oauth/revoke


def refresh_token(srv: Server) -> str:
    """A new login's refresh token (the console's login, as its callback page posts it)."""
    with httpx.Client(timeout=30, follow_redirects=False) as c:
        r = to_provider(c, oauth(srv, public(srv) + "/console/"))
        r = c.get(r.headers["location"])
        _, fields = posted_form(c.get(r.headers["location"]))
    return fields["refresh_token"]


def renew(srv: Server, refresh: str) -> httpx.Response:
    return httpx.post(srv.base_url + "/sts/exchange_refresh_token", headers={"authorization": "Bearer " + refresh})


def revoke(srv: Server, **kwargs: object) -> httpx.Response:
    return httpx.post(public(srv) + "/oauth/revoke", **kwargs)  # type: ignore[arg-type]


def test_revoking_a_refresh_token_ends_its_login_and_no_other(srv: Server) -> None:
    first, other = refresh_token(srv), refresh_token(srv)
    r = renew(srv, first)
    assert r.status_code == 200, r.text
    current = r.json()["refreshToken"]["token"]  # a later token of the same family: the one the console holds
    r = revoke(srv, data={"token": current, "token_type_hint": "refresh_token"})
    assert r.status_code == 200 and r.json() == {}
    assert renew(srv, current).status_code == 401
    assert renew(srv, first).status_code == 401
    r = renew(srv, other)  # another login's family is untouched
    assert r.status_code == 200, r.text
    kept = r.json()["refreshToken"]["token"]
    # Revoked again, unknown, or not a refresh token at all: the same answer (RFC 7009), nothing else revoked.
    for token in (current, "pat_rt_" + secrets.token_urlsafe(32), "not-a-token"):
        r = revoke(srv, data={"token": token})
        assert r.status_code == 200 and r.json() == {}, r.text
    assert renew(srv, kept).status_code == 200


FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize(
    ("kwargs", "status", "field"),
    [
        ({"json": {"token": "pat_rt_x"}}, 400, "body"),
        ({"content": b"", "headers": FORM}, 400, "token"),
        ({"content": b"token=x"}, 400, "body"),  # no content type
        ({"data": {"token": ""}}, 400, "token"),
        ({"content": b"token=a&token=b", "headers": FORM}, 400, "token"),
        ({"content": b"token=%00", "headers": FORM}, 400, "token"),
        ({"content": b"token=%ff", "headers": FORM}, 400, "body"),
        ({"content": b"&".join(b"f%d=1" % i for i in range(9)), "headers": FORM}, 400, "body"),
        ({"params": {"token": "pat_rt_x"}, "data": {"token": "pat_rt_x"}}, 400, "token"),  # never in a URL
        ({"content": b"token=" + b"t" * (64 << 10), "headers": FORM}, 413, None),
    ],
)
def test_revoke_refuses_anything_but_one_token_in_a_small_form(
    srv: Server, kwargs: dict[str, object], status: int, field: str | None
) -> None:
    assert_error(revoke(srv, **kwargs), status, 3 if status == 400 else 8, field)


def test_revoke_reads_a_chunked_body_no_further_than_the_bound(srv: Server) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"token="
        for _ in range(100):
            yield b"t" * 1024

    assert_error(revoke(srv, content=chunks(), headers=FORM), 413, 8)
