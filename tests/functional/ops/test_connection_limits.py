"""The direct listeners' connection limits, over the wire: idle connections are closed on the HTTP and gRPC
ports, a gRPC flood cannot take the descriptors the HTTP port needs, and `--host` applies to gRPC too.
(`serve --port`'s per-client cap and idle timeout: test_one_port.py and tests/unit/api/test_front_limits.py.)
"""

from __future__ import annotations

import contextlib
import resource
import socket
import time
from collections.abc import Iterator

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.helpers import BACKENDS, Server, start_server, stop_server

IDLE = 1.0  # the test-sized idle timeout (seconds)
BOUND = 12.0  # closed well within this, whatever the machine's load; the unfixed server kept them 30 s or more
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + an empty SETTINGS


def _port(target: str) -> int:
    return int(target.rsplit(":", 1)[1])


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed `sock` (EOF or reset) within `seconds`, reading whatever it sent before."""
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """SQLite is enough (no storage involved); gRPC's host overridden to every IPv4 address."""
    if "sqlite" not in BACKENDS:
        pytest.skip("sqlite not selected")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PLATFORM_API_IDLE_TIMEOUT", str(IDLE))
        mp.setenv("PLATFORM_API_GRPC_HOST", "0.0.0.0")
        s = start_server("sqlite", tmp_path_factory.mktemp("idle"), "--no-dispatcher")
    yield s
    stop_server(s)


def test_http_connections_idle_past_the_timeout_are_closed(idle_server: Server) -> None:
    port = int(idle_server.base_url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as silent:  # never sends a request
        assert _closed_within(silent, BOUND)
    with socket.create_connection(("127.0.0.1", port)) as kept:  # one request, then keep-alive silence
        kept.sendall(b"GET /ping/v2/ping HTTP/1.1\r\nHost: x\r\n\r\n")
        kept.settimeout(BOUND)
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        assert _closed_within(kept, BOUND)


def test_grpc_connections_without_calls_past_the_timeout_are_closed(idle_server: Server) -> None:
    port = _port(idle_server.grpc_target)
    with socket.create_connection(("127.0.0.1", port)) as silent:
        assert _closed_within(silent, BOUND)
    with socket.create_connection(("127.0.0.1", port)) as h2:  # an HTTP/2 connection that makes no call
        h2.sendall(PREFACE)
        assert _closed_within(h2, BOUND)
    # Calls still work (the channel reconnects after the server closed its idle connection).
    out = health_pb2_grpc.HealthStub(idle_server.channel).Check(health_pb2.HealthCheckRequest(), timeout=BOUND)
    assert out.status == health_pb2.HealthCheckResponse.SERVING


def test_grpc_listens_where_host_says(server: Server) -> None:
    """The suite's servers run with `--host 127.0.0.1` and no PLATFORM_API_GRPC_HOST: gRPC listens there only."""
    port = _port(server.grpc_target)
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    for other in ("127.0.0.2", "::1"):
        with pytest.raises(OSError):
            socket.create_connection((other, port), timeout=5).close()


def test_grpc_host_setting_still_overrides(idle_server: Server) -> None:
    socket.create_connection(("127.0.0.2", _port(idle_server.grpc_target)), timeout=5).close()


@pytest.fixture(scope="module", params=BACKENDS)
def small(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server allowed 512 open files (soft and hard limit)."""
    s = start_server(request.param, tmp_path_factory.mktemp("fds-" + request.param), open_files=512)
    yield s
    stop_server(s)


def test_a_grpc_flood_leaves_the_http_port_answering(small: Server) -> None:
    """One client holds more idle HTTP/2 connections to the gRPC port than the worker has descriptors: gRPC
    keeps only its share of them, and HTTP (storage included) still answers."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1024:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    port = _port(small.grpc_target)
    flood: list[socket.socket] = []
    try:
        for _ in range(700):
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.settimeout(5)
            with contextlib.suppress(OSError):  # a connection the server refused or the queue dropped
                s.connect(("127.0.0.1", port))
                s.sendall(PREFACE)
            flood.append(s)
        time.sleep(1)  # let the server accept what it will
        assert small.http.get("/ping/v2/ping", timeout=BOUND).status_code == 200
        assert small.http.get("/readyz", timeout=BOUND).status_code == 200
        r = small.http.get(f"/iam/v2/groups/{small.owner_org}", timeout=BOUND)
        assert r.status_code == 200 and r.json()["uid"] == small.owner_org
    finally:
        for s in flood:
            s.close()
