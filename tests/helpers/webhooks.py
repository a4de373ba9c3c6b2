"""A real webhook receiver on loopback for the events tests, verifying what a customer's receiver would:
the bearer JWT against the server's JWKS (aud `customer`, sub `webhook:<group>`, `webhook.digest` of the
exact body) and the Standard Webhooks signature with the subscription's secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import jwt

from tests.helpers.server import Server, start_server

# Retries in milliseconds rather than minutes; the last attempt of a round waits 24 h * scale = 4.3 s.
EVENT_ENV = {
    "PLATFORM_API_DELIVERY_BACKOFF_SCALE": "0.00005",
    "PLATFORM_API_DELIVERY_MAX_ATTEMPTS": "5",
    "PLATFORM_API_DELIVERY_POLL_SECONDS": "0.5",
    "PLATFORM_API_DELIVERY_TIMEOUT": "3",
}

# (status, extra headers) for the n-th request (1-based) to a path.
Behaviour = Callable[[int], tuple[int, dict[str, str]]]


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    at: float

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def ce(self, name: str) -> str:
        return self.headers.get(f"ce-{name}", "")


@dataclass
class Receiver:
    port: int = 0
    requests: list[Received] = field(default_factory=list)
    behaviours: dict[str, Behaviour] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.path == path]

    def wait(self, path: str, n: int, timeout: float = 20.0) -> list[Received]:
        """The first `n` requests to `path`, waiting for them."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.at(path)
            if len(got) >= n:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{path}: {len(got)} of {n} requests after {timeout}s: {[summary(r) for r in got]}"
                )
            time.sleep(0.02)

    def answer(self, path: str) -> tuple[int, dict[str, str]]:
        with self.lock:
            n = self.counts[path] = self.counts.get(path, 0) + 1
        behaviour = self.behaviours.get(path)
        return behaviour(n) if behaviour else (200, {})


def summary(r: Received) -> str:
    return f"{r.ce('type')} {r.ce('subject')}"


def fails_first(n: int, status: int = 500, headers: dict[str, str] | None = None) -> Behaviour:
    return lambda i: (status, headers or {}) if i <= n else (200, {})


@contextmanager
def receiver() -> Iterator[Receiver]:
    rec = Receiver()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            got = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.time())
            with rec.lock:
                rec.requests.append(got)
            status, extra = rec.answer(self.path)
            payload = b"{}"
            self.send_response(status)
            for k, v in extra.items():
                self.send_header(k, v)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    rec.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def event_env(env: dict[str, str] | None = None) -> Iterator[None]:
    """The events tests' fast retries (and `env`) in the environment of the servers started meanwhile."""
    saved = {k: os.environ.get(k) for k in {**EVENT_ENV, **(env or {})}}
    os.environ.update({**EVENT_ENV, **(env or {})})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start_events_server(backend: str, tmp: Path, *extra: str, database_url: str | None = None,
                        env: dict[str, str] | None = None, loopback: bool = True) -> Server:  # fmt: skip
    """A server that may deliver to loopback sinks (unless `loopback` is false), with fast retries."""
    flags = ("--insecure-allow-loopback",) if loopback else ()
    with event_env(env):
        return start_server(backend, tmp, *flags, *extra, database_url=database_url)


class Verifier:
    """Checks deliveries the way a receiver should, with the server's published keys."""

    def __init__(self, base_url: str) -> None:
        discovery = httpx.get(base_url + "/.well-known/openid-configuration").json()
        self.issuer = discovery["issuer"]
        self.jwks = jwt.PyJWKSet.from_dict(httpx.get(discovery["jwks_uri"].replace(self.issuer, base_url)).json())

    def verify(self, r: Received, group: str, secret: str) -> dict[str, Any]:
        """The verified JWT claims; AssertionError on any mismatch."""
        scheme, _, token = r.headers["authorization"].partition(" ")
        assert scheme == "Bearer"
        kid = jwt.get_unverified_header(token)["kid"]
        key = next(k for k in self.jwks.keys if k.key_id == kid)
        claims: dict[str, Any] = jwt.decode(
            token, key.key, algorithms=["RS256"], audience="customer", issuer=self.issuer,
            options={"require": ["exp", "iat", "sub", "aud", "iss"]},
        )  # fmt: skip
        assert claims["sub"] == f"webhook:{group}", claims
        assert claims["webhook.digest"] == "sha256:" + hashlib.sha256(r.body).hexdigest()
        verify_standard_webhook(r, secret)
        return claims


def verify_standard_webhook(r: Received, secret: str, tolerance: int = 300) -> None:
    """The Standard Webhooks verification (standardwebhooks.com): HMAC-SHA256 over id.timestamp.body."""
    msg_id, ts = r.headers["webhook-id"], r.headers["webhook-timestamp"]
    assert abs(time.time() - int(ts)) <= tolerance
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + r.body, hashlib.sha256).digest()).decode()
    signatures = [s.partition(",")[2] for s in r.headers["webhook-signature"].split() if s.startswith("v1,")]
    assert any(hmac.compare_digest(expected, s) for s in signatures), "webhook-signature mismatch"
