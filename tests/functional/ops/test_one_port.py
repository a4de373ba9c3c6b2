"""`serve --port`: one public port for HTTP/1.1 JSON and gRPC (api/front.py), over the wire (SQLite).

The front splices each connection to Granian or to grpc.aio on its first bytes; these tests use real
clients (httpx, grpcio) and raw sockets on loopback, against a real `platform-api serve` process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from platform_api.client import Client
from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from platform_api.gen.chainguard.platform.oidc import oidc_pb2, oidc_pb2_grpc
from tests.helpers import Upstream, free_port, wait_ready

# The sniff timeout of the server that tests it. The others keep the default (10 s): a client on a loaded
# machine can take over a second between its connect and its first bytes (the 300 concurrent requests of
# test_many_connections_of_both_kinds_at_once did, and the front rightly cut them: "server disconnected").
SNIFF_TIMEOUT = 1.0
TIMEOUT = 15


@dataclass
class Front:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    database_url: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start(tmp: Path, *extra: str, env: dict[str, str] | None = None) -> Front:
    port = free_port()
    database_url = f"sqlite:///{tmp / 'front.db'}"
    log_path = tmp / f"serve-{port}.log"
    env = {**os.environ, "PLATFORM_API_LOG_LEVEL": "warning", **(env or {})}
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--database", database_url, "--no-dispatcher", *extra]  # fmt: skip
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    f = Front(port, proc, log_path, database_url)
    wait_ready(proc, f.url, f"127.0.0.1:{port}", log_path)
    return f


def stop(f: Front, sig: int = signal.SIGTERM) -> int:
    f.process.send_signal(sig)
    try:
        return f.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        f.process.kill()
        raise


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    # One client loads the front here: the anonymous routes' per-client limit would refuse most of the 300
    # concurrent pings of test_many_connections_of_both_kinds_at_once.
    f = start(tmp_path_factory.mktemp("front"), "--anon-rate", "0")
    yield f
    if f.process.poll() is None:
        stop(f)


def _closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closed `sock` (reads EOF or a reset); fails if not within `seconds`."""
    t0 = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - t0


def test_http_and_grpc_on_one_port(front: Front) -> None:
    r = httpx.get(front.url + "/ping/v2/ping", timeout=TIMEOUT)
    assert r.status_code == 200 and r.json() == {"response": "pong"}
    assert r.http_version == "HTTP/1.1"
    # The issuer (and the OpenAPI server) is the public port's URL.
    assert httpx.get(front.url + "/.well-known/openid-configuration").json()["issuer"] == (
        f"http://localhost:{front.port}"
    )
    with grpc.insecure_channel(f"127.0.0.1:{front.port}") as ch:
        out = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
        assert out.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        answers = list(
            stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=TIMEOUT)
        )
        names = {s.name for s in answers[0].list_services_response.service}
        assert "grpc.health.v1.Health" in names
        assert any(n.endswith("registry.v2.ReposService") for n in names), names


def test_the_client_finds_grpc_on_the_one_port(front: Front, monkeypatch: pytest.MonkeyPatch) -> None:
    """`/.well-known/platform-api` says gRPC shares the port: the client, given only the URL, dials it there
    (not on the internal listener's loopback port, which a client elsewhere could not reach)."""
    monkeypatch.delenv("PLATFORM_API_GRPC", raising=False)
    assert httpx.get(front.url + "/.well-known/platform-api").json() == {
        "grpc": {"port": front.port, "sharesHttpPort": True}
    }
    with Client(front.url, transport="grpc", retries=0, use_login_cache=False) as c:
        assert c.ping.ping().response == "pong"
        assert c.grpc_target == f"127.0.0.1:{front.port}"


def test_one_line_says_what_listens_where(front: Front) -> None:
    lines = [ln for ln in front.log_path.read_text().splitlines() if ln.startswith("platform-api: port ")]
    assert len(lines) == 1, front.log_path.read_text()
    assert f"127.0.0.1:{front.port} (HTTP/1.1 to HTTP 127.0.0.1:" in lines[0]
    assert "HTTP/2 prior knowledge to gRPC 127.0.0.1:" in lines[0]


def test_silent_or_stalled_start_is_closed_after_the_sniff_timeout(tmp_path: Path) -> None:
    f = start(tmp_path, "--anon-rate", "0", env={"PLATFORM_API_FRONT_SNIFF_TIMEOUT": str(SNIFF_TIMEOUT)})
    try:
        for first in (b"", b"P", b"PRI * HTTP/2.0\r\n"):  # nothing, or a prefix of the preface, then silence
            with socket.create_connection(("127.0.0.1", f.port)) as s:
                s.sendall(first)
                waited = _closed_within(s, SNIFF_TIMEOUT + 5)
                assert SNIFF_TIMEOUT - 0.2 < waited < SNIFF_TIMEOUT + 3, (first, waited)
        # The front still serves afterwards.
        assert httpx.get(f.url + "/ping/v2/ping", timeout=TIMEOUT).status_code == 200
    finally:
        assert stop(f) == 0


def test_bytes_trickled_one_at_a_time_still_decide(front: Front) -> None:
    request = b"GET /ping/v2/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", front.port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(request)):
            s.sendall(request[i : i + 1])
            time.sleep(0.002)
        s.settimeout(TIMEOUT)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200") and data.endswith(b'{"response":"pong"}'), data


def test_half_close(front: Front) -> None:
    """An EOF crosses the front, the other direction stays open, and the connection ends when both ends did.

    (Granian itself drops a request whose client shut its sending side before Granian read it, directly
    as through the front; so the EOF here follows the request by a moment.)"""
    with socket.create_connection(("127.0.0.1", front.port)) as s:
        s.sendall(b"GET /ping/v2/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        time.sleep(0.3)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(TIMEOUT)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200") and data.endswith(b'{"response":"pong"}'), data
    # Keep-alive: the answer arrives, then the client's EOF makes Granian close, and the front with it.
    with socket.create_connection(("127.0.0.1", front.port)) as s:
        s.sendall(b"GET /ping/v2/ping HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(TIMEOUT)
        data = b""
        while not data.endswith(b'{"response":"pong"}'):
            data += s.recv(65536)
        s.shutdown(socket.SHUT_WR)
        assert _closed_within(s, 5) < 5


def test_large_responses_arrive_intact_with_a_slow_reader(front: Front) -> None:
    """Pipelined requests for /openapi.json (about 180 KB each, 7 MB in all) while the client does not read:
    the front must stop reading Granian (back-pressure) and lose nothing."""
    doc = httpx.get(front.url + "/openapi.json", timeout=TIMEOUT)
    assert doc.status_code == 200 and len(doc.content) > 100_000
    json.loads(doc.content)
    n = 40
    request = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", front.port)) as s:
        s.sendall(request * (n - 1) + b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        time.sleep(1.5)  # many MB are waiting upstream by now
        s.settimeout(TIMEOUT)
        data = bytearray()
        while chunk := s.recv(1 << 20):
            data += chunk
    assert data.count(b"HTTP/1.1 200") == n
    assert data.count(doc.content) == n


def test_a_client_slow_to_send_its_first_bytes_is_served(front: Front) -> None:
    """What a loaded machine does to the clients of the test below: bytes that follow the connect by more than
    SNIFF_TIMEOUT, within the default sniff timeout, are still answered."""
    with socket.create_connection(("127.0.0.1", front.port)) as s:
        time.sleep(SNIFF_TIMEOUT + 0.5)
        s.sendall(b"GET /ping/v2/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        s.settimeout(TIMEOUT)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data


def test_many_connections_of_both_kinds_at_once(front: Front) -> None:
    async def go() -> None:
        limits = httpx.Limits(max_connections=150, max_keepalive_connections=150)
        async with httpx.AsyncClient(base_url=front.url, limits=limits, timeout=60) as http:
            channels = [grpc.aio.insecure_channel(f"127.0.0.1:{front.port}") for _ in range(20)]
            try:
                stubs = [health_pb2_grpc.HealthStub(ch) for ch in channels]

                async def get() -> int:
                    return (await http.get("/ping/v2/ping")).status_code

                async def check(i: int) -> int:
                    out = await stubs[i % len(stubs)].Check(health_pb2.HealthCheckRequest(), timeout=60)
                    return int(out.status)

                results = await asyncio.gather(*[get() for _ in range(300)], *[check(i) for i in range(300)])
            finally:
                for ch in channels:
                    await ch.close()
        assert results[:300] == [200] * 300
        assert results[300:] == [health_pb2.HealthCheckResponse.SERVING] * 300

    asyncio.run(go())


def test_rate_limit_tells_clients_apart_through_the_front(tmp_path: Path) -> None:
    """The backends see the front as their peer; the front connects from a source address derived from the
    client's, so the token routes' per-address buckets stay per client (127.0.0.2 and .3 are two clients)."""
    f = start(tmp_path, "--sts-rate", "0.001", "--sts-burst", "2")
    try:

        def status(source: str) -> int:
            transport = httpx.HTTPTransport(local_address=source)
            with httpx.Client(transport=transport, timeout=TIMEOUT) as c:
                return c.post(f.url + "/sts/exchange", headers={"authorization": "Bearer x.y.z"}).status_code

        assert [status("127.0.0.2") for _ in range(3)] == [401, 401, 429]
        assert status("127.0.0.3") == 401  # another client: its own bucket
        assert status("127.0.0.2") == 429
    finally:
        assert stop(f) == 0


def test_connections_over_the_cap_are_closed(tmp_path: Path) -> None:
    f = start(tmp_path, env={"PLATFORM_API_FRONT_MAX_CONNECTIONS": "3", "PLATFORM_API_FRONT_SNIFF_TIMEOUT": "30"})
    time.sleep(1)  # the readiness probes' connections are gone from the front's count
    held = [socket.create_connection(("127.0.0.1", f.port)) for _ in range(3)]  # undecided, held open
    try:
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", f.port)) as extra:
            assert _closed_within(extra, 5) < 5
        held.pop().close()
        time.sleep(0.3)
        assert httpx.get(f.url + "/ping/v2/ping", timeout=TIMEOUT).status_code == 200
    finally:
        for s in held:
            s.close()
        assert stop(f) == 0


def _still_open(sock: socket.socket) -> bool:
    """Whether the server still holds `sock` open, after reading whatever it sent (a gRPC backend's SETTINGS)."""
    sock.settimeout(0.5)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return True
    except OSError:
        pass
    return False


def test_one_client_over_its_cap_is_refused_while_others_are_answered(tmp_path: Path) -> None:
    """The issue's case, scaled down: one client address opens idle HTTP/2 connections; it holds its cap of
    them, the rest are closed at accept, and other client addresses still get answers on both protocols."""
    f = start(tmp_path, env={"PLATFORM_API_FRONT_MAX_CONNECTIONS_PER_CLIENT": "4"})
    flood = []
    try:
        for _ in range(7):
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", f.port))
            with contextlib.suppress(OSError):  # already reset
                s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            flood.append(s)
        assert [_still_open(s) for s in flood] == [True] * 4 + [False] * 3

        def ping(source: str) -> int:
            with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=TIMEOUT) as c:
                return c.get(f.url + "/ping/v2/ping").status_code

        assert ping("127.0.0.3") == 200
        with grpc.insecure_channel(f"127.0.0.1:{f.port}") as ch:  # grpcio connects from 127.0.0.1
            out = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
            assert out.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(httpx.TransportError):
            ping("127.0.0.2")  # still at its cap
        flood.pop(0).close()  # one closed: room for one, once the front has seen it go
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                assert ping("127.0.0.2") == 200
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert "refusing new connections: connections from 127.0.0.2 at the cap of 4" in f.log_path.read_text()
    finally:
        for s in flood:
            s.close()
        assert stop(f) == 0


def test_explicit_ports_stay_direct_listeners(tmp_path: Path) -> None:
    http_port, grpc_port = free_port(), free_port()
    f = start(tmp_path, "--http-port", str(http_port), "--grpc-port", str(grpc_port))
    try:
        direct = httpx.get(f"http://127.0.0.1:{http_port}/openapi.json", timeout=TIMEOUT)
        fronted = httpx.get(f.url + "/openapi.json", timeout=TIMEOUT)
        assert direct.status_code == fronted.status_code == 200 and direct.content == fronted.content
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as ch:
            out = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
            assert out.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        assert stop(f, signal.SIGINT) == 0


def test_clean_shutdown(tmp_path: Path) -> None:
    f = start(tmp_path)
    idle = socket.create_connection(("127.0.0.1", f.port))  # an open connection does not hold the stop up
    try:
        t0 = time.monotonic()
        assert stop(f) == 0, f.log_path.read_text()
        assert time.monotonic() - t0 < 15
    finally:
        idle.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", f.port), timeout=2).close()
    # No front process is left behind.
    marker = b"platform_api.api.front\0--fd\0"
    parent = f"--parent\0{f.process.pid}\0".encode()
    left = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if marker in cmdline and parent in cmdline:
            left.append(proc.name)
    assert left == []


def test_token_exchanged_over_grpc_at_the_public_url_works_there_for_grpc_and_http(
    tmp_path: Path, upstream: Upstream
) -> None:
    """What the vendor's SDK does with one URL as issuer and API: exchange over gRPC, then call both ways."""
    f = start(tmp_path, "--insecure-allow-loopback", "--trusted-issuer", upstream.issuer)
    try:
        boot = subprocess.run([sys.executable, "-m", "platform_api.cli", "bootstrap", "--database", f.database_url],
                              capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
        owner = httpx.Client(base_url=f.url, headers={"authorization": f"Bearer {json.loads(boot.stdout)['token']}"})
        org = json.loads(boot.stdout)["organization"]
        robot = owner.post(f"/iam/v2/identities/{org}", json={
            "name": "robot", "claimMatch": {"issuer": upstream.issuer, "subject": "ci"}}).json()["uid"]  # fmt: skip
        viewer = "63921b2c44617e3f2603851537be0123af4a57d7"
        assert owner.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": robot, "roleUid": viewer}).is_success
        with grpc.insecure_channel(f"127.0.0.1:{f.port}") as ch:
            raw = oidc_pb2_grpc.SecurityTokenServiceStub(ch).Exchange(
                oidc_pb2.ExchangeRequest(identity=robot),
                metadata=[("authorization", f"Bearer {upstream.token('ci', 'localhost')}")], timeout=TIMEOUT,
            )  # fmt: skip
            mine = [("authorization", f"Bearer {raw.token}")]
            got = groups_pb2_grpc.GroupsServiceStub(ch).GetGroup(groups_pb2.GetGroupRequest(uid=org), metadata=mine,
                                                                 timeout=TIMEOUT)  # fmt: skip
        assert got.uid == org
        r = httpx.get(f"{f.url}/iam/v2/groups/{org}", headers={"authorization": f"Bearer {raw.token}"})
        assert r.status_code == 200 and r.json()["uid"] == org
        # The token's issuer is that same public URL.
        assert httpx.get(f.url + "/.well-known/openid-configuration").json()["issuer"] == f"http://localhost:{f.port}"
        owner.close()
    finally:
        stop(f)
