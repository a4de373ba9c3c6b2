"""Outbound connections the server makes on a caller's say-so (findings of a security probe), over the wire:

- token exchange: the upstream issuer's discovery document and JWKS are fetched under the webhook sinks'
  address rules (core.netcheck), pinned to the checked address; with --insecure-allow-loopback a jwks_uri
  on another loopback origin than the issuer's is not fetched;
- issuers over the length cap are refused without any contact;
- sinks whose IPv6 address embeds a non-public IPv4 address (6to4, Teredo, NAT64, IPv4-compatible) are refused.

Every connection here goes to loopback; refusals of other addresses are checked before any connection. The
rules themselves, in-process: tests/unit/core/test_netcheck.py, tests/unit/auth/test_upstream.py (pinned
TLS, bounded caches) and tests/unit/core/test_core.py (the LRU).
"""

from __future__ import annotations

import errno
import json
import secrets
import socket
import time
from collections.abc import Iterator

import httpx
import jwt
import pytest

from tests.helpers import BACKENDS, Server, Upstream, mk_org, new_key, start_server, stop_server


class Listener:
    """Plain TCP listeners on one port of 127.0.0.1 and ::1 that count the connections they get (the
    kernel completes the handshake in the backlog, so nothing needs to accept while the test runs)."""

    def __init__(self) -> None:
        for _ in range(50):
            v4 = socket.socket(socket.AF_INET)
            v4.bind(("127.0.0.1", 0))
            self.port = v4.getsockname()[1]
            v6 = socket.socket(socket.AF_INET6)
            try:
                v6.bind(("::1", self.port))
            except OSError as e:
                v4.close()
                v6.close()
                if e.errno == errno.EADDRINUSE:
                    continue
                raise
            self.socks = [v4, v6]
            for s in self.socks:
                s.listen(128)
                s.setblocking(False)
            return
        raise RuntimeError("no port free on both loopback addresses")

    def connections(self) -> int:
        n = 0
        for s in self.socks:
            while True:
                try:
                    conn, _ = s.accept()
                except BlockingIOError:
                    break
                conn.close()
                n += 1
        return n

    def close(self) -> None:
        for s in self.socks:
            s.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    li = Listener()
    yield li
    li.close()


@pytest.fixture(scope="module", params=BACKENDS)
def strict(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server as deployed: no --insecure-allow-loopback (and no dispatcher: only writes are checked)."""
    s = start_server(request.param, tmp_path_factory.mktemp("strict"), "--no-dispatcher")
    yield s
    stop_server(s)


@pytest.fixture(scope="module", params=BACKENDS)
def loose(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A development server: --insecure-allow-loopback; no rate limits (a test sends 200 exchanges in a row, and the
    exchange is an anonymous route as well: the per-client bucket of anonymous routes would answer 429)."""
    s = start_server(request.param, tmp_path_factory.mktemp("loose"), "--insecure-allow-loopback", "--no-dispatcher",
                     "--sts-rate", "0", "--anon-rate", "0")  # fmt: skip
    yield s
    stop_server(s)


def wildcard_identity(srv: Server, issuer_pattern: str) -> str:
    """An identity that accepts any issuer matching the pattern, for one subject of its own."""
    sub = "probe-" + secrets.token_hex(4)
    r = srv.http.post(
        f"/iam/v2/identities/{mk_org(srv.http)}",
        json={"name": "bot-" + secrets.token_hex(3), "claimMatch": {"issuerPattern": issuer_pattern, "subject": sub}},
    )
    assert r.status_code == 200, r.text
    return sub


def forged(iss: str, sub: str) -> str:
    key, jwk = new_key()
    now = int(time.time())
    claims = {"iss": iss, "sub": sub, "aud": "localhost", "iat": now, "exp": now + 600}
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": jwk["kid"]})


def exchange(srv: Server, token: str) -> httpx.Response:
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        return c.get("/sts/exchange", headers={"authorization": f"Bearer {token}"})


def assert_refused(r: httpx.Response) -> None:
    assert r.status_code == 401, r.text
    assert r.json()["message"] == "Unauthenticated: token exchange refused"


def test_exchange_never_connects_to_internal_issuers(strict: Server, listener: Listener) -> None:
    sub = wildcard_identity(strict, ".*")
    listener.connections()
    p = listener.port
    for host in ("127.0.0.1", "[::1]", "localhost", "2130706433", "0x7f.1", "017700000001", "127.1",
                 "[::ffff:127.0.0.1]", "localhost."):  # fmt: skip
        assert_refused(exchange(strict, forged(f"https://{host}:{p}", sub)))
        assert listener.connections() == 0, host


def test_jwks_uri_on_another_loopback_origin_not_fetched(loose: Server, listener: Listener) -> None:
    issuer, other = Upstream(), Upstream()
    try:
        sub = wildcard_identity(loose, r"http://127\.0\.0\.1:[0-9]+")
        assert exchange(loose, issuer.token(sub, "localhost")).status_code == 200  # same origin: fetched
        listener.connections()
        elsewhere = [
            lambda port: other.issuer + "/jwks",  # another issuer's port
            lambda port: f"http://127.0.0.1:{listener.port}/jwks",
            lambda port: f"http://localhost:{port}/jwks",  # the same server under another name
            lambda port: f"https://127.0.0.1:{listener.port}/jwks",
            lambda port: f"https://[::1]:{listener.port}/jwks",
        ]
        for jwks_uri in elsewhere:
            fresh = Upstream()  # a fresh issuer: nothing cached for it
            fresh.jwks_uri = jwks_uri(fresh.issuer.rsplit(":", 1)[1])
            try:
                assert_refused(exchange(loose, fresh.token(sub, "localhost")))
                assert fresh.requests == ["/.well-known/openid-configuration"], fresh.jwks_uri
            finally:
                fresh.close()
        assert other.requests == [] and listener.connections() == 0
    finally:
        issuer.close()
        other.close()


def test_many_long_issuers_refused_without_contact(loose: Server) -> None:
    u = Upstream()
    try:
        sub = wildcard_identity(loose, r"http://127\.0\.0\.1:[0-9]+/.*")
        for i in range(200):
            issuer = f"{u.issuer}/{i}/" + "x" * 6000
            assert_refused(exchange(loose, u.token(sub, "localhost", iss=issuer)))
        assert u.requests == []
    finally:
        u.close()


@pytest.mark.parametrize(
    "sink",
    [
        "https://[2002:7f00:1::1]/x",
        "https://[2002:a9fe:a9fe::1]/x",
        "https://[2001:0:7f00:1::1]/x",
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x",
        "https://[64:ff9b::7f00:1]/x",
        "https://[64:ff9b::a9fe:a9fe]/x",
        "https://[64:ff9b:1::a9fe:a9fe]/x",
        "https://[::7f00:1]/x",
        "https://[::ffff:0:a9fe:a9fe]/x",
        "https://[::ffff:169.254.169.254]/x",
    ],
)
def test_sinks_embedding_internal_ipv4_refused(strict: Server, sink: str) -> None:
    r = strict.http.post(f"/events/v2/subscriptions/{strict.owner_org}", json={"sink": sink})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == 3


@pytest.mark.parametrize(
    "sink", ["https://2130706433:9/x", "http://0x7f.1:9/x", "https://017700000001:9/x", "http://127.1:9/x"]
)
def test_sinks_with_numeric_hosts_refused_even_with_the_flag(loose: Server, sink: str) -> None:
    r = loose.http.post(f"/events/v2/subscriptions/{loose.owner_org}", json={"sink": sink})
    assert r.status_code == 400, r.text
    assert "https://" in r.json()["message"]


def test_embedded_loopback_sink_refused_with_the_flag(loose: Server) -> None:
    r = loose.http.post(f"/events/v2/subscriptions/{loose.owner_org}", json={"sink": "https://[2002:7f00:1::1]:9/x"})
    assert r.status_code == 400, r.text
    assert json.loads(r.text)["code"] == 3
