"""The client side of a person's login at our server (README "Signing in (people)"), for `platformctl auth
login` and any other tool: it imports nothing of the server (stdlib, httpx, cryptography only).

`browser_login` listens on a free loopback port, has the browser open `<server>/oauth?...&redirect=
http://127.0.0.1:<port>/callback`, and waits for the server to send the browser back there with
`?token=…&refresh_token=…` (or `?error=…&error_description=…`).

`headless_login` is for a machine without a browser: it makes a P-256 key pair, shows the `/oauth` URL
(with `headless_code` = its public key) for the person to open anywhere, and polls
`/sts/headless_sessions?code=` until the server has the login's result, sealed for that key (ECDH +
HKDF-SHA256 + AES-256-GCM, the server's auth/headless.py) which only this process can open.
"""

from __future__ import annotations

import base64
import html
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

HEADLESS_INFO = b"platform-api headless login v1"
CALLBACK_PATH = "/callback"
DONE_PAGE = "Signed in. You may close this window and return to your terminal."


class LoginError(Exception):
    """The login did not give a token: refused by the server or the provider, or timed out."""


@dataclass(frozen=True)
class LoginResult:
    token: str
    refresh_token: str
    expiry: datetime | None


def _expiry(token: str) -> datetime | None:
    """The access token's `exp` (read, not verified: the server checks its own tokens)."""
    try:
        payload = token.split(".")[1]
        exp = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["exp"]
        return datetime.fromtimestamp(float(exp), UTC)
    except (IndexError, ValueError, KeyError, TypeError):
        return None


def _oauth_url(server: str, params: dict[str, str]) -> str:
    return server.rstrip("/") + "/oauth?" + urlencode({k: v for k, v in params.items() if v})


def browser_login(
    server: str,
    *,
    idp_id: str = "",
    invite_code: str = "",
    identity: str = "",
    create_refresh_token: bool = True,
    open_browser: Callable[[str], object],
    timeout: float = 300.0,
) -> LoginResult:
    """Sign in through the browser; the token our server issues for the person."""
    result: dict[str, str] = {}
    got = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path != CALLBACK_PATH or got.is_set():
                self.send_error(404)
                return
            q = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if not q.get("token") and not q.get("error"):
                self.send_error(400, "not a login callback")
                return
            result.update(q)
            got.set()
            text = DONE_PAGE if q.get("token") else "Sign-in failed: " + q.get("error_description", q["error"])
            body = f"<!doctype html><title>Sign-in</title><p>{html.escape(text)}</p>".encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    listener = HTTPServer(("127.0.0.1", 0), Handler)
    listener.timeout = 0.5
    port = listener.server_address[1]
    params = {
        "exit": "redirect",
        "redirect": f"http://127.0.0.1:{port}{CALLBACK_PATH}",
        "create_refresh_token": "true" if create_refresh_token else "false",
        "idp_id": idp_id,
        "invite": invite_code,
        "identity": identity,
    }
    try:
        open_browser(_oauth_url(server, params))
        deadline = time.monotonic() + timeout
        while not got.is_set():
            if time.monotonic() > deadline:
                raise LoginError(f"no login within {timeout:.0f} s")
            listener.handle_request()
    finally:
        listener.server_close()
    if not result.get("token"):
        raise LoginError(f"login refused: {result.get('error_description') or result.get('error')}")
    token = result["token"]
    return LoginResult(token, result.get("refresh_token", ""), _expiry(token))


def _open_sealed(private: ec.EllipticCurvePrivateKey, own_point: bytes, eph_point: bytes, sealed: bytes) -> bytes:
    peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), eph_point)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=HEADLESS_INFO).derive(
        private.exchange(ec.ECDH(), peer)
    )
    return AESGCM(key).decrypt(sealed[:12], sealed[12:], own_point + eph_point)


def headless_login(
    server: str,
    *,
    idp_id: str = "",
    invite_code: str = "",
    show: Callable[[str], object],
    poll_interval: float = 2.0,
    timeout: float = 600.0,
) -> LoginResult:
    """Sign in from a browser elsewhere: `show(url)` tells the person where to go; this polls for the result."""
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    code = base64.urlsafe_b64encode(point).rstrip(b"=").decode()
    params = {"exit": "redirect", "headless_code": code, "create_refresh_token": "true", "idp_id": idp_id,
              "invite": invite_code}  # fmt: skip
    show(_oauth_url(server, params))
    deadline = time.monotonic() + timeout
    url = server.rstrip("/") + "/sts/headless_sessions"
    with httpx.Client(timeout=30, follow_redirects=False) as c:
        while True:
            r = c.get(url, params={"code": code})
            if r.status_code == 200:
                break
            if r.status_code == 429:
                time.sleep(min(float(r.headers.get("retry-after", poll_interval) or poll_interval), 60.0))
            elif r.status_code != 404:
                raise LoginError(f"headless login failed: {r.status_code} {r.text[:200]}")
            if time.monotonic() > deadline:
                raise LoginError(f"no login within {timeout:.0f} s")
            time.sleep(poll_interval * (0.8 + 0.4 * secrets.randbelow(1000) / 1000))
    body = r.json()
    try:
        plain = _open_sealed(
            private, point, base64.b64decode(body["ecdhPublicKey"]), base64.b64decode(body["encryptedIdtoken"])
        )
        answer = json.loads(plain)
    except (KeyError, ValueError, TypeError) as e:
        raise LoginError(f"headless login answer unusable: {e!r}") from None
    token = str(answer["token"])
    return LoginResult(token, str(answer.get("refreshToken", "")), _expiry(token))
