"""The web console at /console/ in a real browser (Debian's chromium through Playwright): signing in through
the test OIDC provider, every page as an owner and as a viewer, creating and removing through the console,
hostile names and readmes shown as text, the Content-Security-Policy on every response with no violation in
the browser's console, and axe-core finding no serious or critical accessibility problem.

One server (per backend) and one browser per module; each person signs in once, in their own browser context.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, expect

from platform_api.auth import matching
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, distribution, mk_group, mk_idp, stored_secret, unique
from tests.helpers.browser import Watched, browser, open_page
from tests.helpers.oidc_provider import Provider, callback_params, complete, login_server
from tests.helpers.registry import GRYPE_REPORT, image, multi_arch_image

SBOM = Path(__file__).resolve().parents[2] / "data" / "sbom" / "spdx-2.3.json"
EOL = Path(__file__).resolve().parents[2] / "data" / "eol" / "python.json"

pytestmark = distribution.needs_distribution
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
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: Provider
) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("console")
    with login_server(request.param, tmp, provider, CLIENT, "--anon-rate", "0", secret=SECRET) as s:
        yield s


@pytest.fixture(scope="module")
def registry(srv: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The registry data plane (docker-registry) in front of the server; its host:port."""
    with distribution.registry_for(srv, tmp_path_factory.mktemp("registry")) as where:
        yield where


@pytest.fixture(scope="module")
def chromium(srv: Server, registry: str) -> Iterator[Browser]:
    """Started after the server and ended before it: Playwright's event loop must not be running while a
    server starts (start_server runs its own)."""
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

    def __init__(self, srv: Server, provider: Provider, chromium: Browser, tmp: Path) -> None:
        self.srv, self.provider = srv, provider
        http = srv.http
        self.org = mk_group(http, "", unique("console-org"))
        self.org_uid = self.org["uid"]
        self.team = mk_group(http, self.org_uid, unique("team"), description=HOSTILE)
        # An image imported with `import oci`, tagged twice, with its SBOM and a Grype report.
        uid, _, self.digest = image(srv, http, self.team["uid"], tmp, ("latest", "1.0"))
        srv.cli("import", "sbom", uid, self.digest, str(SBOM))
        srv.cli("import", "vulnreport", uid, self.digest, str(GRYPE_REPORT))
        self.repo = ok(http.patch(f"/registry/v2/repos/{uid}", json={"description": HOSTILE}))
        # A custom role whose description is markup (names are restricted to [a-z0-9 ._-] by the API).
        ok(http.post(f"/iam/v2/roles/{self.org_uid}", json={"name": unique("hostile"), "description": HOSTILE,
                                                            "capabilities": ["CAP_REPO_LIST"]}))  # fmt: skip
        ok(http.patch(f"/registry/v2/repos/{uid}/readme", json={"content": README}))
        self.owner_uid = ""  # the owner's identity, once signed in
        self.owner = self.sign_in(chromium, "owner")
        self.viewer = self.sign_in(chromium, "viewer")

    def sign_in(self, chromium: Browser, role: str) -> Watched:
        name = role + secrets.token_hex(3)
        self.provider.add_user(name, f"{name}@example.com")
        self.provider.user = name
        # The viewer sees the dark scheme: the page walk checks both against axe (contrast among others).
        w = open_page(chromium, color_scheme="dark" if role == "viewer" else "light")
        w.page.goto(public(self.srv) + "/console/")
        w.page.get_by_role("button", name="Sign in").click()
        expect(w.page.get_by_role("heading", name="Overview")).to_be_visible()  # signed in, no organization yet
        uid = matching.user_uid(matching.normalize_issuer(self.provider.issuer), self.provider.users[name].sub)
        if role == "owner":
            self.owner_uid = uid
        ok(self.srv.http.post(f"/iam/v2/roleBindings/{self.org_uid}",
                              json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]}))  # fmt: skip
        w.page.reload()
        expect(w.page.get_by_role("heading", name=self.org["name"])).to_be_visible()
        return w

    def goto(self, w: Watched, path: str) -> None:
        sep = "&" if "?" in path else "?"
        w.page.goto(f"{public(self.srv)}/console/{path}{sep}org={self.org_uid}")


@pytest.fixture(scope="module")
def world(
    srv: Server, provider: Provider, chromium: Browser, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    w = World(srv, provider, chromium, tmp_path_factory.mktemp("images"))
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
        expect(w.page.get_by_role("form", name="Create role")).to_have_count(shown)
        expect(w.page.get_by_role("form", name="Create identity provider")).to_have_count(shown)
        world.goto(w, "images")
        settle(w)
        expect(w.page.get_by_role("form", name="Create group")).to_have_count(shown)


def test_the_imported_image_shows_its_tags_sbom_and_vulnerabilities(world: World) -> None:
    w = world.owner
    base = f"images/{world.repo['uid']}"
    world.goto(w, base)
    settle(w)
    row = w.page.locator("main tbody tr")
    expect(row).to_have_count(1)  # two tags, one digest
    expect(row).to_contain_text("latest, 1.0")
    expect(row).to_contain_text(world.digest[:19])
    expect(row).to_contain_text("amd64")
    # The registry names a repo by its group path: the image is in the organization's group `team`.
    host = "localhost:" + world.srv.base_url.rsplit(":", 1)[1]
    path = f"{world.org['name']}/{world.team['name']}/{world.repo['name']}"
    expect(row.locator("code.pull")).to_have_text(f"{host}/{path}:latest")
    world.goto(w, base + "?tab=sbom")
    settle(w)
    expect(w.page.locator("main table")).to_contain_text("Packages")
    assert w.page.locator("main tbody tr").count() > 0
    world.goto(w, base + "?tab=vulnerabilities")
    settle(w)
    assert w.page.locator("main tbody tr").count() > 0
    chart = w.page.get_by_role("img", name="Vulnerabilities per day")
    expect(chart).to_be_visible()  # the per-day picture, drawn as SVG by the page's code
    expect(chart.locator("rect")).not_to_have_count(0)
    expect(w.page.locator("main a[href*='/console/security?']").first).to_contain_text("-")
    assert not w.problems(), w.problems()


def test_hostile_values_show_as_text(world: World) -> None:
    w = world.owner
    world.goto(w, f"images/{world.repo['uid']}?tab=overview")
    settle(w)
    main = w.page.locator("main")
    expect(main).to_contain_text(HOSTILE)  # the description, as characters
    expect(main.locator("img")).to_have_count(0)
    expect(main.locator("script")).to_have_count(0)
    expect(main.get_by_role("heading", name="Hello")).to_be_visible()
    expect(main.locator("pre code")).to_contain_text("<img src=x onerror=window.__pwned=2>")
    expect(main.get_by_role("link", name="safe link")).to_have_attribute("href", "https://example.com/")
    expect(main.locator("a", has_text="bad one")).to_have_count(0)
    world.goto(w, "access")
    settle(w)
    expect(w.page.get_by_role("table", name="Roles")).to_contain_text(HOSTILE)
    expect(w.page.locator("main img")).to_have_count(0)
    assert w.page.evaluate("window.__pwned") is None
    assert not w.problems(), w.problems()


def test_every_console_response_carries_the_csp(srv: Server) -> None:
    with httpx.Client(base_url=srv.base_url) as c:
        for path in ("/console/", "/console/images/x/y", "/console/static/app.js", "/console/static/nope.js"):
            csp = c.get(path).headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "default-src 'self'" in csp
            assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        r = c.get("/console")
        assert r.status_code == 308 and r.headers["location"] == public(srv) + "/console/"


def test_create_and_remove_through_the_console(world: World, srv: Server) -> None:
    w = world.owner
    page = w.page
    # A group.
    world.goto(w, "images")
    settle(w)
    name = unique("made")
    page.get_by_label("New group").fill(name)
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.get_by_role("link", name=name)).to_be_visible()
    page.get_by_role("button", name=f"Delete group {name}").click()
    expect(page.get_by_role("link", name=name)).to_have_count(0)
    # A role binding (for the viewer identity, as editor) and its removal.
    world.goto(w, "access")
    settle(w)
    ident = ok(srv.http.post(f"/iam/v2/identities/{world.org_uid}", json={"name": unique("robot"),
               "claimMatch": {"issuer": "https://issuer.example", "subject": secrets.token_hex(4)}}))  # fmt: skip
    bindings = page.get_by_role("table", name="Role bindings").locator("tbody tr")
    before = bindings.count()
    page.get_by_label("Identity uid").fill(ident["uid"])
    page.get_by_label("Role", exact=True).first.select_option(label="editor")
    page.get_by_role("button", name="Add binding").click()
    expect(bindings).to_have_count(before + 1)
    row = bindings.filter(has_text=ident["name"])
    row.get_by_role("button", name="Remove").click()
    expect(bindings).to_have_count(before)
    # A custom role, then its capabilities edited (built-in roles have no Edit).
    role = unique("auditor")
    page.get_by_label("Role name").fill(role)
    page.get_by_role("form", name="Create role").get_by_label("Capabilities").select_option(
        ["CAP_REPO_LIST", "CAP_TAG_LIST"]
    )
    page.get_by_role("button", name="Create role").click()
    row = page.get_by_role("table", name="Roles").locator("tbody tr").filter(has_text=role)
    expect(row).to_contain_text("2 capabilities")
    row.get_by_text("Edit", exact=True).click()
    row.get_by_label("Capabilities").select_option(["CAP_REPO_LIST"])
    row.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("table", name="Roles").locator("tbody tr").filter(has_text=role)).to_contain_text(
        "1 capabilities"
    )
    # An invite: the code shown once, then revoked.
    page.get_by_role("button", name="Create invite").click()
    expect(page.locator(".secret code")).to_be_visible()
    invites = page.get_by_role("table", name="Invites").locator("tbody tr")
    expect(invites).to_have_count(1)
    invites.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("No open invites.")).to_be_visible()
    # A subscription: the secret shown once, then deleted.
    world.goto(w, "events")
    settle(w)
    page.get_by_label("Sink URL").fill("http://127.0.0.1:9/hook")
    page.get_by_role("button", name="Create subscription").click()
    subs = page.get_by_role("table", name="Subscriptions").locator("tbody tr")
    expect(subs).to_have_count(1)
    subs.get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No subscriptions")).to_be_visible()
    assert not w.problems(), w.problems()


def test_the_api_refuses_the_viewer_anyway(world: World) -> None:
    """No control is shown to the viewer; a call made from its console session is refused by the API."""
    w = world.viewer
    world.goto(w, "access")
    settle(w)
    status = w.page.evaluate(
        """async (g) => {
            const s = JSON.parse(sessionStorage.getItem('console.session'));
            const r = await fetch('/iam/v2/groups/' + g, {method: 'POST', headers: {authorization: 'Bearer ' + s.token},
                                  body: JSON.stringify({name: 'nope'})});
            return r.status;
        }""",
        world.org_uid,
    )
    assert status == 403


def test_sign_out_forgets_the_session_and_renewal_uses_the_refresh_token(world: World, chromium: Browser) -> None:
    w = world.sign_in(chromium, "viewer")
    page = w.page
    # Renewal: an expired token is replaced through the refresh token before the next call.
    old = page.evaluate("JSON.parse(sessionStorage.getItem('console.session'))")
    assert old["refresh"]
    page.evaluate("""() => { const s = JSON.parse(sessionStorage.getItem('console.session'));
                      s.expiry = Date.now(); sessionStorage.setItem('console.session', JSON.stringify(s)); }""")
    page.reload()
    settle(w)
    expect(page.get_by_role("heading", name=world.org["name"])).to_be_visible()
    new = page.evaluate("JSON.parse(sessionStorage.getItem('console.session'))")
    assert new["token"] != old["token"] and new["refresh"] != old["refresh"]
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('console.session')") is None
    # The server revoked the login: the refresh token the tab held renews nothing any more.
    r = httpx.post(
        world.srv.base_url + "/sts/exchange_refresh_token", headers={"authorization": "Bearer " + new["refresh"]}
    )
    assert r.status_code == 401, r.text
    w.context.close()


def test_keyboard_and_a_1024_pixel_window(world: World) -> None:
    w = world.owner
    page = w.page
    page.set_viewport_size({"width": 1024, "height": 768})
    try:
        world.goto(w, f"images/{world.repo['uid']}")
        settle(w)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1024
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to content"
        # Tabs move with the arrow keys, and the chosen tab is in the URL.
        page.get_by_role("tab", name="Tags").focus()
        page.keyboard.press("ArrowRight")
        expect(page.get_by_role("tab", name="Overview")).to_be_focused()
        expect(page.get_by_role("tab", name="Overview")).to_have_attribute("aria-selected", "true")
        assert "tab=overview" in page.url
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none"  # focus is visible
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})


def test_static_files_are_small_compressed_and_revalidated(srv: Server) -> None:
    with httpx.Client(base_url=srv.base_url) as c:
        total = 0
        for name in ("app.js", "api.js", "session.js", "ui.js", "markdown.js", "chart.js", "console.css",
                     "registry.js", "pages/image.js"):  # fmt: skip
            r = c.get("/console/static/" + name, headers={"accept-encoding": "gzip"})
            assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
            total += int(r.headers["content-length"])
            again = c.get("/console/static/" + name, headers={"if-none-match": r.headers["etag"]})
            assert again.status_code == 304
        assert total < 150_000  # the heaviest page's JavaScript and CSS, compressed


def test_the_delivery_log_and_redeliver(world: World, srv: Server) -> None:
    """An event of the organization goes to its subscription (a closed loopback port: every attempt fails);
    the Events page lists the delivery with its state and attempts, and Redeliver starts a new round."""
    sub = ok(srv.http.post(f"/events/v2/subscriptions/{world.org_uid}", json={"sink": "http://127.0.0.1:9/hook"}))
    try:
        mk_group(srv.http, world.org_uid, unique("evented"))
        w = world.owner
        world.goto(w, "events")
        settle(w)
        rows = w.page.get_by_role("table", name="Deliveries").locator("tbody tr").filter(has_text="group.created")
        expect(rows).to_have_count(1)
        # The row may say "pending" before the redeliver is answered: wait for the answer itself, or the
        # subscription's deletion below could overtake it (a 404 the next test would find on this page).
        with w.page.expect_response(lambda r: r.url.endswith(":redeliver")) as answered:
            rows.get_by_role("button", name="Redeliver").click()
        assert answered.value.status == 200, answered.value.status
        expect(rows.get_by_role("alert")).to_have_count(0)
        expect(rows).to_contain_text("pending")
        assert not [p for p in w.problems() if "redeliver" in p], w.problems()
    finally:
        srv.http.delete(f"/events/v2/subscriptions/{sub['uid']}")


def test_end_of_life_shows_on_the_tags(world: World, srv: Server, tmp_path: Path) -> None:
    uid, _, _ = image(srv, srv.http, world.org_uid, tmp_path, ("2.7",))
    srv.cli("import", "eol", uid, "python", str(EOL))
    w = world.owner
    world.goto(w, f"images/{uid}")
    settle(w)
    expect(w.page.locator("main tbody tr")).to_contain_text("End of life: 2.7")


def test_a_disabled_subscription_is_enabled_again(world: World, srv: Server) -> None:
    sub = ok(srv.http.post(f"/events/v2/subscriptions/{world.org_uid}", json={"sink": "http://127.0.0.1:9/off"}))
    try:
        ok(srv.http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"disabled": True}))
        w = world.owner
        world.goto(w, "events")
        settle(w)
        row = w.page.get_by_role("table", name="Subscriptions").locator("tbody tr").filter(has_text="/off")
        expect(row).to_contain_text("disabled")
        row.get_by_role("button", name="Re-enable").click()
        expect(row).to_contain_text("enabled")
        expect(row.get_by_role("button", name="Re-enable")).to_have_count(0)
        assert ok(srv.http.get(f"/events/v2/subscriptions/{sub['uid']}")).get("disabled", False) is False
    finally:
        srv.http.delete(f"/events/v2/subscriptions/{sub['uid']}")


def test_images_are_searched_narrowed_by_group_and_paged(world: World, srv: Server) -> None:
    group = mk_group(srv.http, world.org_uid, unique("many"))
    for i in range(51):
        ok(srv.http.post(f"/registry/v2/repos/{group['uid']}", json={"name": f"many-{i:02d}"}))
    w = world.owner
    page = w.page
    world.goto(w, "images")
    settle(w)
    page.get_by_role("navigation", name="Groups").get_by_role("link", name=group["name"]).click()
    settle(w)
    rows = page.get_by_role("table", name="Images").locator("tbody tr")
    expect(rows).to_have_count(50)  # one page of the API's answer
    expect(page.get_by_text("51 in all · page 1")).to_be_visible()
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("many-50")
    page.get_by_role("button", name="Previous page").click()
    expect(rows).to_have_count(50)
    page.get_by_label("Search images").fill("many-07")
    page.get_by_role("button", name="Search").click()
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("many-07")
    assert "q=many-07" in page.url and "group=" in page.url  # a deep link
    page.get_by_label("Search images").fill("nothing-like-this")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("No image matches")).to_be_visible()


def test_an_image_pushed_through_the_registry_shows(world: World, registry: str, tmp_path: Path) -> None:
    source = distribution.layout(tmp_path / "pushed", "arm64")
    pushed = distribution.push(source, registry, f"{world.org['name']}/pushed", world.srv.token)
    assert pushed.returncode == 0, pushed.stderr
    w = world.owner
    page = w.page
    world.goto(w, "images?q=pushed")
    settle(w)
    # The registry's notification reaches the server a moment after the push: search again until it has.
    link = page.get_by_role("table", name="Images").get_by_role("link", name="pushed")
    for _ in range(100):
        if link.count():
            break
        page.get_by_role("button", name="Search").click()
        settle(w)
    link.click()
    settle(w)
    row = page.locator("main tbody tr")
    expect(row).to_contain_text("latest")
    expect(row).to_contain_text("arm64")
    # The pull URL's host is the `registry_url` setting, else this server's (this server has none set).
    expect(row.locator("code.pull")).to_have_text(
        f"localhost:{world.srv.base_url.rsplit(':', 1)[1]}/{world.org['name']}/pushed:latest"
    )


def asks_for_access(srv: Server, provider: Provider, org: str, email: str) -> str:
    """A person of the provider with this e-mail logs in (played over HTTP, to a loopback callback) and asks
    `org` for access; their identity uid."""
    name = "asker" + secrets.token_hex(3)
    provider.add_user(name, email)
    query = {"redirect": "http://127.0.0.1:9/cb", "exit": "redirect", "state": "s1"}
    token = callback_params(complete(f"{public(srv)}/oauth?{urlencode(query)}", name))["token"]
    with srv.client(token) as c:
        assert c.post(f"/iam/v2/groups/{org}:requestGroupAccess", json={}).status_code == 200
    return matching.user_uid(matching.normalize_issuer(provider.issuer), provider.users[name].sub)


def bindings_of(srv: Server, org: str, identity: str) -> list[tuple[str, str]]:
    found = ok(srv.http.get("/iam/v2/roleBindings", params={"uidp.childrenOf": org, "pageSize": 100}))
    return [(b["uid"], b["role"]["uid"]) for b in found.get("roleBindings", []) if b["identity"]["uid"] == identity]


# One backend: the console's calls; the SQL they reach runs on both in iam/test_join_rpcs.py and the IAM tests.
@pytest.mark.one_backend
def test_access_requests_domains_providers_and_mappings(world: World, srv: Server, provider: Provider) -> None:
    org = world.org_uid
    dom, pending = f"c-{secrets.token_hex(3)}.example", f"p-{secrets.token_hex(3)}.example"
    srv.cli("domains", "verify", "--group", org, "--domain", dom)
    txt = json.loads(srv.cli("domains", "challenge", "--group", org, "--domain", pending))["txt"]
    email = f"asker@{dom}"
    asker = asks_for_access(srv, provider, org, email)
    idp = mk_idp(srv.http, org)
    w, v = world.owner, world.viewer
    # Only this test's problems: the earlier ones' deliberate refusals (a viewer's 403) stay on the contexts.
    earlier = w.problems() + v.problems()
    page = w.page
    world.goto(w, "access")
    settle(w)
    domains = page.get_by_role("table", name="Verified e-mail domains")
    expect(domains.locator("tr", has_text=dom)).to_contain_text("verified")
    expect(domains.locator("tr", has_text=pending)).to_contain_text(txt)
    # Grant the request a role: a binding, whose role then changes in place (same binding uid).
    request = page.get_by_role("table", name="Access requests").locator("tbody tr").filter(has_text=email)
    request.get_by_label("Role", exact=True).select_option(label="viewer")
    request.get_by_role("button", name="Grant").click()
    expect(request).to_contain_text("Granted.")
    [(binding, role)] = bindings_of(srv, org, asker)
    assert role == BUILTIN_ROLE_UIDS["viewer"]
    row = (
        page.get_by_role("table", name="Role bindings")
        .locator("tbody tr")
        .filter(has=page.locator(f"span[title='{asker}']"))
    )
    row.get_by_label("Role", exact=True).select_option(label="editor")
    row.get_by_role("button", name="Change role").click()
    # The select shows the choice before the PATCH is answered: wait for the API to say so.
    changed = [(binding, BUILTIN_ROLE_UIDS["editor"])]
    deadline = time.monotonic() + 10
    while bindings_of(srv, org, asker) != changed and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bindings_of(srv, org, asker) == changed
    # Edit the identity provider: a new name and client secret (stored, never shown).
    providers = page.get_by_role("table", name="Identity providers").locator("tbody tr")
    row = providers.filter(has_text=idp["name"])
    row.get_by_text("Edit", exact=True).click()
    renamed, secret = unique("sso"), "new-" + secrets.token_hex(4)
    row.get_by_label("Name").fill(renamed)
    row.get_by_label("New client secret (empty: keep)").fill(secret)
    row.get_by_role("button", name="Save provider").click()
    expect(providers.filter(has_text=renamed)).to_have_count(1)
    with ThreadPoolExecutor(1) as pool:  # off Playwright's running event loop
        assert pool.submit(stored_secret, srv, idp["uid"]).result() == secret
    expect(page.locator("main")).not_to_contain_text(secret)
    # A mapping of the provider's group "devs", then deleted.
    create = page.get_by_role("form", name="Create external group mapping")
    create.get_by_label("External group").fill("devs")
    create.get_by_label("Role", exact=True).select_option(label="viewer")
    create.get_by_role("button", name="Create mapping").click()
    mappings = page.get_by_role("table", name="External group mappings").locator("tbody tr")
    expect(mappings.filter(has_text="devs")).to_have_count(1)
    mappings.filter(has_text="devs").get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No external group mappings.")).to_be_visible()
    # An account association of the organization, then deleted.
    create = page.get_by_role("form", name="Create account association")
    create.get_by_label("Name").fill("cloud")
    create.get_by_label("AWS account id").fill("123456789012")
    create.get_by_role("button", name="Create association").click()
    assocs = page.get_by_role("table", name="Account associations").locator("tbody tr")
    expect(assocs.filter(has_text="amazon")).to_have_count(1)
    assocs.filter(has_text="amazon").get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No account associations.")).to_be_visible()
    assert [p for p in w.problems() if p not in earlier] == []
    # The viewer sees the domains without the TXT record, no requests and none of the controls.
    world.goto(v, "access")
    settle(v)
    expect(v.page.get_by_role("table", name="Verified e-mail domains")).to_contain_text(pending)
    expect(v.page.locator("main")).not_to_contain_text(txt)
    expect(v.page.get_by_text("You may not see access requests.")).to_be_visible()
    for button in ("Grant", "Change role", "Save provider", "Delete", "Create mapping", "Create association"):
        expect(v.page.get_by_role("button", name=button)).to_have_count(0)
    expect(v.page.get_by_text("Edit", exact=True)).to_have_count(0)
    assert [p for p in v.problems() if p not in earlier] == []


def only_not_found(w: Watched, *urls: str) -> None:
    """The page's problems are reads of URLs ending so that found nothing (404: an empty state, not an error);
    forgotten then, so that the next test's check starts clean."""
    unexpected = [x for x in w.problems() if not ("404" in x and ("Failed to load" in x or x.endswith(urls)))]
    assert not unexpected, unexpected
    w.messages.clear()
    w.errors.clear()


@pytest.mark.one_backend  # the picker is the page's code; the reads it makes run on both backends elsewhere here
def test_a_tag_and_an_architecture_are_picked_into_the_url(world: World, srv: Server, tmp_path: Path) -> None:
    """SBOM and vulnerabilities show the tag and, for an index, the architecture of the URL (a deep link), chosen
    from the tags' first page plus "More tags"; the heading names them."""
    extra = tuple(f"t{i:02d}" for i in range(50))  # the tags' first page is 50: one more page to load
    uid, name, digests = multi_arch_image(srv, srv.http, world.org_uid, tmp_path, ("multi",), ("single", *extra))
    srv.cli("import", "sbom", uid, digests["arm64"], str(SBOM))
    w = world.owner
    page = w.page
    world.goto(w, f"images/{uid}?tab=sbom&tag=multi&arch=arm64")
    settle(w)
    expect(page.locator("main h1")).to_have_text(f"{name}:multi (arm64)")
    expect(page.locator("main table")).to_contain_text("Packages")
    page.get_by_label("Architecture").select_option("amd64")
    expect(page.get_by_text(f"No SBOM imported for {name}:multi (amd64).")).to_be_visible()
    expect(page.locator("main table")).to_have_count(0)
    assert "tag=multi" in page.url and "arch=amd64" in page.url
    tags = page.get_by_label("Tag", exact=True)
    expect(tags.locator("option")).to_have_count(51)  # the first page, plus the tag of the URL
    page.get_by_role("button", name="More tags").click()
    expect(tags.locator("option")).to_have_count(52)
    expect(page.get_by_role("button", name="More tags")).to_have_count(0)
    tags.select_option("single")
    expect(page.locator("main h1")).to_have_text(f"{name}:single")
    assert "tag=single" in page.url and "arch=" not in page.url
    expect(page.get_by_label("Architecture")).to_have_count(0)  # one image, no index
    page.get_by_role("tab", name="Vulnerabilities").click()  # the tag stays with the tab
    expect(page.get_by_text(f"No vulnerability report imported for {name}:single.")).to_be_visible()
    assert "tab=vulnerabilities" in page.url and "tag=single" in page.url
    only_not_found(w, "/sbom?arch=amd64", "/vulnreport")  # the empty states above


def _reported_today(srv: Server, parent: str, tmp: Path) -> tuple[str, str]:
    """An image tagged latest under `parent` with today's Grype report (the overview counts the last two days'
    reports): (repo uid, repo name)."""
    uid, name, digest = image(srv, srv.http, parent, tmp, ("latest",))
    report = json.loads(GRYPE_REPORT.read_text())
    report["descriptor"]["timestamp"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    (tmp / "report.json").write_text(json.dumps(report))
    srv.cli("import", "vulnreport", uid, digest, str(tmp / "report.json"))
    return uid, name


@pytest.mark.one_backend  # the counting is the page's code over calls tested on both backends elsewhere
def test_overview_counts_are_the_chosen_organizations(world: World, srv: Server, tmp_path: Path) -> None:
    """Two organizations the owner sees. The first: two images with today's report, one named like an image
    of the second (the counts name repos by name only). The second: that same-named image, without a report,
    and one of its own with today's report. Each overview counts its own images only."""
    other = mk_group(srv.http, "", unique("console-other"))
    ok(srv.http.post(f"/iam/v2/roleBindings/{other['uid']}",
                     json={"identityUid": world.owner_uid, "roleUid": BUILTIN_ROLE_UIDS["owner"]}))  # fmt: skip
    _, shared = _reported_today(srv, world.org_uid, tmp_path / "a")
    _reported_today(srv, world.team["uid"], tmp_path / "b")
    _reported_today(srv, other["uid"], tmp_path / "c")
    same = ok(srv.http.post(f"/registry/v2/repos/{other['uid']}", json={"name": shared}))
    ok(srv.http.post(f"/registry/v2/tags/{same['uid']}", json={"name": "latest", "digest": "sha256:" + "b" * 64}))
    items = ok(srv.http.get("/registry/v1/vuln_reports/counts", params={"repo": shared, "tag": "latest"}))["items"]
    one = {c["severity"]: c["count"] for c in items[-1]["vulnCounts"]}  # one report's
    assert one.get("CRITICAL", 0), one
    w = world.owner
    page = w.page
    for org, times in ((world.org_uid, 2), (other["uid"], 1)):
        page.goto(f"{public(srv)}/console/?org={org}")  # a page load: the organizations are read again
        settle(w)
        counts = page.get_by_role("region", name="In numbers")
        for label, key in (("Critical", "CRITICAL"), ("High", "HIGH")):
            term = counts.locator("div", has=page.locator("dt", has_text=label))
            expect(term.locator("dd")).to_have_text(str(times * one.get(key, 0)))
        expect(counts).to_contain_text("tag latest")
    only_not_found(w, "b" * 64 + "/vulnreport")  # the same-named image's latest tag: no report
