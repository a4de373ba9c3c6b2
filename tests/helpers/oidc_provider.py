"""A small OIDC provider on loopback, for login tests and the README's demo: discovery, an authorization
endpoint that approves at once (the user named by `login_hint`, else `provider.user`), a token endpoint
(client id and secret, PKCE S256 verifier, single-use codes bound to their redirect URI), and the JWKS.
Users and their groups are kept in memory.

`complete(url)` plays the browser: it follows our `/oauth` redirect to the provider and back to our callback
(carrying the pending login's cookie), and returns where our server delivers the result (the client's loopback
callback, by a form post; a console page, in the fragment), without delivering it unless asked.

Run alone (docs/sign-in.md, "A demo on one machine"):
    python -m tests.helpers.oidc_provider --port 8900 --client-id demo --user alice:alice@example.com:admins
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import jwt

from tests.helpers.oidc import new_key
from tests.helpers.server import Server, start_server, stop_server


@dataclass
class User:
    sub: str
    email: str = ""
    email_verified: bool = True
    groups: list[str] = field(default_factory=list)
    name: str = ""


@dataclass
class _Grant:
    client_id: str
    redirect_uri: str
    challenge: str
    nonce: str
    user: User


class Provider:
    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self.key, self.jwk = new_key()
        self.clients: dict[str, str] = {}  # client id -> secret ("" for a public client: PKCE alone)
        self.users: dict[str, User] = {}
        self.user = ""  # who the authorization endpoint approves when no login_hint names someone
        # Claims put into (or, with None, taken out of) the next ID tokens: how tests forge a wrong nonce,
        # another audience, and so on.
        self.tamper: dict[str, Any] = {}
        self.token_requests: list[dict[str, list[str]]] = []
        self._codes: dict[str, _Grant] = {}
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider._get(self)

            def do_POST(self) -> None:
                provider._post(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.issuer = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    # ------------------------------------------------------------------ setup

    def add_client(self, client_id: str, secret: str = "") -> None:
        self.clients[client_id] = secret

    def add_user(self, name: str, email: str = "", groups: list[str] | None = None) -> User:
        user = User(sub="sub-" + name, email=email or f"{name}@example.com", groups=list(groups or []), name=name)
        self.users[name] = user
        return user

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ HTTP

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: Any = None, location: str = "") -> None:
        data = json.dumps(body).encode() if body is not None else b""
        h.send_response(status)
        if location:
            h.send_header("location", location)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/.well-known/openid-configuration":
            self._send(h, 200, {
                "issuer": self.issuer, "authorization_endpoint": self.issuer + "/authorize",
                "token_endpoint": self.issuer + "/token", "jwks_uri": self.issuer + "/jwks",
                "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            })  # fmt: skip
        elif parts.path == "/jwks":
            self._send(h, 200, {"keys": [self.jwk]})
        elif parts.path == "/authorize":
            self._authorize(h, q)
        else:
            self._send(h, 404, {"error": "not_found"})

    def _authorize(self, h: BaseHTTPRequestHandler, q: dict[str, str]) -> None:
        client, redirect = q.get("client_id", ""), q.get("redirect_uri", "")
        if client not in self.clients or not redirect:
            self._send(h, 400, {"error": "unauthorized_client"})
            return
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            self._send(h, 302, location=_add(redirect, error="invalid_request", state=q.get("state", "")))
            return
        user = self.users.get(q.get("login_hint") or self.user)
        if user is None:
            self._send(h, 302, location=_add(redirect, error="access_denied", state=q.get("state", "")))
            return
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = _Grant(client, redirect, q["code_challenge"], q.get("nonce", ""), user)
        self._send(h, 302, location=_add(redirect, code=code, state=q.get("state", "")))

    def _post(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("content-length") or 0)
        form = parse_qs(h.rfile.read(length).decode())
        self.token_requests.append(form)
        f = {k: v[0] for k, v in form.items()}
        if urlsplit(h.path).path != "/token" or f.get("grant_type") != "authorization_code":
            self._send(h, 400, {"error": "unsupported_grant_type"})
            return
        client, secret = f.get("client_id", ""), f.get("client_secret", "")
        auth = h.headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            pair = base64.b64decode(auth[6:]).decode()
            client, _, secret = pair.partition(":")
        if client not in self.clients or not secrets.compare_digest(self.clients[client], secret):
            self._send(h, 401, {"error": "invalid_client"})
            return
        with self._lock:
            grant = self._codes.pop(f.get("code", ""), None)  # single use
        if grant is None or grant.client_id != client or grant.redirect_uri != f.get("redirect_uri"):
            self._send(h, 400, {"error": "invalid_grant"})
            return
        verifier = f.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if not secrets.compare_digest(challenge, grant.challenge):
            self._send(h, 400, {"error": "invalid_grant", "error_description": "PKCE verifier mismatch"})
            return
        self._send(h, 200, {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 300,
                            "id_token": self.id_token(grant.user, client, grant.nonce)})  # fmt: skip

    def id_token(self, user: User, client_id: str, nonce: str) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer, "sub": user.sub, "aud": client_id, "iat": now, "exp": now + 300, "nonce": nonce,
            "email": user.email, "email_verified": user.email_verified, "groups": user.groups, "name": user.name,
        }  # fmt: skip
        for k, v in self.tamper.items():
            if v is None:
                claims.pop(k, None)
            else:
                claims[k] = v
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.jwk["kid"]})


def _add(url: str, **params: str) -> str:
    return url + ("&" if urlsplit(url).query else "?") + urlencode(params)


class _Form(HTMLParser):
    """The form of our callback's page that posts a login's result to a loopback callback."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method") == "post":
            self.action = a.get("action", "")
        elif tag == "input" and a.get("type") == "hidden":
            self.fields[a.get("name", "")] = a.get("value", "")


def posted_form(r: httpx.Response) -> tuple[str, dict[str, str]]:
    """(action, fields) of the auto-submitted form page our callback answers for a loopback callback."""
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), (r.status_code, r.text)
    form = _Form()
    form.feed(r.text)
    assert form.action, r.text
    return form.action, form.fields


def delivered(r: httpx.Response) -> str:
    """Where our callback's answer `r` delivers the login's result, as `complete` returns it."""
    if r.status_code == 302:  # a console origin: the result in the fragment
        return str(r.headers["location"])
    action, fields = posted_form(r)
    return action + "?" + urlencode(fields)


def to_provider(c: httpx.Client, url: str) -> httpx.Response:
    """GET our `/oauth` URL as a browser does: when it is not at our public URL (127.0.0.1 for localhost), the
    server sends it there first (where the pending login's cookie must live). The answer that sends the
    browser to the provider (or refuses)."""
    r = c.get(url)
    if r.status_code == 302 and urlsplit(r.headers["location"]).path == "/oauth":
        r = c.get(r.headers["location"])
    return r


def complete(url: str, user: str = "", follow_final: bool = False, client: httpx.Client | None = None) -> str:
    """Play the browser from our `/oauth` URL: to the provider (as `user`, if given), back to our callback
    (with the cookie our /oauth set: one client keeps it), and return where our server sends the login's
    result: a console page's URL with the result in its fragment, or, for a loopback callback, the callback
    and the fields the page posts to it written as `<callback>?<fields>` (the server never puts them in a
    URL; `posted_form` reads the real page). A step that answers otherwise raises AssertionError carrying
    its status and body. With `follow_final`, the result is delivered too (a loopback callback waiting)."""
    c = client or httpx.Client(timeout=30, follow_redirects=False)
    try:
        r = to_provider(c, url)
        assert r.status_code == 302, (r.status_code, r.text)
        to_idp = r.headers["location"]
        if user:
            to_idp = _add(to_idp, login_hint=user)
        r = c.get(to_idp)
        assert r.status_code == 302, (r.status_code, r.text)
        r = c.get(r.headers["location"])  # our callback
        final = delivered(r)
        if follow_final and r.status_code == 302:
            c.get(final.split("#")[0])
        elif follow_final:
            action, fields = posted_form(r)
            c.post(action, data=fields)
        return final
    finally:
        if client is None:
            c.close()


@contextmanager
def login_server(
    backend: str, tmp: Path, provider: Provider, client_id: str, *extra: str, secret: str = ""
) -> Iterator[Server]:
    """A server whose login provider (`--login-issuer`) is `provider`, as its client `client_id` (loopback
    issuers allowed; a confidential client when `secret` is given, read from a file in `tmp` as an operator
    would keep it), with the `extra` flags of `serve`. The token exchange's rate limit is off unless `extra`
    sets it: a file's tests log in from one address faster than its default rate (the flake of 429s)."""
    if secret:
        (tmp / "login-client-secret").write_text(secret + "\n")
        extra = ("--login-client-secret-file", str(tmp / "login-client-secret"), *extra)
    s = start_server(backend, tmp, "--insecure-allow-loopback", "--login-issuer", provider.issuer,
                     "--login-client-id", client_id, "--sts-rate", "0", *extra)  # fmt: skip
    try:
        yield s
    finally:
        stop_server(s)


def callback_params(url: str) -> dict[str, str]:
    """The login's result (or error) in what `complete` returns: the fragment of a console page's URL, else
    the fields posted to a loopback callback."""
    parts = urlsplit(url)
    return {k: v[0] for k, v in parse_qs(parts.fragment or parts.query).items()}


def main() -> None:
    p = argparse.ArgumentParser(description="A demo OIDC provider on loopback that approves every login at once.")
    p.add_argument("--port", type=int, default=8900)
    p.add_argument("--client-id", default="demo")
    p.add_argument("--client-secret", default="", help="none: a public client (PKCE alone)")
    p.add_argument("--user", action="append", default=[], help="name:email:group1,group2 (repeatable; the first"
                   " is approved unless the login carries login_hint)")  # fmt: skip
    args = p.parse_args()
    provider = Provider(args.port)
    provider.add_client(args.client_id, args.client_secret)
    for spec in args.user or ["alice:alice@example.com:"]:
        name, email, groups = [*spec.split(":"), "", ""][:3]
        provider.add_user(name, email, [g for g in groups.split(",") if g])
        provider.user = provider.user or name
    print(f"issuer {provider.issuer}  client {args.client_id}  users {', '.join(provider.users)}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        provider.close()


if __name__ == "__main__":
    main()
