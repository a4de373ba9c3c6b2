"""Over-the-wire test fixtures: a real `platform-api serve` process per storage backend.

A test that takes `server` (or another fixture parametrized over `BACKENDS`) runs against SQLite and against
PostgreSQL (127.0.0.1:5432, a fresh database per session, dropped afterwards), except where the backend matrix
below says one is enough. PLATFORM_API_TEST_BACKENDS=sqlite limits the run. Tests isolate themselves by
creating their own organization (`org` fixture), not by restarting.

The backend matrix (tests/helpers/backends.py): what differs between the dialects lives in `store` and in the
SQL the domains own, so the tests of those (unit tests, ops/, the domain directories, ctl/) run on both. The
directories in `ONE_BACKEND_DIRS`, which test the API's surface (authentication, clients, the wire contract,
hardening) rather than storage, run on PostgreSQL only, measured to lose no line or branch of `store/` or of
any SQL-owning module (docs: Development). A test or file among them that reaches SQL that differs by dialect
says so with `@pytest.mark.both_backends` (or `pytestmark = pytest.mark.both_backends`); a new directory runs
on both until it is listed. PLATFORM_API_TEST_MATRIX=full runs every test on every backend; =rest runs only
what the matrix leaves out.

At its start a run checks what it needs (README: Development): its port range, docker-registry and skopeo when
it includes the registry tests; and drops the PostgreSQL databases that runs stopped midway left behind.
"""

from __future__ import annotations

import os
import ssl
import sys

# A run starts about 1,300 interpreters (servers, both CLIs, a few pytest runs). Where the environment forbids
# bytecode caches (PYTHONDONTWRITEBYTECODE, as container images set it), each compiled the package anew (about
# 0.2 s of CPU a start) and pytest rewrote every test module's asserts in each of its processes: the run writes
# its caches (__pycache__, ignored by git), for itself and the processes it starts. Before the imports below.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import (
    BACKENDS,
    PG_ADMIN,
    Receiver,
    Server,
    Upstream,
    backends,
    distribution,
    mk_group,
    pgruns,
    receiver,
    schedule,
    start_server,
    stop_server,
    unique,
)
from tests.helpers import browser as console_browser
from tests.helpers.server import ports_setting

RUN_LOCK = pytest.StashKey[pgruns.RunLock | None]()


def _shared_ssl_contexts() -> None:
    """Every httpx client a test process makes (the tests' own, and the Python client's in the in-process CLI
    runs) loaded the CA bundle into a new SSL context: 18 ms each, thousands of times in a run, for loopback
    servers spoken to in plain HTTP. The default context is made once per process (per CA setting of the
    environment, which httpx reads); any other `verify` or a client certificate is made as httpx makes it."""
    make = httpx._transports.default.create_ssl_context
    made: dict[tuple[str, str], ssl.SSLContext] = {}

    def shared(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is not True or cert is not None:
            return make(verify=verify, cert=cert, trust_env=trust_env)
        key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", "")) if trust_env else ("", "")
        if key not in made:
            made[key] = make(verify=True, cert=None, trust_env=trust_env)
        return made[key]

    httpx._transports.default.create_ssl_context = shared  # type: ignore[attr-defined]


_shared_ssl_contexts()


def pytest_configure(config: pytest.Config) -> None:
    try:
        ports_setting()
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture parameters: this order is final
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The backend matrix: drop the runs a one-backend test would make on its other backend (reported as
    deselected, as `-k` would); then the files longest first (tests/helpers/schedule.py)."""
    try:
        keep, drop = backends.split_items(items, Path(__file__).parent)
    except ValueError as e:
        raise pytest.UsageError(str(e)) from None
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    items[:] = schedule.longest_first(items, Path(__file__).parent)


def pytest_sessionstart(session: pytest.Session) -> None:
    """In the run's first process only (a pytest-xdist worker has `workerinput`), before any worker starts."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    reason = distribution.stop_reason(config.args, Path(__file__).parent) or console_browser.stop_reason(
        config.args, Path(__file__).parent
    )
    if reason:
        raise pytest.UsageError(reason)
    config.stash[RUN_LOCK] = pgruns.start_of_run(PG_ADMIN) if "postgres" in BACKENDS else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    lock = session.config.stash.get(RUN_LOCK, None)
    if lock is not None:
        lock.release()


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


@pytest.fixture(scope="session")
def _servers() -> Iterator[dict[str, Server]]:
    """One server per backend for the whole run of this process, started on first use, stopped at the end."""
    started: dict[str, Server] = {}
    yield started
    for s in started.values():
        stop_server(s)


@pytest.fixture(scope="module", params=BACKENDS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, _servers: dict[str, Server]
) -> Server:
    # Module-scoped over a session cache: a process that alternates backends from file to file (pytest-xdist
    # hands each process one file at a time) keeps its two servers instead of restarting one per switch.
    backend = request.param
    if backend not in _servers:
        _servers[backend] = start_server(backend, tmp_path_factory.mktemp(backend))
    return _servers[backend]


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
