"""The client side of a person's login at our server (docs/sign-in.md), for `platformctl auth
login` and any other tool: it imports nothing of the server (stdlib, httpx, cryptography only).

`browser_login` listens on a free loopback port, has the browser open `<server>/oauth?...&redirect=
http://127.0.0.1:<port>/callback&state=<random>`, and waits for the server's page to post the result there
(form-encoded `token`, `refresh_token`, `expiry`, or `error`, `error_description`; with this login's `state`,
else the post is ignored).

`headless_login` is for a machine without a browser: it makes a P-256 key pair, shows the `/oauth` URL
(with `headless_code` = its public key) for the person to open anywhere, and asks them for the confirmation
code the browser shows at the end. It reads the login's result at `/sts/headless_sessions` with that code and
a signature proving it holds the key; the result is sealed for that key and that code (ECDH + HKDF-SHA256 +
AES-256-GCM, the server's auth/headless.py), so only this process opens it, and only when the person typed
the code of their own login.

Both first ask the server whether it would start the login at all (`check_start`): a server without a login
provider refuses before a browser opens or a person is asked for anything (LoginRefused).
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
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from platform_api.client import errors

HEADLESS_INFO = b"platform-api headless login v1"
PROOF_CONTEXT = b"platform-api headless session read v1"
CALLBACK_PATH = "/callback"
DONE_PAGE = "Signed in. You may close this window and return to your terminal."
CONFIRM_PROMPT = "Type the confirmation code the browser shows at the end of the sign-in: "
MAX_FORM = 64 << 10


class LoginError(Exception):
    """The login did not give a token: refused by the server or the provider, or timed out."""


class LoginRefused(LoginError):
    """The server refused to start the login (before any browser): `code` is the google.rpc code of its answer
    (9 FAILED_PRECONDITION: no login provider; 5: no such identity provider; 3: a bad parameter), 0 if none."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


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


def check_start(server: str, params: dict[str, str], timeout: float = 30.0) -> None:
    """Ask the server whether it would start this login, before a browser is opened or a person waited for:
    `GET /oauth` with the login's own parameters answers a redirect (to the provider, or once to the
    server's public URL) when it would, and a google.rpc.Status when not (a server without a login provider,
    an unknown identity provider, a parameter refused): the browser would only have shown that JSON, and the
    CLI waited for ever. Nothing is kept by the server for an unfollowed redirect (the pending login is in
    the cookie it sets)."""
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as c:
            r = c.get(_oauth_url(server, params))
    except httpx.HTTPError as e:
        # The setting to change, as every connection error of the client says (errors.HTTP_SETTING).
        raise LoginRefused(f"cannot reach {server} ({type(e).__name__}: {e}); {errors.HTTP_SETTING}", 14) from None
    if r.is_redirect:
        return
    code, _, message = _refusal(r)
    raise LoginRefused(f"the server will not start a login: {message or r.reason_phrase} (HTTP {r.status_code})",
                       code)  # fmt: skip


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
    state = secrets.token_urlsafe(24)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            """The server's page posts the result here (form-encoded), with the `state` this login sent."""
            length = int(self.headers.get("content-length") or 0)
            if urlsplit(self.path).path != CALLBACK_PATH or got.is_set() or not 0 < length <= MAX_FORM:
                self.send_error(404)
                return
            q = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8", "replace")).items()}
            if not secrets.compare_digest(q.get("state", ""), state):
                self.send_error(400, "not the answer of this login")  # another page's post: keep waiting
                return
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
            self.send_header("cache-control", "no-store")
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
        "state": state,
        "create_refresh_token": "true" if create_refresh_token else "false",
        "idp_id": idp_id,
        "invite": invite_code,
        "identity": identity,
    }
    try:
        check_start(server, params)
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


def _open_sealed(
    private: ec.EllipticCurvePrivateKey, own_point: bytes, eph_point: bytes, sealed: bytes, confirmation: str
) -> bytes:
    peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), eph_point)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=HEADLESS_INFO).derive(
        private.exchange(ec.ECDH(), peer)
    )
    aad = own_point + eph_point + normalize_confirmation(confirmation).encode()
    return AESGCM(key).decrypt(sealed[:12], sealed[12:], aad)


def normalize_confirmation(typed: str) -> str:
    return "".join(c for c in typed.upper() if c not in " -")


def proof(private: ec.EllipticCurvePrivateKey, code: str, timestamp: int) -> str:
    """The signature that proves this process holds the key of `code` (r || s, base64url)."""
    message = PROOF_CONTEXT + b"\n" + code.encode() + b"\n" + str(timestamp).encode()
    r, s = decode_dss_signature(private.sign(message, ec.ECDSA(hashes.SHA256())))
    return base64.urlsafe_b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).rstrip(b"=").decode()


def _refusal(r: httpx.Response) -> tuple[int, str, str]:
    """(google.rpc code, the violated field if any, message) of an error answer."""
    try:
        body = r.json()
        details = body.get("details") or []
        fields = [v.get("field", "") for d in details for v in d.get("fieldViolations", [])]
        return int(body.get("code", 0)), (fields or [""])[0], str(body.get("message", ""))
    except (ValueError, AttributeError, TypeError):
        return 0, "", r.text[:200]


def headless_login(
    server: str,
    *,
    idp_id: str = "",
    invite_code: str = "",
    show: Callable[[str], object],
    confirm: Callable[[str], str],
    timeout: float = 600.0,
) -> LoginResult:
    """Sign in from a browser elsewhere: `show(url)` tells the person where to go; `confirm(prompt)` asks them
    for the confirmation code the browser shows at the end (asked again after a wrong one)."""
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    code = base64.urlsafe_b64encode(point).rstrip(b"=").decode()
    params = {"exit": "redirect", "headless_code": code, "create_refresh_token": "true", "idp_id": idp_id,
              "invite": invite_code}  # fmt: skip
    check_start(server, params)
    show(_oauth_url(server, params))
    deadline = time.monotonic() + timeout
    url = server.rstrip("/") + "/sts/headless_sessions"
    prompt = CONFIRM_PROMPT
    with httpx.Client(timeout=30, follow_redirects=False) as c:
        typed = confirm(prompt)
        while True:
            if time.monotonic() > deadline:
                raise LoginError(f"no login within {timeout:.0f} s")
            if not normalize_confirmation(typed):
                raise LoginError("no confirmation code given")
            now = int(time.time())
            query = {"code": code, "timestamp": str(now), "signature": proof(private, code, now), "confirmation": typed}
            r = c.get(url, params=query)
            if r.status_code == 200:
                break
            if r.status_code == 429:
                time.sleep(min(float(r.headers.get("retry-after", 2) or 2), 60.0))
                continue
            status, field, message = _refusal(r)
            if status == 5:  # NOT_FOUND: no login finished for this code (yet)
                typed = confirm("No sign-in has finished for this login yet. " + prompt)
            elif status == 3 and field == "confirmation":
                typed = confirm(f"{message[:200]}. {prompt}")
            else:
                raise LoginError(f"headless login failed: {r.status_code} {message}")
    body = r.json()
    try:
        eph, sealed = base64.b64decode(body["ecdhPublicKey"]), base64.b64decode(body["encryptedIdtoken"])
        answer = json.loads(_open_sealed(private, point, eph, sealed, typed))
    except InvalidTag:
        raise LoginError("the login's result was not sealed with this confirmation code") from None
    except (KeyError, ValueError, TypeError) as e:
        raise LoginError(f"headless login answer unusable: {e!r}") from None
    token = str(answer["token"])
    return LoginResult(token, str(answer.get("refreshToken", "")), _expiry(token))


def whoami(server: str, token: str) -> dict[str, Any]:
    """What the server says of `token` (WhoAmI, `GET /auth/v1/ok`): `subject`, `email`, ...; {} if it cannot."""
    try:
        r = httpx.get(server.rstrip("/") + "/auth/v1/ok", headers={"authorization": f"Bearer {token}"}, timeout=30)
        body = r.json() if r.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return {}
    return body if isinstance(body, dict) else {}
