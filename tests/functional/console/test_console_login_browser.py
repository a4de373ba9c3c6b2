"""The console's sign-in in a real browser (Debian's chromium through Playwright): the login's result reaches
the console by a form POST to /console/callback and never sits in any URL the browser goes to, the person lands
on the page they signed in from, and a reload is a plain GET. A result another site posts (login CSRF: the
attacker's own valid tokens) signs nobody in: the tab did not start that login.

A server on sqlite and a browser of its own (the registry-backed walk is test_console_browser.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.helpers import Server
from tests.helpers.browser import Watched, browser, open_page
from tests.helpers.oidc_provider import Provider, callback_params, complete, login_server

CLIENT, SECRET = "console", "s3cret-" + secrets.token_hex(4)
ATTACKER = "http://attacker.invalid/"
NOT_THIS_TAB = "This sign-in was not started from this tab: sign in again."


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT, SECRET)
    p.add_user("alice", "alice@example.com")
    p.add_user("mallory", "mallory@example.com")
    p.user = "alice"
    yield p
    p.close()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, provider: Provider) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("console-login-browser")
    with login_server("sqlite", tmp, provider, CLIENT, "--anon-rate", "0", secret=SECRET) as s:
        yield s


@pytest.fixture(scope="module")
def chromium(srv: Server) -> Iterator[Browser]:
    """Started after the server and ended before it (Playwright's loop must not run while a server starts)."""
    with browser() as b:
        yield b


def public(srv: Server) -> str:
    return srv.base_url.replace("127.0.0.1", "localhost")


def record(page: Page) -> list[tuple[str, str]]:
    """(method, URL) of every request the page makes and every URL its frames navigate to."""
    seen: list[tuple[str, str]] = []
    page.on("request", lambda r: seen.append((r.method, r.url)))
    page.on("framenavigated", lambda f: seen.append(("NAVIGATED", f.url)))
    return seen


def session(page: Page) -> object:
    return page.evaluate("JSON.parse(sessionStorage.getItem('console.session'))")


def test_the_login_result_is_in_no_url_and_the_person_lands_where_they_started(srv: Server, chromium: Browser) -> None:
    w = open_page(chromium)
    try:
        seen = record(w.page)
        start = public(srv) + "/console/security?q=CVE-2024-0001"
        w.page.goto(start)
        w.page.get_by_role("button", name="Sign in").click()
        expect(w.page.get_by_role("button", name="Sign out")).to_be_visible()
        assert w.page.url == start
        kept = session(w.page)
        assert isinstance(kept, dict) and kept["token"] and kept["refresh"]
        assert ("POST", public(srv) + "/console/callback") in seen  # the result came this way
        for _, url in seen:
            assert kept["token"] not in url and kept["refresh"] not in url, url
            parts = urlsplit(url)
            named = parse_qs(parts.query).keys() | parse_qs(parts.fragment).keys()
            assert not named & {"token", "refresh_token", "access_token", "id_token"} and "#" not in url, url
        assert w.page.evaluate("document.getElementById('login-result')") is None
        # A reload asks for the page again (GET), not the callback: the session stays, from sessionStorage.
        seen.clear()
        w.page.reload()
        expect(w.page.get_by_role("button", name="Sign out")).to_be_visible()
        assert [m for m, url in seen if url == start] == ["GET", "NAVIGATED"]
        assert session(w.page) == kept
        assert w.problems() == []
    finally:
        w.context.close()


def forged(page: Page, srv: Server, fields: dict[str, str]) -> None:
    """Another site's page that posts `fields` to our console's callback at once, as an attacker's would."""
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    html = (
        f'<form method="post" action="{public(srv)}/console/callback">{inputs}</form>'
        "<script>document.forms[0].submit()</script>"
    )

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body=html)

    page.route(ATTACKER, serve)
    page.goto(ATTACKER)


@pytest.fixture(scope="module")
def mallory(srv: Server, provider: Provider) -> dict[str, str]:
    """The attacker's own login result, as the console's callback would receive it: real, valid tokens."""
    provider.user = "mallory"
    query = {"redirect": public(srv) + "/console/", "exit": "redirect", "state": "mallory-state",
             "create_refresh_token": "true"}  # fmt: skip
    try:
        fields = callback_params(complete(f"{public(srv)}/oauth?{urlencode(query)}"))
    finally:
        provider.user = "alice"
    assert fields["token"] and fields["refresh_token"]
    return fields


def test_the_browser_says_another_site_posted_it_so_the_server_refuses(srv: Server, chromium: Browser,
                                                                        mallory: dict[str, str]) -> None:  # fmt: skip
    """Chromium says where the post came from (Sec-Fetch-Site: cross-site): 403 before any page is drawn."""
    w: Watched = open_page(chromium)
    try:
        forged(w.page, srv, mallory)
        expect(w.page.locator("body")).to_have_text("a login's result is posted by this server's own login page only")
        assert session(w.page) is None
    finally:
        w.context.close()


def as_an_older_browser(page: Page, srv: Server) -> None:
    """The callback's request without Sec-Fetch-Site and Origin, as a browser that sends neither makes it."""

    def strip(route: Route) -> None:
        # Chromium adds both after any interception: the request is made here instead, and its answer given.
        kind = route.request.headers["content-type"]
        r = httpx.post(route.request.url, content=route.request.post_data_buffer, headers={"content-type": kind})
        route.fulfill(status=r.status_code, headers=dict(r.headers), body=r.content)

    page.route(public(srv) + "/console/callback", strip)


@pytest.mark.parametrize("started", [False, True], ids=["no-login-started", "another-login-started"])
def test_a_result_another_site_posts_signs_nobody_in(
    srv: Server, chromium: Browser, mallory: dict[str, str], started: bool
) -> None:
    """In a browser that does not say where a post came from, the tab's state check refuses it."""
    w: Watched = open_page(chromium)
    try:
        if started:  # the tab started a login of its own: its state is not the attacker's
            w.page.goto(public(srv) + "/console/")
            w.page.evaluate("sessionStorage.setItem('console.login-state', 'the-tab-own-state')")
        as_an_older_browser(w.page, srv)
        forged(w.page, srv, mallory)
        expect(w.page.get_by_role("alert")).to_have_text(NOT_THIS_TAB)
        expect(w.page.get_by_role("button", name="Sign in")).to_be_visible()
        assert w.page.url == public(srv) + "/console/"
        assert session(w.page) is None
        assert w.page.evaluate("sessionStorage.getItem('console.login-state')") is None
        assert w.page.evaluate("document.getElementById('login-result')") is None
    finally:
        w.context.close()
