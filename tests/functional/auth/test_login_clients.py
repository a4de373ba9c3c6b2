"""The login from a client's side: `browser_login()` and `headless_login()` (platform_api.client.login) end to
end against a server and the test OIDC provider; the headless protocol over the wire (proof of the key, the
confirmation code the browser shows, NOT_FOUND before the login finishes, one read after, a result only the
key's holder who typed the code can open; a second login for the same code refused); WhoAmI over HTTP and
gRPC; refreshes of one cached login from two processes at once.
"""

from __future__ import annotations

import base64
import contextlib
import queue
import re
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from google.protobuf import empty_pb2

from platform_api.client import Credentials
from platform_api.client import auth as client_auth
from platform_api.client import login as client_login
from platform_api.gen.chainguard.platform.auth import auth_pb2, auth_pb2_grpc
from tests.helpers import BACKENDS, TIMEOUT, Server
from tests.helpers.oidc_provider import Provider, complete, login_server, to_provider

CLIENT = "cli-client"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT)  # a public client: PKCE alone
    p.add_user("carol", "carol@example.com")
    p.user = "carol"
    yield p
    p.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: Provider
) -> Iterator[Server]:
    with login_server(request.param, tmp_path_factory.mktemp("logincl"), provider, CLIENT) as s:
        yield s


def browse_later(url: str) -> None:
    """The browser: follows the login to its end, the loopback callback included, in its own thread."""
    threading.Thread(target=complete, args=(url,), kwargs={"follow_final": True}, daemon=True).start()


def test_browser_login_end_to_end(srv: Server) -> None:
    opened: list[str] = []

    def open_browser(url: str) -> None:
        opened.append(url)
        browse_later(url)

    result = client_login.browser_login(srv.base_url, open_browser=open_browser, timeout=60)
    assert opened[0].startswith(srv.base_url + "/oauth?") and "redirect=http%3A%2F%2F127.0.0.1%3A" in opened[0]
    assert result.token and result.refresh_token and result.expiry is not None
    with srv.client(result.token) as c:
        me = c.get("/auth/v1/ok").json()
    assert me["email"] == "carol@example.com"
    assert result.expiry.timestamp() == pytest.approx(httpx_time(me["expiry"]), abs=1)


def httpx_time(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_browser_login_reports_a_refusal(srv: Server) -> None:
    with pytest.raises(client_login.LoginError, match="Not found"):
        client_login.browser_login(srv.base_url, invite_code="painv_unknown", open_browser=browse_later, timeout=60)


def test_browser_login_times_out(srv: Server) -> None:
    with pytest.raises(client_login.LoginError, match="no login within"):
        client_login.browser_login(srv.base_url, open_browser=lambda url: None, timeout=1)


def headless_browser(url: str, user: str = "") -> httpx.Response:
    """Another machine's browser: follows the headless login (as `user`, if given) to our last page."""
    with httpx.Client(timeout=30) as c:
        r = to_provider(c, url)
        if r.status_code != 302:
            return r  # refused before the provider
        r = c.get(r.headers["location"] + (f"&login_hint={user}" if user else ""))
        assert r.status_code == 302, r.text
        r = c.get(r.headers["location"])
    assert r.headers["content-type"].startswith("text/html") and r.headers["cache-control"] == "no-store", r.text
    return r


def confirmation_on(page: httpx.Response) -> str:
    """The confirmation code the page shows (K7QD-M2XP), '' if none."""
    found = re.search(r"<h1>([A-Z0-9]{4}-[A-Z0-9]{4})</h1>", page.text)
    return found.group(1) if found else ""


def test_headless_login_end_to_end(srv: Server) -> None:
    shown: list[str] = []
    pages: queue.Queue[httpx.Response] = queue.Queue()
    prompts: list[str] = []

    def show(url: str) -> None:
        shown.append(url)
        # Another machine's browser: the login ends on our page, which shows the confirmation code.
        threading.Thread(target=lambda: pages.put(headless_browser(url)), daemon=True).start()

    def confirm(prompt: str) -> str:
        """The person: a typo first, then the code as shown (in lower case: case does not matter)."""
        prompts.append(prompt)
        if len(prompts) == 1:
            page = pages.get(timeout=60)
            assert page.status_code == 200 and confirmation_on(page), page.text
            shown.append(confirmation_on(page))
            return "ABCD-EFGH"
        return shown[-1].lower()

    result = client_login.headless_login(srv.base_url, show=show, confirm=confirm, timeout=60)
    assert "headless_code=" in shown[0] and "redirect=" not in shown[0]
    assert "wrong confirmation code (4 attempts left)" in prompts[-1]
    with srv.client(result.token) as c:
        assert c.get("/auth/v1/ok").json()["email"] == "carol@example.com"
    assert result.refresh_token
    assert client_login.whoami(srv.base_url, result.token)["email"] == "carol@example.com"


def _key() -> tuple[ec.EllipticCurvePrivateKey, bytes, str]:
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return private, point, base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def read(srv: Server, code: str, private: ec.EllipticCurvePrivateKey | None, confirmation: str = "",
         at: float | None = None) -> httpx.Response:  # fmt: skip
    """GET /sts/headless_sessions as the CLI does (a proof with the key, when given) or as a bystander."""
    params = {"code": code}
    if private is not None:
        now = int(time.time() if at is None else at)
        params.update(timestamp=str(now), signature=client_login.proof(private, code, now))
    if confirmation:
        params["confirmation"] = confirmation
    return httpx.get(srv.base_url + "/sts/headless_sessions", params=params)


def assert_code(r: httpx.Response, status: int, code: int, field: str = "") -> None:
    assert r.status_code == status and r.json()["code"] == code, r.text
    if field:
        assert r.json()["details"][1]["fieldViolations"][0]["field"] == field, r.text


def test_headless_protocol(srv: Server) -> None:
    private, point, code = _key()
    assert_code(read(srv, code, private, "AAAA-AAAA"), 404, 5)  # not finished yet
    confirmation = confirmation_on(headless_browser(srv.base_url + "/oauth?headless_code=" + code))
    assert confirmation
    # Without proof of the key, with another key's, or a stale one: refused, and nothing is used up.
    other, _, _ = _key()
    assert_code(read(srv, code, None, confirmation), 400, 3, "signature")
    assert_code(read(srv, code, other, confirmation), 400, 3, "signature")
    assert_code(read(srv, code, private, confirmation, at=time.time() - 120), 400, 3, "signature")
    assert_code(read(srv, code, private), 400, 3, "confirmation")
    assert_code(read(srv, code, private, "AAAA-AAAA"), 400, 3, "confirmation")  # a wrong code: 4 left
    r = read(srv, code, private, confirmation.replace("-", " ").lower())
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"ecdhPublicKey", "encryptedIdtoken"}
    eph, sealed = base64.b64decode(body["ecdhPublicKey"]), base64.b64decode(body["encryptedIdtoken"])
    answer = client_login._open_sealed(private, point, eph, sealed, confirmation)
    assert b'"token"' in answer
    # Someone else's key cannot open it; nor this key with another confirmation code.
    with pytest.raises(Exception):  # noqa: B017 (cryptography's InvalidTag, or a bad key agreement)
        client_login._open_sealed(other, point, eph, sealed, confirmation)
    with pytest.raises(InvalidTag):
        client_login._open_sealed(private, point, eph, sealed, "ABCD-EFGH")
    # Read once.
    assert_code(read(srv, code, private, confirmation), 400, 9)
    # No code, or one too long: INVALID_ARGUMENT.
    assert httpx.get(srv.base_url + "/sts/headless_sessions").status_code == 400
    assert httpx.get(srv.base_url + "/sts/headless_sessions", params={"code": "x" * 300}).status_code == 400


def test_five_wrong_confirmation_codes_cancel_the_login(srv: Server) -> None:
    private, _, code = _key()
    confirmation = confirmation_on(headless_browser(srv.base_url + "/oauth?headless_code=" + code))
    for left in (4, 3, 2, 1):
        r = read(srv, code, private, "AAAA-AAAA")
        assert_code(r, 400, 3, "confirmation")
        assert f"({left} attempts left)" in r.json()["message"]
    assert_code(read(srv, code, private, "AAAA-AAAA"), 400, 9)  # the fifth: cancelled
    assert_code(read(srv, code, private, confirmation), 400, 9)  # the right one is too late


def test_a_bystander_who_saw_the_code_cannot_take_the_result(srv: Server) -> None:
    """Issue 26 item 10: whoever saw the code (it is in the URL on screen) read the sealed result, once, so the
    CLI never got it. Reading now needs proof of the CLI's key; a read without answers INVALID_ARGUMENT (the
    vendor's CLI, which sends the code only, is refused alike) and uses nothing up."""
    private, _, code = _key()
    confirmation = confirmation_on(headless_browser(srv.base_url + "/oauth?headless_code=" + code))
    bystander = httpx.get(srv.base_url + "/sts/headless_sessions", params={"code": code})
    assert_code(bystander, 400, 3, "signature")
    assert read(srv, code, private, confirmation).status_code == 200


def test_headless_login_fixation_is_refused(srv: Server, provider: Provider) -> None:
    """Issue 26 item 3: someone who saw the victim's headless URL finished a login first, as themself, and the
    victim's CLI silently received their token (the victim's own login even showed "Signed in"). Now the
    first login's confirmation code is on the attacker's screen; the victim's browser is told the code was
    used (before the provider, or at the callback when both were under way) and shows no code; and without
    the attacker's code the victim's CLI gets nothing."""
    provider.add_user("mallory", "mallory@example.com")
    pages: list[httpx.Response] = []

    def show(url: str) -> None:
        under_way = httpx.Client(timeout=30)
        begun = to_provider(under_way, url)  # the victim's login, begun before the attacker finishes
        assert begun.status_code == 302, begun.text
        attackers = headless_browser(url, "mallory")  # the attacker, who saw the URL, finishes first
        assert attackers.status_code == 200 and confirmation_on(attackers)
        # The victim's login, begun again now: refused before the provider, on a page a person can read.
        pages.append(headless_browser(url))
        # The one under way comes back from the provider: told the same at the callback.
        pages.append(under_way.get(under_way.get(begun.headers["location"]).headers["location"]))

    def confirm(prompt: str) -> str:  # the victim types what their browser shows: no code
        return confirmation_on(pages[-1])

    with pytest.raises(client_login.LoginError, match="no confirmation code"):
        client_login.headless_login(srv.base_url, show=show, confirm=confirm, timeout=60)
    for page in pages:
        assert page.status_code == 400 and "already used" in page.text and not confirmation_on(page), page.text
        assert page.headers["content-security-policy"].startswith("default-src 'none'")


def test_a_second_login_cannot_replace_a_finished_one(srv: Server) -> None:
    """The first finished login of a code is the one kept, read or not, until it expires: a later one (someone
    who saw the code on screen) is refused, and nothing of theirs reaches the CLI."""
    private, _, code = _key()
    url = srv.base_url + "/oauth?headless_code=" + code
    confirmation = confirmation_on(headless_browser(url))
    second = headless_browser(url)  # nobody read the first yet
    assert second.status_code == 400 and "already used" in second.text
    first = read(srv, code, private, confirmation)
    assert first.status_code == 200, first.text
    third = headless_browser(url)  # read: the code stays used
    assert third.status_code == 400 and "already used" in third.text


def test_headless_over_grpc(srv: Server) -> None:
    private, point, code = _key()
    stub = auth_pb2_grpc.AuthStub(srv.grpc_channel(None))

    def request(confirmation: str) -> auth_pb2.GetHeadlessSessionRequest:
        now = int(time.time())
        return auth_pb2.GetHeadlessSessionRequest(code=code, timestamp=now, confirmation=confirmation,
                                                  signature=client_login.proof(private, code, now))  # fmt: skip

    with pytest.raises(grpc.RpcError) as e:
        stub.GetHeadlessSession(request("AAAA-AAAA"), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    confirmation = confirmation_on(headless_browser(srv.base_url + "/oauth?headless_code=" + code))
    with pytest.raises(grpc.RpcError) as e:  # the code alone, as the vendor's CLI sends it
        stub.GetHeadlessSession(auth_pb2.GetHeadlessSessionRequest(code=code), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    got = stub.GetHeadlessSession(request(confirmation), timeout=TIMEOUT)
    opened = client_login._open_sealed(private, point, got.ecdh_public_key, got.encrypted_idtoken, confirmation)
    assert b'"token"' in opened


def test_whoami_http_and_grpc(srv: Server) -> None:
    org = srv.owner_org
    with srv.client(srv.token) as c:
        http = c.get("/auth/v1/ok").json()
    assert http["subject"] == srv.owner and http["audience"] and http["expiry"] and http["issuedAt"]
    owner = [e for e in http["capabilities"] if e["group"]["id"] == org]
    assert owner and owner[0]["role"]["name"] == "owner" and "groups.list" in owner[0]["capabilities"]
    stub = auth_pb2_grpc.AuthStub(srv.grpc_channel(srv.token))
    got: Any = stub.Validate(empty_pb2.Empty(), timeout=TIMEOUT)
    assert got.subject == srv.owner and got.issuer == http["issuer"]
    assert [(c.group.id, c.role.name) for c in got.capabilities] == [
        (e["group"]["id"], e["role"]["name"]) for e in http["capabilities"]
    ]
    # No token, or a bad one: UNAUTHENTICATED on both.
    assert httpx.get(srv.base_url + "/auth/v1/ok").status_code == 401
    with srv.client("not-a-token") as c:
        assert c.get("/auth/v1/ok").status_code == 401
    with pytest.raises(grpc.RpcError) as e:
        auth_pb2_grpc.AuthStub(srv.grpc_channel(None)).Validate(empty_pb2.Empty(), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_headless_code_must_be_a_p256_key(srv: Server) -> None:
    bad = base64.urlsafe_b64encode(b"\x04" + b"\x01" * 64).rstrip(b"=").decode()  # not on the curve
    r = httpx.get(srv.base_url + "/oauth", params={"headless_code": bad})
    assert r.status_code == 400 and "location" not in r.headers, r.text


def test_concurrent_refreshes_of_one_login_keep_it(
    srv: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 item 11: two `platformctl auth token` at once both refreshed with the one refresh token; the
    server took the second use for a stolen copy and revoked the whole login. Refreshes of one cache now take
    turns under a file lock, and the second uses the pair the first wrote. Here two Auth objects (as two
    processes: nothing shared but the cache file) refresh at once; both refreshes reach the server together
    unless something serializes them."""
    login = client_login.browser_login(srv.base_url, open_browser=browse_later, timeout=60)
    cache = tmp_path / "platformctl" / "credentials.json"
    expiry = login.expiry.timestamp() if login.expiry else None
    client_auth.save_login(srv.base_url, Credentials(login.token, login.refresh_token, expiry, "login"), cache)
    together = threading.Barrier(2, timeout=1.0)
    real_refresh = client_auth.refresh

    def refresh_together(http: httpx.Client, creds: Credentials) -> Credentials:
        with contextlib.suppress(threading.BrokenBarrierError):  # alone (the other waits for the lock): go on
            together.wait()
        return real_refresh(http, creds)

    monkeypatch.setattr(client_auth, "refresh", refresh_together)
    got: list[Credentials | None] = []
    failed: list[BaseException] = []

    def process() -> None:
        with httpx.Client(base_url=srv.base_url, timeout=30) as http:
            try:
                got.append(client_auth.Auth(srv.base_url, http, use_env=False, cache=cache).credentials(
                    force_refresh=True))  # fmt: skip
            except Exception as e:  # reported below
                failed.append(e)

    threads = [threading.Thread(target=process) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failed, failed
    assert len(got) == 2 and all(c is not None and c.token != login.token for c in got)
    for creds in got:
        assert creds is not None and client_login.whoami(srv.base_url, creds.token)["email"] == "carol@example.com"
    # The login lives on: its refresh token (the one the cache holds now) still refreshes.
    monkeypatch.setattr(client_auth, "refresh", real_refresh)
    with httpx.Client(base_url=srv.base_url, timeout=30) as http:
        again = client_auth.Auth(srv.base_url, http, use_env=False, cache=cache).credentials(force_refresh=True)
    assert again is not None and client_login.whoami(srv.base_url, again.token)["subject"]
    assert stat.S_IMODE((tmp_path / "platformctl" / "credentials.json.lock").stat().st_mode) == 0o600
