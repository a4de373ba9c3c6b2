"""Connections one client can hold, and whether others still get answers (issue 16, item 3).

    python bench/oneport/conns.py [--scenario port|ports|all] [--flood 12000] [--nofile 4096]

`port`: `platform-api serve --port P`; one client (127.0.0.2) opens `--flood` connections to P that send
the HTTP/2 preface and SETTINGS and then stay idle; then another client (127.0.0.3) asks `GET /ping/v2/ping`
and a gRPC health Check on P. `ports`: `serve` with its two direct listeners and the open-files limit
`--nofile` (prlimit); one client (127.0.0.2) floods the gRPC port the same way, another (127.0.0.4) holds
`--http-flood` idle connections on the HTTP port, then a third (127.0.0.3) asks `/ping` on the HTTP port and
a Check on the gRPC port. Prints, per scenario: connections held after 3 s, the worker's open descriptors,
and the third client's answers. Loopback only; needs an open-files limit above `--flood` for itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS
ATTACKER, VICTIM, HTTP_ATTACKER = "127.0.0.2", "127.0.0.3", "127.0.0.4"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(tmp: Path, args: list[str], nofile: int = 0, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--no-dispatcher",
           "--database", f"sqlite:///{tmp / 'conns.db'}", *args]  # fmt: skip
    if nofile:
        cmd = ["prlimit", f"--nofile={nofile}:{nofile}", "--", *cmd]
    log = open(tmp / "serve.log", "ab")  # noqa: SIM115 (kept open for the process's life)
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    return proc


def wait_http(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("server not ready")


def flood(port: int, n: int, source: str, first: bytes) -> list[socket.socket]:
    """`n` connections from `source`, each sending `first` once connected (non-blocking, all at once)."""
    socks: list[socket.socket] = []
    sel = selectors.DefaultSelector()
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.bind((source, 0))
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
        sel.register(s, selectors.EVENT_WRITE)
        if len(sel.get_map()) >= 512:  # keep the listen backlog from overflowing into SYN retries
            _drain_connects(sel, first, 2.0)
    _drain_connects(sel, first, 5.0)
    return socks


def _drain_connects(sel: selectors.BaseSelector, first: bytes, wait: float) -> None:
    deadline = time.monotonic() + wait
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.2):
            s: socket.socket = key.fileobj  # type: ignore[assignment]
            sel.unregister(s)
            if first and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                with contextlib.suppress(OSError):
                    s.send(first)
    for key in list(sel.get_map().values()):  # still connecting: leave them be
        sel.unregister(key.fileobj)


def held(socks: list[socket.socket]) -> int:
    """How many of `socks` the server still holds open (no EOF, no reset)."""
    n = 0
    for s in socks:
        try:
            while True:
                if not s.recv(65536):
                    break
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n


def worker_fds(serve_pid: int) -> int:
    """Open descriptors of serve's Granian worker (the process holding the listeners' connections)."""
    best = 0
    for pid in _descendants(serve_pid):
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"platform_api.api.front" not in cmd:
                best = max(best, len(os.listdir(f"/proc/{pid}/fd")))
    return best


def _descendants(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
                out += [int(c), *_descendants(int(c))]
    return out


def ask(http_url: str, grpc_target: str) -> dict[str, str]:
    """The victim's two questions, from its own address, 5 s each."""
    out: dict[str, str] = {}
    try:
        with httpx.Client(transport=httpx.HTTPTransport(local_address=VICTIM), timeout=5) as c:
            out["http_ping"] = str(c.get(http_url + "/ping/v2/ping").status_code)
    except httpx.HTTPError as e:
        out["http_ping"] = type(e).__name__
    # grpcio cannot pick its source address: the check runs from 127.0.0.1 (not one of the flooders).
    with grpc.insecure_channel(grpc_target) as ch:
        try:
            r = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
            out["grpc_check"] = health_pb2.HealthCheckResponse.ServingStatus.Name(r.status)
        except grpc.RpcError as e:
            out["grpc_check"] = e.code().name
    return out


def scenario_port(tmp: Path, n: int) -> dict[str, Any]:
    port = free_port()
    proc = start(tmp, ["--port", str(port)])
    try:
        wait_http(f"http://127.0.0.1:{port}", proc)
        time.sleep(1)
        socks = flood(port, n, ATTACKER, PREFACE)
        time.sleep(3)
        result = {"flood": n, "held": held(socks), "worker_fds": worker_fds(proc.pid)}
        result.update(ask(f"http://127.0.0.1:{port}", f"127.0.0.1:{port}"))
        for s in socks:
            s.close()
        return result
    finally:
        proc.terminate()
        proc.wait(30)


def scenario_ports(tmp: Path, n: int, http_n: int, nofile: int) -> dict[str, Any]:
    http_port, grpc_port = free_port(), free_port()
    proc = start(tmp, ["--http-port", str(http_port), "--grpc-port", str(grpc_port)], nofile,
                 {"PLATFORM_API_GRPC_HOST": "127.0.0.1"})  # fmt: skip
    try:
        wait_http(f"http://127.0.0.1:{http_port}", proc)
        time.sleep(1)
        grpc_socks = flood(grpc_port, n, ATTACKER, PREFACE)
        http_socks = flood(http_port, http_n, HTTP_ATTACKER, b"")
        time.sleep(3)
        result = {"nofile": nofile, "grpc_flood": n, "grpc_held": held(grpc_socks), "http_flood": http_n,
                  "http_held": held(http_socks), "worker_fds": worker_fds(proc.pid)}  # fmt: skip
        result.update(ask(f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}"))
        for s in grpc_socks + http_socks:
            s.close()
        return result
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=["port", "ports", "all"], default="all")
    p.add_argument("--flood", type=int, default=12000, help="connections the flooding client opens")
    p.add_argument("--http-flood", type=int, default=200, help="`ports`: idle connections held on the HTTP port")
    p.add_argument("--nofile", type=int, default=4096, help="`ports`: the server's open-files limit")
    args = p.parse_args()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.flood + args.http_flood + 256:
        sys.exit(f"open-files limit {hard} is too small for --flood {args.flood}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="conns-") as tmp:
        if args.scenario in ("port", "all"):
            results["port"] = scenario_port(Path(tmp), args.flood)
            print("port:", json.dumps(results["port"]), flush=True)
        if args.scenario in ("ports", "all"):
            results["ports"] = scenario_ports(Path(tmp), args.flood, args.http_flood, args.nofile)
            print("ports:", json.dumps(results["ports"]), flush=True)


if __name__ == "__main__":
    main()
