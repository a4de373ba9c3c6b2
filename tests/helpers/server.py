"""The server under test: start and stop a real `platform-api serve` process per storage backend, with
clients authenticated as its bootstrap owner, and the PostgreSQL admin connection the suite uses."""

from __future__ import annotations

import atexit
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.auth.capabilities import BUILTIN_ROLES
from platform_api.core.settings import Settings
from tests.helpers.pgruns import database_name
from tests.helpers.run_cli import run_cli

BUILTIN_ROLE_UIDS = {r.name: r.uid for r in BUILTIN_ROLES}
PG_ADMIN = os.environ.get("PLATFORM_API_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = os.environ.get("PLATFORM_API_TEST_BACKENDS", "sqlite,postgres").split(",")


def cli(database_url: str, *args: str) -> str:
    """Run `platform-api <args> --database <database_url>` (tests/helpers/run_cli.py), which must succeed; its
    standard output."""
    r = run_cli(*args, "--database", database_url)
    assert r.returncode == 0, r.stderr
    return r.stdout


def port_range(text: str) -> range:
    """PLATFORM_API_TEST_PORTS's value, `LOW-HIGH` (both included, 1024-65535), as a range; ValueError with a
    one-line message otherwise."""
    low, sep, high = text.strip().partition("-")
    if sep and low.strip().isdigit() and high.strip().isdigit() and 1024 <= int(low) < int(high) <= 65535:
        return range(int(low), int(high) + 1)
    raise ValueError(f"PLATFORM_API_TEST_PORTS={text!r}: expected LOW-HIGH, two ports 1024-65535 with LOW below HIGH")


def ports_setting() -> range:
    """The loopback ports the tests' servers and registries take: PLATFORM_API_TEST_PORTS (default 20000-30000)."""
    return port_range(os.environ.get("PLATFORM_API_TEST_PORTS", "20000-30000"))


def free_port() -> int:
    """A free loopback port of ports_setting(). Under pytest-xdist each process takes only ports of its own
    residue (worker number modulo the worker count): two processes picking the same just-freed port at once
    would start two servers sharing it (serve listens with SO_REUSEPORT), each answering the other's clients."""
    ports = ports_setting()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    count, mine = (count, int(worker.removeprefix("gw")) % count) if worker.startswith("gw") and count > 1 else (1, 0)
    mine_in_range = range(ports.start + (mine - ports.start) % count, ports.stop, count)
    if not mine_in_range:
        raise ValueError(f"PLATFORM_API_TEST_PORTS={ports.start}-{ports.stop - 1}: too few ports for {count} processes")
    for _ in range(1000):  # not bind(0): it ignores the range, and Linux hands out ports of one parity to it
        port = random.choice(mine_in_range)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free loopback port in PLATFORM_API_TEST_PORTS={ports.start}-{ports.stop - 1} after 1000 tries")


@dataclass
class Server:
    backend: str
    base_url: str
    grpc_target: str
    database_url: str
    # Clients authenticated as the bootstrap owner (an unconfined identity that owns `owner_org`).
    http: httpx.Client
    channel: grpc.Channel
    process: subprocess.Popen[bytes]
    log_path: Path
    token: str = ""
    owner: str = ""
    owner_org: str = ""

    def cli(self, *args: str) -> str:
        """Run `platform-api <args> --database <this server's database>`; its standard output."""
        return cli(self.database_url, *args)

    def mint(self, identity: str, ttl: int = 3600) -> str:
        """An access token for `identity`, signed with the server's stored keys (what `platform-api token` does)."""
        import asyncio

        from platform_api.auth import issuer
        from platform_api.store import db

        async def go() -> str:
            database = await db.connect(self.database_url)
            try:
                url = await issuer.issuer_of(database, Settings(), explicit=False)
                return await issuer.mint(database, url, url, identity, ttl)
            finally:
                await database.close()

        return asyncio.run(go())

    def identity_with_role(self, group: str, role: str, home: str | None = None) -> tuple[str, str]:
        """A new identity under `home` (default `group`) holding `role` (a built-in role name or a role uid)
        at `group`, and a token for it: (identity uid, token)."""
        subject = secrets.token_hex(8)
        claim_match = {"issuer": "https://issuer.example", "subject": subject}
        r = self.http.post(
            f"/iam/v2/identities/{home or group}", json={"name": f"id-{subject}", "claimMatch": claim_match}
        )
        assert r.status_code == 200, r.text
        uid = r.json()["uid"]
        role_uid = role if "/" in role or len(role) == 40 else BUILTIN_ROLE_UIDS[role]
        r = self.http.post(f"/iam/v2/roleBindings/{group}", json={"identityUid": uid, "roleUid": role_uid})
        assert r.status_code == 200, r.text
        return uid, self.mint(uid)

    def client(self, token: str | None) -> httpx.Client:
        """An HTTP client sending this bearer token (None: no Authorization header)."""
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base_url, timeout=30, headers=headers)

    def grpc_channel(self, token: str | None) -> grpc.Channel:
        channel = grpc.insecure_channel(self.grpc_target)
        return grpc.intercept_channel(channel, BearerInterceptor(token)) if token else channel


class BearerInterceptor(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Adds `authorization: Bearer <token>` to every call (call credentials need TLS; tests run without)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {self.token}")]
        return continuation(details._replace(metadata=metadata), request)


def pg_execute(sql: str) -> None:
    import asyncio

    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(PG_ADMIN)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def _open_files(n: int, cmd: list[str]) -> list[str]:
    """`cmd` limited to `n` open files (soft and hard: serve cannot raise it) by `sh`'s ulimit. Not a
    preexec_fn: with one, subprocess forks instead of vforking, grpcio's fork handler restarts its poller in
    the child, and close_fds then closes the poller's epoll descriptor under it: the child died before exec
    ("epoll_wait error: Bad file descriptor", grpc/grpc#43055)."""
    return ["sh", "-c", f'ulimit -n {n} && exec "$@"', "sh", *cmd]


def wait_ready(proc: subprocess.Popen[bytes], base_url: str, grpc_target: str, log_path: Path) -> None:
    """Until a starting `platform-api serve` answers /readyz and its gRPC channel connects (none: no gRPC)
    (killed, with its log in the error, when it exits first or takes more than 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log_path.read_text()}")
        try:
            if httpx.get(base_url + "/readyz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"server did not become ready: {log_path.read_text()}")
        time.sleep(0.1)
    if not grpc_target:  # started with --no-grpc
        return
    with grpc.insecure_channel(grpc_target) as channel:
        grpc.channel_ready_future(channel).result(timeout=15)


def new_database(backend: str, tmp: Path) -> str:
    """The URL of a new database for a server, empty or migrated: a file in `tmp`, or a PostgreSQL database of its
    own (which stop_server drops), a copy of this process's migrated template (migrating each from scratch took
    most of a PostgreSQL server's start)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp / 'test.db'}"
    return pg_database("test", template=migrated_template())


def pg_database(kind: str, template: str = "") -> str:
    """A new PostgreSQL database of this run (named by tests/helpers/pgruns.py for `kind`), empty or a copy of
    the database `template`; its URL."""
    name = database_name(kind)
    pg_execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    return _pg_url(name)


def _pg_url(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


_template: list[str] = []  # this process's migrated template database, made on first use


def migrated_template() -> str:
    """The name of a PostgreSQL database with every migration applied and nothing else, made once per process
    (a pytest-xdist worker's own: a template cannot be copied while another session is connected to it) and
    dropped when the process ends; a run stopped midway leaves it to the next run's sweep."""
    if not _template:
        url = pg_database("tpl")
        cli(url, "migrate")
        _template.append(url.rsplit("/", 1)[1])
        atexit.register(_drop_template)
    return _template[0]


def _drop_template() -> None:
    with suppress(Exception):  # PostgreSQL gone meanwhile: the next run's sweep drops it
        pg_execute(f"DROP DATABASE IF EXISTS {_template[0]} WITH (FORCE)")


def start_server(
    backend: str, tmp: Path, *extra: str, database_url: str | None = None, open_files: int | None = None
) -> Server:
    if database_url is None:
        database_url = new_database(backend, tmp)
    http_port, grpc_port = free_port(), free_port()
    log_path = tmp / f"server-{http_port}.log"
    # The account association check's token services: a closed loopback port, never the clouds' (tests send
    # traffic to loopback only; tests/helpers/cloud_sts.py serves fakes of them for the servers that name it).
    closed = "https://127.0.0.1:9"
    env = {**os.environ, "PLATFORM_API_LOG_LEVEL": "warning", "PLATFORM_API_AWS_STS_URL": closed + "/",
           "PLATFORM_API_GCP_STS_URL": closed + "/v1/token", "PLATFORM_API_AZURE_LOGIN_URL": closed}  # fmt: skip
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--http-port", str(http_port),
           "--grpc-port", str(grpc_port), "--database", database_url, *extra]  # fmt: skip
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(_open_files(open_files, cmd) if open_files else cmd, stdout=log,
                                stderr=subprocess.STDOUT, env=env)  # fmt: skip
    base = f"http://127.0.0.1:{http_port}"
    wait_ready(proc, base, "" if "--no-grpc" in extra else f"127.0.0.1:{grpc_port}", log_path)
    raw = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    raw.close()  # a placeholder until the owner's token is known
    s = Server(backend, base, f"127.0.0.1:{grpc_port}", database_url, httpx.Client(base_url=base), raw, proc, log_path)
    boot = json.loads(s.cli("bootstrap"))
    s.token, s.owner, s.owner_org = boot["token"], boot["identity"], boot["organization"]
    s.http = s.client(s.token)
    s.channel = s.grpc_channel(s.token)
    return s


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill9(s: Server) -> None:
    """SIGKILL the server: its main process and the worker that runs the application (a crash: nothing of
    it gets to finish); then close its clients."""
    for pid in [s.process.pid, *_descendants(s.process.pid)]:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    s.process.wait(timeout=10)
    s.http.close()
    s.channel.close()


def stop_server(s: Server, drop: bool = True) -> None:
    s.http.close()
    s.channel.close()
    s.process.terminate()
    try:
        s.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        s.process.kill()
    if drop and s.backend == "postgres":
        pg_execute(f"DROP DATABASE IF EXISTS {s.database_url.rsplit('/', 1)[1]} WITH (FORCE)")


@contextmanager
def scratch_database(backend: str, tmp: Path) -> Iterator[str]:
    """The URL of a new, empty database for in-process tests (a file in `tmp`, or a PostgreSQL database
    dropped afterwards); skips the test when `backend` is not selected."""
    if backend not in BACKENDS:
        pytest.skip(f"{backend} not selected")
    if backend == "sqlite":
        yield f"sqlite:///{tmp / 'scratch.db'}"
        return
    url = pg_database("unit")
    try:
        yield url
    finally:
        pg_execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")
