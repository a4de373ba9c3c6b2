"""Over-the-wire test fixtures: a real `platform-api serve` process per storage backend.

Every test that takes `server` runs against SQLite and against PostgreSQL (127.0.0.1:5432, a fresh
database per session, dropped afterwards). PLATFORM_API_TEST_BACKENDS=sqlite limits the run.
Tests isolate themselves by creating their own organization (`org` fixture), not by restarting.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import BACKENDS, Receiver, Server, Upstream, mk_group, receiver, start_server, stop_server, unique


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    """A real OIDC issuer on loopback (discovery, JWKS, tokens it signs)."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="module")
def rx() -> Iterator[Receiver]:
    """A real webhook receiver on loopback (its sinks, the deliveries it got)."""
    with receiver() as r:
        yield r


@pytest.fixture(scope="session", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp(request.param))
    yield s
    stop_server(s)


@pytest.fixture
def http(server: Server) -> httpx.Client:
    """Authenticated as the bootstrap owner."""
    return server.http


@pytest.fixture
def anon(server: Server) -> Iterator[httpx.Client]:
    """No Authorization header."""
    with server.client(None) as c:
        yield c


@pytest.fixture
def org(http: httpx.Client) -> str:
    """A fresh root organization for one test."""
    return str(mk_group(http, "", unique("org"), description="test org")["uid"])
