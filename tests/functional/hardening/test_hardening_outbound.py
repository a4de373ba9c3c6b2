"""Outbound connections the server makes on a caller's say-so (findings of a security probe):

- token exchange: the upstream issuer's discovery document and JWKS are fetched under the webhook sinks'
  address rules (core.netcheck), pinned to the checked address; with --insecure-allow-loopback a jwks_uri
  on another loopback origin than the issuer's is not fetched;
- unauthenticated issuers cannot grow the server's memory: issuers are capped in length and every cache
  keyed by them is bounded;
- IPv6 addresses that embed a non-public IPv4 address (6to4, Teredo, NAT64, IPv4-compatible) are refused.

Every connection here goes to loopback; refusals of other addresses are checked before any connection.
"""

from __future__ import annotations

import asyncio
import datetime
import errno
import json
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from platform_api.auth import upstream as upstream_mod
from platform_api.core import netcheck
from platform_api.core.lru import LRU
from tests.helpers import BACKENDS, Server, Upstream, new_key, start_server, stop_server

# ---------------------------------------------------------------------- address rules (unit)


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::1", False),  # 6to4 of 169.254.169.254 (cloud metadata)
        ("2002:a00:1::1", False),  # 6to4 of 10.0.0.1
        ("2002:808:808::1", True),  # 6to4 of a public address
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("2001:0:7f00:1::1", False),  # Teredo, server 127.0.0.1
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of the metadata address
        ("64:ff9b:1::7f00:1", False),  # local-use NAT64
        ("::7f00:1", False),  # IPv4-compatible 127.0.0.1
        ("::a9fe:a9fe", False),  # IPv4-compatible metadata address
        ("::ffff:0:7f00:1", False),  # IPv4-translated
        ("::ffff:127.0.0.1", False),  # IPv4-mapped
        ("::ffff:169.254.169.254", False),
        ("::ffff:8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("8.8.8.8", True),
        ("169.254.169.254", False),
        ("127.0.0.1", False),
        ("::1", False),
    ],
)
def test_address_rule(address: str, allowed: bool) -> None:
    assert netcheck.address_allowed(address, allow_loopback=False) is allowed


def test_embedded_loopback_is_not_loopback_under_the_flag() -> None:
    """A 6to4 or NAT64 form of 127.0.0.1 goes through a relay, not to this host: the flag does not allow it."""
    for address in ("2002:7f00:1::1", "64:ff9b::7f00:1", "::7f00:1", "2001:0:7f00:1::1"):
        assert not netcheck.address_allowed(address, allow_loopback=True), address
    assert netcheck.address_allowed("::1", allow_loopback=True)
    assert netcheck.address_allowed("::ffff:127.0.0.1", allow_loopback=True)  # the very same host
    # Networks the operator lists win (an explicit choice).
    assert netcheck.address_allowed("2002:a00:1::1", False, netcheck.networks("2002:a00::/24"))
    assert netcheck.embedded_ipv4(netcheck.ipaddress.IPv6Address("2002:a9fe:a9fe::1")) == [
        netcheck.ipaddress.IPv4Address("169.254.169.254")
    ]


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("2130706433", False),
        ("0x7f.1", False),
        ("017700000001", False),
        ("0x7f000001", False),
        ("127.1", False),
        ("0177.0.0.1", False),
        ("127.0.0.01", False),
        ("foo.123", False),
        ("fe80::1%eth0", False),
        ("127.0.0.1", True),
        ("::1", True),
        ("issuer.example", True),
        ("a1.example", True),
        ("token.actions.githubusercontent.com", True),
    ],
)
def test_host_spellings(host: str, canonical: bool) -> None:
    assert netcheck.host_canonical(host) is canonical


def test_non_canonical_hosts_refused_even_with_the_flag() -> None:
    for url in ("http://2130706433:8080/", "https://0x7f.1/", "http://017700000001/", "https://127.1/"):
        assert not netcheck.url_allowed(url, allow_loopback_http=True), url
    assert netcheck.url_allowed("http://127.0.0.1:8080/", allow_loopback_http=True)


def test_resolution_checks_what_the_resolver_returns() -> None:
    """`localhost` is a name; its addresses (from getaddrinfo, no connection) are what is checked."""

    async def go() -> None:
        with pytest.raises(netcheck.Refused, match="loopback"):
            await netcheck.resolve("https://localhost:9/x", allow_loopback=False)
        with pytest.raises(netcheck.Refused):
            await netcheck.resolve("https://2130706433:9/x", allow_loopback=True)
        t = await netcheck.resolve("http://localhost:9/x?y=1", allow_loopback=True)
        assert t.address in ("127.0.0.1", "::1") and t.host_header == "localhost:9" and t.path == "/x?y=1"

    asyncio.run(go())


# ---------------------------------------------------------------------- pinned TLS (unit, loopback)


def _cert_for(name: str, tmp: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for `name` signed by it: (ca.pem, cert.pem, key.pem)."""
    now = datetime.datetime.now(datetime.UTC)

    def build(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        b = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
        return b.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = build("test ca", ca_key, "test ca", ca_key, True)
    cert = build(name, key, "test ca", ca_key, False)
    paths = tmp / "ca.pem", tmp / "cert.pem", tmp / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


def test_pinned_fetch_keeps_the_name_for_tls_and_host(tmp_path: Path) -> None:
    """Connecting to the checked address still verifies the certificate against the host name."""
    ca, cert, key = _cert_for("issuer.test", tmp_path)
    seen: list[tuple[str | None, str | None]] = []
    sni: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.headers.get("host"), sni[-1] if sni else None))
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    def on_sni(_sock: Any, name: str | None, _ctx: Any) -> None:
        sni.append(name)

    server_ctx.sni_callback = on_sni
    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = server_ctx.wrap_socket(httpd.socket, server_side=True)
    port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    client_ctx = ssl.create_default_context(cafile=str(ca))

    async def fetch(host: str) -> httpx.Response:
        t = netcheck.Target("https", host, port, "/.well-known/openid-configuration", "127.0.0.1")
        async with httpx.AsyncClient(verify=client_ctx, trust_env=False) as c:
            return await c.get(t.url, **upstream_mod.pinned(t))

    try:
        r = asyncio.run(fetch("issuer.test"))
        assert r.status_code == 200
        assert seen == [(f"issuer.test:{port}", "issuer.test")]
        with pytest.raises(httpx.ConnectError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            asyncio.run(fetch("other.test"))  # same address, another name: the certificate does not fit
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------- bounded caches (unit)


def test_lru_forgets_the_least_recently_used() -> None:
    c: LRU[str, int] = LRU(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1
    c.put("c", 3)
    assert len(c) == 2 and c.get("b") is None and c.get("a") == 1 and c.get("c") == 3


def test_upstream_caches_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinct issuers (unauthenticated input) never grow the verifier beyond its bound."""
    _, jwk = new_key()
    keyset = jwt.PyJWKSet.from_dict({"keys": [jwk]})
    fail = {"n": 0}

    async def fake_fetch(issuer: str) -> Any:
        if issuer.endswith("/bad"):
            fail["n"] += 1
            raise upstream_mod.Rejected("unreachable")
        return upstream_mod._Keys(keyset, time.monotonic())

    async def go() -> upstream_mod.UpstreamVerifier:
        v = upstream_mod.UpstreamVerifier(allow_loopback_http=False)
        monkeypatch.setattr(v, "_fetch_keys", fake_fetch)
        n = upstream_mod.MAX_CACHED_ISSUERS + 100
        for i in range(n):
            issuer = f"https://i{i}.example/" + "x" * 1500
            assert (await v._key(issuer, jwk["kid"])).key_id == jwk["kid"]
            with pytest.raises(upstream_mod.Rejected):
                await v._key(issuer + "/bad", jwk["kid"])
            with pytest.raises(upstream_mod.Rejected):
                await v._key(issuer, "unknown-kid")  # the unknown-kid refetch time lives in the entry
        await v.close()
        return v

    v = asyncio.run(go())
    assert len(v._keys) <= upstream_mod.MAX_CACHED_ISSUERS
    assert not v._flights
    assert fail["n"] == upstream_mod.MAX_CACHED_ISSUERS + 100
    assert not [name for name, value in vars(v).items() if isinstance(value, dict) and value]


def test_issuer_length_capped_before_use() -> None:
    key, _ = new_key()
    token = jwt.encode({"iss": "https://a.example/" + "x" * 3000, "sub": "s"}, key, algorithm="RS256")
    with pytest.raises(upstream_mod.Rejected, match="too long"):
        upstream_mod.unverified_claims(token)


# ---------------------------------------------------------------------- over the wire


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
    """A development server: --insecure-allow-loopback; no rate limit (a test sends 200 exchanges in a row)."""
    s = start_server(request.param, tmp_path_factory.mktemp("loose"), "--insecure-allow-loopback", "--no-dispatcher",
                     "--sts-rate", "0")  # fmt: skip
    yield s
    stop_server(s)


def new_org(srv: Server) -> str:
    r = srv.http.post("/iam/v2/groups/", json={"name": "org-" + secrets.token_hex(4)})
    assert r.status_code == 200, r.text
    return str(r.json()["uid"])


def wildcard_identity(srv: Server, issuer_pattern: str) -> str:
    """An identity that accepts any issuer matching the pattern, for one subject of its own."""
    sub = "probe-" + secrets.token_hex(4)
    r = srv.http.post(
        f"/iam/v2/identities/{new_org(srv)}",
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
