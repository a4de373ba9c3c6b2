"""What the benchmark scripts share: paths, logging, the scratch database per backend, `platform-api`
commands, a served instance, percentiles, the `--backend` option and the JSON result file.

Imported as a sibling module by scripts run as `python bench/<script>.py` (as bench/run.py imports load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
# The PostgreSQL server scratch databases are created on: its user may CREATE DATABASE (trust auth).
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgres")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    """The value at fraction q (0..1) of the sorted values."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def results_dir() -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    return RESULTS


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()


# ---------------------------------------------------------------- options


def add_backend_options(p: argparse.ArgumentParser, pg_url: bool = True) -> None:
    """`--backend sqlite|postgres|both` (default both) and, with pg_url, `--pg-url`."""
    p.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    if pg_url:
        p.add_argument("--pg-url", default=PG_ADMIN_URL, help="PostgreSQL URL to create the scratch database from")


def backends(args: argparse.Namespace) -> list[str]:
    return list(BACKENDS) if args.backend == "both" else [args.backend]


# ---------------------------------------------------------------- databases


def pg(sql: str, url: str = PG_ADMIN_URL) -> None:
    """Run `sql` on the PostgreSQL database at `url` (asyncpg, one connection)."""
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(go())


@contextlib.contextmanager
def scratch_database(
    backend: str, sqlite_path: Path, pg_prefix: str, pg_url: str = PG_ADMIN_URL, keep_sqlite: bool = False
) -> Iterator[str]:
    """The URL of a fresh database, removed on exit (also on errors and Ctrl-C): for sqlite the file
    `sqlite_path` (with its -wal/-shm; kept with keep_sqlite), for postgres a database `<pg_prefix><random>`
    created on the server of `pg_url` and dropped `WITH (FORCE)`."""
    if backend == "sqlite":
        url = f"sqlite:///{sqlite_path}"
    else:
        dbname = f"{pg_prefix}{secrets.token_hex(4)}"
        pg(f"CREATE DATABASE {dbname}", pg_url)
        url = pg_url.rsplit("/", 1)[0] + "/" + dbname
    try:
        yield url
    finally:
        try:
            if backend != "sqlite":
                pg(f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)", pg_url)
            elif not keep_sqlite:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{sqlite_path}{suffix}").unlink(missing_ok=True)
        except Exception as e:  # keep unwinding
            log(f"  cleanup: {e!r}")


# ---------------------------------------------------------------- platform-api


def command() -> list[str]:
    """`platform-api` of this interpreter (the venv)."""
    return [sys.executable, "-m", "platform_api.cli"]


def cli(database: str, *args: str, timeout: float | None = 3600) -> str:
    """stdout of `platform-api <args> --database <database>`; raises with its stderr when it fails."""
    r = subprocess.run([*command(), *args, "--database", database],
                       capture_output=True, text=True, timeout=timeout, cwd=ROOT)  # fmt: skip
    if r.returncode != 0:
        raise RuntimeError(f"platform-api {' '.join(args)}: {r.stderr}")
    return r.stdout


def cli_json(database: str, *args: str) -> Any:
    """The last stdout line of `platform-api <args>` as JSON (the import commands' summary)."""
    return json.loads(cli(database, *args).strip().splitlines()[-1])


def token(database: str, identity: str, ttl: int = 7200) -> str:
    """An access token of `identity`, minted as `platform-api token` does (once a server recorded its issuer)."""
    return cli(database, "token", "--identity", identity, "--ttl", str(ttl)).strip()


class Server:
    """A process in its own process group (log in `log_path`, optionally pinned to one CPU with taskset),
    stopped as a whole group. `port`, when given, is its HTTP port: `url`, `wait_ready`."""

    def __init__(
        self,
        log_path: Path,
        argv: list[str],
        port: int = 0,
        ready_path: str = "/readyz",
        env: dict[str, str] | None = None,
        cpu: str | None = None,
        grpc_port: int = 0,
    ):
        self.name, self.port, self.ready_path, self.log_path = log_path.stem, port, ready_path, log_path
        self.grpc_port = grpc_port
        if cpu is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", cpu, *argv]
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=str(ROOT),
            start_new_session=True,  # own process group: Granian's worker goes down with it
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 60) -> Server:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; log:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout}s; log:\n{self.tail()}")

    def tail(self, n: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGINT, 10), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, sig)
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # Stragglers in the group (a worker whose parent died first).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self._log.close()


def serve(
    database: str,
    log_path: Path,
    *extra: str,
    port: int = 0,
    env: dict[str, str] | None = None,
    cpu: str | None = None,
) -> Server:
    """`platform-api serve` of `database` on 127.0.0.1 (HTTP on `port` or a free one, gRPC on a free one:
    `server.grpc_port`), ready for requests. The anonymous routes' per-client rate limit is off (one client
    loads the server here) unless `env` sets PLATFORM_API_ANON_RATE."""
    port = port or free_port()
    grpc_port = free_port()
    argv = [*command(), "serve", "--host", "127.0.0.1", "--http-port", str(port), "--grpc-port", str(grpc_port),
            "--database", database, *extra]  # fmt: skip
    env = {"PLATFORM_API_ANON_RATE": "0", **(env or {})}
    server = Server(log_path, argv, port, env=env, cpu=cpu, grpc_port=grpc_port)
    try:
        server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return server
