"""The login from a client's side: `browser_login()` and `headless_login()` (platform_api.client.login) end to
end against a server and the test OIDC provider; the headless protocol over the wire (NOT_FOUND before the
login finishes, one read after, a result only the key's holder can open); WhoAmI over HTTP and gRPC.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from google.protobuf import empty_pb2

from platform_api.client import login as client_login
from platform_api.gen.chainguard.platform.auth import auth_pb2, auth_pb2_grpc
from tests.helpers import BACKENDS, TIMEOUT, Server
from tests.helpers.oidc_provider import Provider, complete, login_server

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


def test_headless_login_end_to_end(srv: Server) -> None:
    shown: list[str] = []

    def show(url: str) -> None:
        shown.append(url)
        # Another machine's browser: the login ends on our page, not on a loopback callback.
        threading.Thread(target=lambda: headless_browser(url), daemon=True).start()

    result = client_login.headless_login(srv.base_url, show=show, poll_interval=0.2, timeout=60)
    assert "headless_code=" in shown[0] and "redirect=" not in shown[0]
    with srv.client(result.token) as c:
        assert c.get("/auth/v1/ok").json()["email"] == "carol@example.com"
    assert result.refresh_token


def headless_browser(url: str) -> httpx.Response:
    with httpx.Client(timeout=30, follow_redirects=True) as c:
        r = c.get(url)
    assert r.status_code == 200 and "Signed in" in r.text, r.text
    return r


def _key() -> tuple[ec.EllipticCurvePrivateKey, bytes, str]:
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return private, point, base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def test_headless_protocol(srv: Server) -> None:
    private, point, code = _key()
    poll = srv.base_url + "/sts/headless_sessions"
    r = httpx.get(poll, params={"code": code})
    assert r.status_code == 404 and r.json()["code"] == 5, r.text  # not finished yet
    headless_browser(srv.base_url + "/oauth?headless_code=" + code)
    r = httpx.get(poll, params={"code": code})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"ecdhPublicKey", "encryptedIdtoken"}
    eph, sealed = base64.b64decode(body["ecdhPublicKey"]), base64.b64decode(body["encryptedIdtoken"])
    answer = client_login._open_sealed(private, point, eph, sealed)
    assert b'"token"' in answer
    # Someone else's key cannot open it.
    other, _, _ = _key()
    with pytest.raises(Exception):  # noqa: B017 (cryptography's InvalidTag, or a bad key agreement)
        client_login._open_sealed(other, point, eph, sealed)
    # Read once.
    assert httpx.get(poll, params={"code": code}).status_code == 404
    # No code, or one too long: INVALID_ARGUMENT.
    assert httpx.get(poll).status_code == 400
    assert httpx.get(poll, params={"code": "x" * 300}).status_code == 400


def test_a_second_login_cannot_replace_a_finished_one(srv: Server) -> None:
    _, _, code = _key()
    headless_browser(srv.base_url + "/oauth?headless_code=" + code)
    first = httpx.get(srv.base_url + "/sts/headless_sessions", params={"code": code})
    headless_browser(srv.base_url + "/oauth?headless_code=" + code)  # nobody read it yet: a new slot
    with httpx.Client(timeout=30, follow_redirects=True) as c:
        r = c.get(srv.base_url + "/oauth?headless_code=" + code)  # the slot is taken: refused
    assert r.status_code == 400 and r.json()["code"] == 9, r.text
    assert first.status_code == 200


def test_headless_over_grpc(srv: Server) -> None:
    private, point, code = _key()
    stub = auth_pb2_grpc.AuthStub(srv.grpc_channel(None))
    with pytest.raises(grpc.RpcError) as e:
        stub.GetHeadlessSession(auth_pb2.GetHeadlessSessionRequest(code=code), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    headless_browser(srv.base_url + "/oauth?headless_code=" + code)
    got = stub.GetHeadlessSession(auth_pb2.GetHeadlessSessionRequest(code=code), timeout=TIMEOUT)
    assert b'"token"' in client_login._open_sealed(private, point, got.ecdh_public_key, got.encrypted_idtoken)


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
