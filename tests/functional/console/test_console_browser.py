"""The web console at /console/ in a real browser (Debian's chromium through Playwright): signing in through
the test OIDC provider, every page as an owner and as a viewer, creating and removing through the console,
hostile names and readmes shown as text, the Content-Security-Policy on every response with no violation in
the browser's console, and axe-core finding no serious or critical accessibility problem.

One server (per backend) and one browser per module; each person signs in once, in their own browser context.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, expect

from platform_api.auth import matching
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, mk_group, unique
from tests.helpers.oidc_provider import Provider, login_server
from tests.functional.console.browser import Watched, browser, open_page

CLIENT, SECRET = "console", "s3cret-" + secrets.token_hex(4)
HOSTILE = '<img src=x onerror="window.__pwned=1">'
README = (
    "# Hello\n\nSome *text* and a [safe link](https://example.com) and a [bad one](javascript:alert(1)).\n\n"
    "```\ncode <img src=x onerror=window.__pwned=2>\n```\n\nInline `<script>window.__pwned=3</script>` too.\n"
)  # the API refuses raw HTML outside code; what it keeps must still show as text


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT, SECRET)
    yield p
    p.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: Provider) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("console")
    (tmp / "secret").write_text(SECRET + "\n")
    with login_server(request.param, tmp, provider, CLIENT, "--login-client-secret-file", str(tmp / "secret"),
                      "--anon-rate", "0") as s:  # fmt: skip
        yield s


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with browser() as b:
        yield b


def public(srv: Server) -> str:
    """The server's public URL (its issuer): the console lives there."""
    return srv.base_url.replace("127.0.0.1", "localhost")


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


class World:
    """An organization with a hostile-named image with a hostile readme, and an owner and a viewer of it, each
    signed in to the console in their own browser context."""

    def __init__(self, srv: Server, provider: Provider, chromium: Browser) -> None:
        self.srv, self.provider = srv, provider
        http = srv.http
        self.org = mk_group(http, "", unique("console-org"))
        self.org_uid = self.org["uid"]
        self.repo = ok(http.post(f"/registry/v2/repos/{self.org_uid}", json={"name": "app" + secrets.token_hex(2),
                                                                            "description": HOSTILE}))  # fmt: skip
        ok(http.patch(f"/registry/v2/repos/{self.repo['uid']}/readme", json={"content": README}))
        self.owner = self.sign_in(chromium, "owner")
        self.viewer = self.sign_in(chromium, "viewer")

    def sign_in(self, chromium: Browser, role: str) -> Watched:
        name = role + secrets.token_hex(3)
        self.provider.add_user(name, f"{name}@example.com")
        self.provider.user = name
        w = open_page(chromium)
        w.page.goto(public(self.srv) + "/console/")
        w.page.get_by_role("button", name="Sign in").click()
        expect(w.page.get_by_role("heading", name="Overview")).to_be_visible()  # signed in, no organization yet
        uid = matching.user_uid(matching.normalize_issuer(self.provider.issuer), self.provider.users[name].sub)
        ok(self.srv.http.post(f"/iam/v2/roleBindings/{self.org_uid}",
                              json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]}))  # fmt: skip
        w.page.reload()
        expect(w.page.get_by_role("heading", name=self.org["name"])).to_be_visible()
        return w

    def goto(self, w: Watched, path: str) -> None:
        sep = "&" if "?" in path else "?"
        w.page.goto(f"{public(self.srv)}/console/{path}{sep}org={self.org_uid}")


@pytest.fixture(scope="module")
def world(srv: Server, provider: Provider, chromium: Browser) -> Iterator[World]:
    w = World(srv, provider, chromium)
    yield w
    w.owner.context.close()
    w.viewer.context.close()


def test_sign_in_leaves_no_token_in_the_url_and_history(world: World) -> None:
    page = world.owner.page
    assert "token" not in page.url
    assert page.evaluate("location.hash") == ""
    kept = page.evaluate("sessionStorage.getItem('console.session')")
    assert kept and "token" in kept
    assert world.owner.context.cookies() == [] or all("token" not in c["value"] for c in world.owner.context.cookies())


PAGES = ["", "images", "security?q=CVE-2024-0001", "access", "events"]
IMAGE_TABS = ["tags", "overview", "history", "sbom", "vulnerabilities", "advisories"]


def serious(w: Watched) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    results = Axe().run(w.page)
    return [f"{v['id']}: {v['help']}" for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def settle(w: Watched) -> None:
    w.page.wait_for_load_state("networkidle")
    expect(w.page.locator("main [role=status]:has-text('Loading')")).to_have_count(0)


@pytest.mark.parametrize("who", ["owner", "viewer"])
def test_every_page_renders_without_csp_violations_or_serious_axe_findings(world: World, who: str) -> None:
    w = getattr(world, who)
    found: dict[str, list[str]] = {}
    paths = [*PAGES, *(f"images/{world.repo['uid']}?tab={t}" for t in IMAGE_TABS)]
    for path in paths:
        world.goto(w, path)
        settle(w)
        expect(w.page.locator("main h1")).to_be_visible()
        bad = [e.inner_text() for e in w.page.locator("main .state.error").all()] + serious(w)
        if bad:
            found[path] = bad
    assert not found, found
    assert not w.problems(), w.problems()


def test_capabilities_decide_the_controls(world: World) -> None:
    for w, shown in ((world.owner, 1), (world.viewer, 0)):
        world.goto(w, "access")
        settle(w)
        expect(w.page.get_by_role("form", name="Add role binding")).to_have_count(shown)
        expect(w.page.get_by_role("form", name="Create invite")).to_have_count(shown)
        world.goto(w, "images")
        settle(w)
        expect(w.page.get_by_role("form", name="Create group")).to_have_count(shown)
