"""Where the client's token comes from: explicit, PLATFORM_API_TOKEN, the login cache refreshed with its
refresh token, the exchange of an upstream token file."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from platform_api.client import Client, Credentials, Unauthenticated
from platform_api.client import auth as client_auth
from tests.functional.ctl.cli import Ctl
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, Upstream, start_server, stop_server, unique


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    # A trusted loopback issuer for the token exchange (whose routes count as anonymous: not limited here).
    s = start_server(request.param, tmp_path_factory.mktemp("client-auth"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer, "--anon-rate", "0")  # fmt: skip
    yield s
    stop_server(s)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("PLATFORM_API_", "ACTIONS_ID_TOKEN")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("PLATFORM_API_KUBERNETES_TOKEN_FILE", str(tmp_path / "no-such-token"))


def org_of(srv: Server) -> str:
    r = srv.http.post("/iam/v2/groups/", json={"name": unique("org")})
    assert r.status_code == 200, r.text
    return str(r.json()["uid"])


def workload(srv: Server, upstream: Upstream, org: str) -> tuple[str, str]:
    """An identity in `org` (viewer there) accepting upstream tokens of subject `sub`: (uid, upstream token)."""
    sub = unique("ci")
    body = {"name": unique("bot"), "claimMatch": {"issuer": upstream.issuer, "subject": sub}}
    r = srv.http.post(f"/iam/v2/identities/{org}", json=body)
    assert r.status_code == 200, r.text
    uid = r.json()["uid"]
    r = srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS["viewer"]})
    assert r.status_code == 200, r.text
    return uid, upstream.token(sub, "localhost")


def client(srv: Server, transport: str = "grpc", **kw: object) -> Client:
    return Client(srv.base_url, grpc=srv.grpc_target, transport=transport, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_explicit_then_env_token(srv: Server, monkeypatch: pytest.MonkeyPatch, transport: str) -> None:
    org = org_of(srv)
    with client(srv, transport) as c:
        assert c.auth.source() == "none"
        with pytest.raises(Unauthenticated):
            c.iam.get_group(org)
    monkeypatch.setenv("PLATFORM_API_TOKEN", srv.token)
    with client(srv, transport) as c:
        assert c.auth.source() == "env" and c.iam.get_group(org).uid == org
    # An explicit token wins over the environment's, even a bad one.
    with client(srv, transport, token="bad", retries=0) as c, pytest.raises(Unauthenticated):
        c.iam.get_group(org)


def test_identity_token_file_is_exchanged(srv: Server, upstream: Upstream, monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:  # fmt: skip
    org = org_of(srv)
    uid, upstream_token = workload(srv, upstream, org)
    (tmp_path / "oidc").write_text(upstream_token + "\n")
    monkeypatch.setenv("PLATFORM_API_IDENTITY_TOKEN_FILE", str(tmp_path / "oidc"))
    monkeypatch.setenv("PLATFORM_API_IDENTITY", uid)
    with client(srv) as c:
        assert c.auth.source() == "exchange"
        assert c.iam.get_group(org).uid == org
        creds = c.auth.credentials()
        # A workload's exchange: an access token only (the upstream token is exchanged again when it nears expiry).
        assert creds is not None and not creds.refresh_token and client_auth.jwt_expiry(creds.token)
        # The same exchanged token serves the next calls until it nears expiry.
        c.iam.get_group(org)
        assert c.auth.credentials() == creds
    # A token the exchange refuses (another subject) is UNAUTHENTICATED, not silently anonymous.
    (tmp_path / "oidc").write_text(upstream.token("someone-else", "localhost"))
    with client(srv, retries=0) as c, pytest.raises(Unauthenticated):
        c.iam.get_group(org)


def _refresh_token(srv: Server, upstream: Upstream, org: str) -> str:
    """A person's refresh token (a trusted issuer's user, viewer of `org`), as a login leaves one."""
    sub = unique("person")
    r = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    body = {"identityUid": r.json()["uid"], "roleUid": BUILTIN_ROLE_UIDS["viewer"]}
    assert srv.http.post(f"/iam/v2/roleBindings/{org}", json=body).status_code == 200
    upstream_token = upstream.token(sub, "localhost")
    with client(srv) as c:
        return client_auth.exchange(c._sts_http, upstream_token, "", "").refresh_token


@pytest.mark.parametrize("why", ["expired", "refused"])
def test_login_cache_is_refreshed(srv: Server, upstream: Upstream, tmp_path: Path, why: str) -> None:
    """A cached login near expiry (or one the server refuses) is renewed with its refresh token, and the
    rotated pair is written back, readable by the owner only."""
    org = org_of(srv)
    refresh_token = _refresh_token(srv, upstream, org)
    expiry = time.time() - 5 if why == "expired" else time.time() + 3000
    client_auth.save_login(srv.base_url, Credentials("stale-token", refresh_token, expiry))
    with client(srv) as c:
        assert c.auth.source() == "login"
        assert c.iam.get_group(org).uid == org
    cached = client_auth.load_login(srv.base_url)
    assert cached is not None and cached.token != "stale-token" and cached.refresh_token not in ("", refresh_token)
    assert cached.fresh()
    path = client_auth.cache_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    # Without a refresh token the stale one is sent as it is, and refused.
    client_auth.save_login(srv.base_url, Credentials("stale-token", "", time.time() - 5))
    with client(srv, retries=0) as c, pytest.raises(Unauthenticated):
        c.iam.get_group(org)
    assert client_auth.forget_login(srv.base_url) and client_auth.load_login(srv.base_url) is None


def test_platformctl_api_renews_a_refused_login_as_the_client_does(srv: Server, upstream: Upstream,
                                                                   tmp_path: Path) -> None:  # fmt: skip
    """`platformctl api`'s raw requests go through Client.authorized: a cached token the server refuses is
    renewed with the refresh token once, and the request sent again."""
    org = org_of(srv)
    client_auth.save_login(srv.base_url, Credentials("stale-token", _refresh_token(srv, upstream, org),
                                                     time.time() + 3000))  # fmt: skip
    ctl = Ctl(srv, tmp_path / "config", None, "http")
    r = ctl("api", "GET", f"/iam/v2/groups/{org}")
    assert r.code == 0 and json.loads(r.out)["uid"] == org, r
    cached = client_auth.load_login(srv.base_url)
    assert cached is not None and cached.token != "stale-token"


class _GitHubTokenService:
    """GitHub Actions' ID token endpoint as a runner sees it: GET ?audience=... with its bearer."""

    def __init__(self, token: str) -> None:
        self.asked: list[tuple[str, str]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query)
                service.asked.append((self.headers.get("authorization", ""), query.get("audience", [""])[0]))
                ok = self.headers.get("authorization") == "bearer runner-secret"
                data = json.dumps({"value": token} if ok else {}).encode()
                self.send_response(200 if ok else 403)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/token?api-version=2.0"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("source", ["github", "kubernetes"])
def test_ci_and_cluster_tokens_are_exchanged(srv: Server, upstream: Upstream, monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path, source: str) -> None:  # fmt: skip
    org = org_of(srv)
    uid, upstream_token = workload(srv, upstream, org)
    monkeypatch.setenv("PLATFORM_API_IDENTITY", uid)
    gh = _GitHubTokenService(upstream_token)
    try:
        if source == "github":
            monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", gh.url)
            monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "runner-secret")
        else:
            (tmp_path / "sa-token").write_text(upstream_token)
            monkeypatch.setenv("PLATFORM_API_KUBERNETES_TOKEN_FILE", str(tmp_path / "sa-token"))
        with client(srv) as c:
            assert c.auth.source() == "exchange" and c.iam.get_group(org).uid == org
        if source == "github":
            # Asked with the runner's bearer, for the server's host name (what our issuer accepts by default).
            assert gh.asked == [("bearer runner-secret", "127.0.0.1")]
            monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "wrong")
            with client(srv, retries=0) as c, pytest.raises(Unauthenticated):
                c.iam.get_group(org)
    finally:
        gh.close()
