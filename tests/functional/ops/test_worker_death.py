"""Whatever process of `serve` dies, the port keeps answering or the whole server exits with a non-zero code for
its supervisor (issue 26 item 17): a killed worker is started again while the others answer (HTTP and gRPC); a
worker or the `--port` front that dies again at once stops `serve` with exit code 1; a killed `serve` takes its
workers and front along, so the port is free for the one its supervisor starts next. SQLite: no database is
involved in any of it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.helpers import free_port, wait_ready

FRONT = b"platform_api.api.front"
# Seconds to wait for one answer: long, as a loaded machine is slow; a refused or failed answer fails at once.
WAIT = 30


@dataclass
class Serve:
    process: subprocess.Popen[bytes]
    url: str
    grpc_target: str
    log_path: Path
    seen: set[int] = field(default_factory=set)  # every child ever listed: killed at the end, whatever happened

    def children(self) -> dict[int, bytes]:
        """The processes `serve` started, by pid: their command lines."""
        pids = []
        for task in Path(f"/proc/{self.process.pid}/task").glob("*"):  # a thread's children are listed under it
            try:
                pids += [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                continue
        out = {}
        for child in pids:
            try:
                out[child] = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
        self.seen |= out.keys()
        return out

    def workers(self) -> list[int]:
        return sorted(pid for pid, cmd in self.children().items() if FRONT not in cmd and b"serve" in cmd)

    def front(self) -> int:
        (pid,) = [pid for pid, cmd in self.children().items() if FRONT in cmd]
        return pid

    def answers(self) -> bool:
        """HTTP and gRPC answer, each on a new connection."""
        return self.failure() == ""

    def failure(self) -> str:
        """Why HTTP or gRPC did not answer on a new connection ("" when both did). The wait is long: on a loaded
        machine an answer may be slow, and only a refused or failed one is wrong."""
        try:
            r = httpx.get(self.url + "/healthz", timeout=WAIT)
            if r.status_code != 200:
                return f"HTTP {r.status_code}"
            with grpc.insecure_channel(self.grpc_target) as channel:
                check = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=WAIT)
            return "" if check.status == health_pb2.HealthCheckResponse.SERVING else f"gRPC health {check.status}"
        except (httpx.HTTPError, grpc.RpcError) as e:
            return f"{type(e).__name__}: {e}"


def start(tmp: Path, *extra: str, one_port: bool = False) -> Serve:
    database = f"sqlite:///{tmp / 'w.db'}"
    if one_port:
        port = free_port()
        ports = ["--port", str(port)]
        url, target = f"http://127.0.0.1:{port}", f"127.0.0.1:{port}"
    else:
        http_port, grpc_port = free_port(), free_port()
        ports = ["--http-port", str(http_port), "--grpc-port", str(grpc_port)]
        url, target = f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}"
    log_path = tmp / "serve.log"
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", *ports, "--database", database,
           "--no-dispatcher", *extra]  # fmt: skip
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, "PLATFORM_API_LOG_LEVEL": "warning"})  # fmt: skip
    wait_ready(proc, url, target, log_path)
    s = Serve(proc, url, target, log_path)
    s.children()
    return s


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Callable[..., Serve]]:
    servers: list[Serve] = []

    def go(*extra: str, one_port: bool = False) -> Serve:
        servers.append(start(tmp_path, *extra, one_port=one_port))
        return servers[-1]

    yield go
    for s in servers:
        s.children()
        if s.process.poll() is None:
            s.process.terminate()
            try:
                s.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                s.process.kill()
        for pid in s.seen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def until(what: Callable[[], object], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def listening(pid: int, *addresses: str) -> bool:
    """Whether process `pid` holds a listening TCP socket on each `host:port` (its own: the workers bind theirs
    with SO_REUSEPORT, so a worker started again serves only once it has bound them)."""
    inodes = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
        # gRPC listens on a dual-stack socket: its 127.0.0.1 shows in the IPv6 table.
        lines = [line for kind in ("tcp", "tcp6") for line in Path(f"/proc/{pid}/net/{kind}").read_text().splitlines()]
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):  # an fd closed meanwhile
            inodes.add(os.readlink(fd).removeprefix("socket:[").removesuffix("]"))
    table = [line.split() for line in lines]  # the headers' 4th word is "st", never 0A (LISTEN)
    held = {int(f[1].rsplit(":", 1)[1], 16) for f in table if len(f) > 9 and f[3] == "0A" and f[9] in inodes}
    return all(int(a.rsplit(":", 1)[1]) in held for a in addresses)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_worker_is_started_again_while_the_others_answer(started: Callable[..., Serve]) -> None:
    s = started("--workers", "2")
    first = s.workers()
    assert len(first) == 2
    for victim in first:
        os.kill(victim, signal.SIGKILL)
        until(lambda victim=victim: victim not in s.children())  # type: ignore[misc]
        # The other worker answers at once, new connections of both kinds (no retry).
        failures = [f for f in (s.failure() for _ in range(20)) if f]
        assert failures == [], s.log_path.read_text()[-2000:]
        # Started again, and listening on both ports before the next victim (until then the other worker alone
        # holds the ports: killing it too would leave none, as with any two workers killed at once).
        until(lambda: len(s.workers()) == 2)
        until(lambda: all(listening(pid, s.url.removeprefix("http://"), s.grpc_target) for pid in s.workers()))
    assert s.process.poll() is None
    assert not set(s.workers()) & set(first)
    until(lambda: all(s.answers() for _ in range(5)))


def test_the_only_worker_killed_comes_back_and_a_crash_loop_exits_1(started: Callable[..., Serve]) -> None:
    s = started()
    (worker,) = s.workers()
    os.kill(worker, signal.SIGKILL)
    until(lambda: len(s.workers()) == 1 and s.workers() != [worker] and s.answers())
    assert s.process.poll() is None
    # Dying again at once after being started again: a crash loop, which stops serve with exit code 1.
    os.kill(s.workers()[0], signal.SIGKILL)
    assert s.process.wait(timeout=60) == 1
    assert not s.answers()


def test_the_front_killed_is_started_again_and_dying_at_once_exits_1(started: Callable[..., Serve]) -> None:
    s = started("--workers", "2", one_port=True)
    front = s.front()
    os.kill(front, signal.SIGKILL)
    # New connections wait in the public port's queue while the front starts again: answered, no retry.
    assert s.answers()
    assert s.front() != front and s.process.poll() is None
    os.kill(s.front(), signal.SIGKILL)
    assert s.process.wait(timeout=60) == 1
    assert "exited (-9) again at once; stopping" in s.log_path.read_text()


def test_a_killed_serve_takes_its_workers_and_front_along(started: Callable[..., Serve]) -> None:
    s = started("--workers", "2", one_port=True)
    left = [*s.children()]
    assert len(left) == 3
    s.process.kill()
    s.process.wait(timeout=10)
    until(lambda: not any(alive(pid) for pid in left), seconds=20)
    assert not s.answers()
