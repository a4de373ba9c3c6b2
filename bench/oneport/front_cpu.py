"""CPU the front itself spends per request: the shipped `serve --port` front vs the `splice.py` prototype.

    python bench/oneport/front_cpu.py [--rounds 4] [--duration 4]

Starts one `platform-api serve --port P --http-port H --grpc-port G` (SQLite, pinned to core 0) and
`splice.py` in front of the same H and G (core 0), then alternates load on the two fronts (clients on
core 1): wrk `GET /ping/v2/ping` (64 connections) and `grpc_load.py` (health Check, 64 concurrent calls).
For each run: the front process's user+system CPU time (from /proc) divided by the requests served.
Unlike req/s on a shared machine, this barely depends on other load, so it compares the two fronts
fairly on a busy machine. Prints one line per run and the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_front(parent: int) -> int:
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                cmd = (p / "cmdline").read_bytes()
            except OSError:
                continue
            if b"platform_api.api.front\0" in cmd and f"--parent\0{parent}\0".encode() in cmd:
                return int(p.name)
    raise RuntimeError("front process not found")


def wait_ready(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"port {port} not ready")


def http_requests(port: int, duration: int) -> int:
    out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c64", f"-d{duration}s",
                          f"http://127.0.0.1:{port}/ping/v2/ping"], capture_output=True, text=True).stdout  # fmt: skip
    m = re.search(r"(\d+) requests in", out)
    assert m, out
    return int(m.group(1))


def grpc_calls(port: int, duration: int) -> int:
    out = subprocess.run(["taskset", "-c", "1", sys.executable, str(HERE / "grpc_load.py"), f"127.0.0.1:{port}",
                          "--duration", str(duration)], capture_output=True, text=True).stdout  # fmt: skip
    return int(json.loads(out.strip().splitlines()[-1])["calls"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--duration", type=int, default=4)
    ns = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="oneport-cpu-"))
    port, http, grpc_port, proto = free_port(), free_port(), free_port(), free_port()
    serve = subprocess.Popen(
        ["taskset", "-c", "0", str(BIN / "platform-api"), "serve", "--host", "127.0.0.1", "--port", str(port),
         "--http-port", str(http), "--grpc-port", str(grpc_port), "--database", f"sqlite:///{tmp / 'cpu.db'}",
         "--no-dispatcher"],
        stdout=open(tmp / "serve.log", "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )  # fmt: skip
    splice = subprocess.Popen(
        ["taskset", "-c", "0", sys.executable, str(HERE / "splice.py"), "--port", str(proto),
         "--http-upstream", f"127.0.0.1:{http}", "--grpc-upstream", f"127.0.0.1:{grpc_port}"],
    )  # fmt: skip
    results: dict[tuple[str, str], list[float]] = {}
    try:
        wait_ready(port)
        wait_ready(proto)
        fronts = {
            "shipped (serve --port)": (child_front(serve.pid), port),
            "prototype (splice.py)": (splice.pid, proto),
        }
        for _, p_ in fronts.values():
            http_requests(p_, 1)  # warm-up
        for rnd in range(ns.rounds):
            for name, (pid, p_) in fronts.items():
                for kind, load in (("HTTP/1.1", http_requests), ("gRPC", grpc_calls)):
                    c0 = cpu_seconds(pid)
                    n = load(p_, ns.duration)
                    us = (cpu_seconds(pid) - c0) / n * 1e6
                    results.setdefault((name, kind), []).append(us)
                    print(f"round {rnd + 1} {name} {kind}: {n} requests, {us:.1f} µs front CPU each", flush=True)
    finally:
        splice.terminate()
        serve.terminate()
        splice.wait()
        serve.wait()
    print("\n| front | HTTP/1.1 µs CPU/request (median) | gRPC µs CPU/call (median) |\n|---|--:|--:|")
    for name in ("shipped (serve --port)", "prototype (splice.py)"):
        h, g = results[(name, "HTTP/1.1")], results[(name, "gRPC")]
        print(f"| {name} | {statistics.median(h):.1f} | {statistics.median(g):.1f} |")
    print(f"\nload average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
