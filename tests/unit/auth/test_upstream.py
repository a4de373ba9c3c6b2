"""auth.upstream, the verifier of upstream OIDC tokens: a fetch pinned to the checked address still verifies
TLS and sends Host for the issuer's name (on loopback), every cache keyed by an issuer stays bounded however
many distinct issuers unauthenticated callers name, and an over-long issuer is refused before any use."""

from __future__ import annotations

import asyncio
import datetime
import ssl
import threading
import time
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
from tests.helpers import new_key


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
