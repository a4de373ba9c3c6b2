"""Several `serve` processes on one PostgreSQL database (README "Several processes on one PostgreSQL"), 2 and
then 4 of them, each with its dispatcher: a write through any process is read through every other on the
next request; a role binding removed through one is refused by the others on the caller's next request while
they are busy; the dispatchers share the outbox and deliver each event once. And `/readyz` lists the database
settings that degrade the service (PostgreSQL's autovacuum off), exactly as the server's settings say.

SQLite (several processes on one file) keeps its own tests of the same promises in auth/test_authz_rules.py
and events/test_events_process.py; four SQLite writers add nothing here but time.
"""

from __future__ import annotations

import asyncio
import collections
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import asyncpg
import httpx
import pytest

from tests.helpers import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    Receiver,
    Server,
    event_env,
    metric,
    mk_org,
    ok,
    parse_metrics,
    start_server,
    stop_server,
)

PREFIX = "local.platform-api.api."
T = TypeVar("T")


@pytest.fixture(scope="module")
def _processes() -> Iterator[list[Server]]:
    """The processes started so far, on one database (the first one's, dropped with it at the end)."""
    if "postgres" not in BACKENDS:
        pytest.skip("several processes on one PostgreSQL database: postgres not selected")
    started: list[Server] = []
    yield started
    for s in reversed(started):
        stop_server(s, drop=s is started[0])


@pytest.fixture(scope="module", params=[2, 4], ids=["2-processes", "4-processes"])
def cluster(
    request: pytest.FixtureRequest, _processes: list[Server], tmp_path_factory: pytest.TempPathFactory
) -> list[Server]:
    """`n` serve processes on one PostgreSQL database, dispatchers on, loopback sinks allowed, behind one public
    URL (so one issuer: a token works on every process, as behind a load balancer). The 2-process tests run
    first (module-scoped parameters are grouped); the 4-process ones add two processes to them."""
    n: int = request.param

    def start(i: int, *extra: str, database_url: str | None = None) -> Server:
        return start_server("postgres", tmp_path_factory.mktemp(f"p{i}"), "--insecure-allow-loopback", *extra,
                            database_url=database_url)  # fmt: skip

    with event_env():
        if not _processes:
            _processes.append(start(0))  # migrates and bootstraps the database
        first = _processes[0]
        issuer = httpx.get(first.base_url + "/.well-known/openid-configuration").json()["issuer"]
        todo = range(len(_processes), n)
        with ThreadPoolExecutor(len(todo) or 1) as pool:
            _processes.extend(
                pool.map(lambda i: start(i, "--public-url", issuer, database_url=first.database_url), todo)
            )
    return _processes[:n]


def at_once(servers: list[Server], call: Callable[[Server], T]) -> list[T]:
    """`call` on every server at the same time (a thread each); the results in the servers' order."""
    with ThreadPoolExecutor(len(servers)) as pool:
        return list(pool.map(call, servers))


def test_a_write_on_any_process_is_read_on_every_other_on_the_next_request(cluster: list[Server]) -> None:
    org = mk_org(cluster[0].http)
    for i, writer in enumerate(cluster):
        others = [s for s in cluster if s is not writer]
        repo = ok(writer.http.post(f"/registry/v2/repos/{org}", json={"name": f"from-{i}"}))
        path = f"/registry/v2/repos/{repo['uid']}"
        assert [ok(r) for r in at_once(others, lambda s, path=path: s.http.get(path))] == [repo] * len(others)
        counts = at_once(others, lambda s: ok(s.http.get("/registry/v2/repos", params={"uidp.children_of": org})))
        assert [c["totalCount"] for c in counts] == [str(i + 1)] * len(others)  # the per-parent counter too
        changed = ok(writer.http.patch(path, json={"uid": repo["uid"], "description": f"changed by {i}"}))
        assert changed["description"] == f"changed by {i}"
        assert [ok(r) for r in at_once(others, lambda s, path=path: s.http.get(path))] == [changed] * len(others)
    # A delete through each process: gone from every other at once.
    listed = ok(cluster[-1].http.get("/registry/v2/repos", params={"uidp.children_of": org}))["repos"]
    for writer, repo in zip(cluster, listed, strict=True):
        assert writer.http.delete(f"/registry/v2/repos/{repo['uid']}").status_code == 200
        others = [s for s in cluster if s is not writer]
        got = at_once(others, lambda s, gone=repo["uid"]: s.http.get(f"/registry/v2/repos/{gone}"))
        assert [r.status_code for r in got] == [404] * len(others)


def test_a_revoke_on_one_process_is_refused_by_every_other_busy_process(cluster: list[Server]) -> None:
    """As auth/test_authz_rules.py's two-process test, with every process busy (8 clients spread over them)
    and the revoke made through each process in turn; fewer trials (each checks n - 1 processes)."""
    org = mk_org(cluster[0].http)
    claim = {"issuer": "https://issuer.example", "subject": secrets.token_hex(6)}
    uid = ok(cluster[0].http.post(f"/iam/v2/identities/{org}", json={"name": "who", "claimMatch": claim}))["uid"]
    token = cluster[0].mint(uid)
    stop = threading.Event()

    def load(s: Server) -> None:
        with s.client(s.token) as busy:
            while not stop.is_set():
                busy.get(f"/iam/v2/groups/{s.owner_org}")

    threads = [threading.Thread(target=load, args=(cluster[i % len(cluster)],), daemon=True) for i in range(8)]
    for t in threads:
        t.start()
    callers = {s.base_url: s.client(token) for s in cluster}
    honoured: list[tuple[int, str]] = []
    trials = 12 if len(cluster) == 2 else 8
    try:
        for trial in range(trials):
            revoker = cluster[trial % len(cluster)]
            others = [s for s in cluster if s is not revoker]
            bind = {"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS["viewer"]}
            binding = ok(revoker.http.post(f"/iam/v2/roleBindings/{org}", json=bind))
            deadline = time.monotonic() + 10
            for s in others:  # granted: seen, then cached by each
                while callers[s.base_url].get(f"/iam/v2/groups/{org}").status_code != 200:
                    assert time.monotonic() < deadline, f"the grant never reached {s.base_url}"
            assert revoker.http.delete(f"/iam/v2/roleBindings/{binding['uid']}").status_code == 200
            got = at_once(others, lambda s: callers[s.base_url].get(f"/iam/v2/groups/{org}"))
            honoured += [(trial, s.base_url) for s, r in zip(others, got, strict=True) if r.status_code != 404]
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
        for c in callers.values():
            c.close()
    assert honoured == [], f"a revoked binding was still honoured (trial, process): {honoured}"


def delivered(s: Server) -> float:
    return metric(
        parse_metrics(s.http.get("/metrics").text), "platform_api_event_deliveries_total", outcome="delivered"
    )


def test_the_dispatchers_share_the_outbox_and_deliver_each_event_once(cluster: list[Server], rx: Receiver) -> None:
    org = mk_org(cluster[0].http)
    path = f"/scale-out/{len(cluster)}/{secrets.token_hex(4)}"
    sub = {"sink": rx.url(path), "types": [PREFIX + "platform.registry.repo.created.v1"]}
    ok(cluster[0].http.post(f"/events/v2/subscriptions/{org}", json=sub))
    before = [delivered(s) for s in cluster]
    per_process = 10

    def create(s: Server) -> list[str]:
        return [ok(s.http.post(f"/registry/v2/repos/{org}", json={"name": f"{s.base_url[-5:]}-{i}"}))["uid"]
                for i in range(per_process)]  # fmt: skip

    created = [uid for uids in at_once(cluster, create) for uid in uids]
    rx.wait(path, len(created), timeout=30)
    # Every attempt is counted by the process that made it (exported within a second): their sum is one per
    # event once all arrived; a duplicate would show as more, here or at the receiver.
    deadline = time.monotonic() + 10
    while sum(delivered(s) for s in cluster) - sum(before) < len(created) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)
    got = rx.at(path)
    ids = collections.Counter(r.ce("id") for r in got)
    assert len(ids) == len(created) and set(ids.values()) == {1}, ids.most_common(3)
    assert sorted(r.ce("subject") for r in got) == sorted(created)
    by_process = [delivered(s) - b for s, b in zip(cluster, before, strict=True)]
    assert sum(by_process) == len(created), by_process
    print(f"deliveries per process ({len(cluster)} dispatchers): {by_process}")


def database_setting(url: str, name: str) -> str:
    async def read() -> str:
        conn = await asyncpg.connect(url)
        try:
            return str(await conn.fetchval(f"SHOW {name}"))
        finally:
            await conn.close()

    return asyncio.run(read())


def test_readyz_warns_when_autovacuum_is_off(cluster: list[Server]) -> None:
    """The server's own settings decide what is expected (autovacuum is server-wide, a test cannot turn it
    off for one database): off (as on the development machine) -> a warning in /readyz and one line in each
    process's log at start; on -> neither. The same for track_counts, which autovacuum needs."""
    settings = {name: database_setting(cluster[0].database_url, name) for name in ("autovacuum", "track_counts")}
    off = [f"PostgreSQL {name} is off" for name, value in settings.items() if value != "on"]
    body = httpx.get(cluster[0].base_url + "/readyz").json()
    assert body["status"] == "ok"
    assert [w.split(":")[0] for w in body.get("warnings", [])] == off, body
    for s in cluster:
        lines = [
            line for line in s.log_path.read_text().splitlines() if " WARNING platform_api.app PostgreSQL " in line
        ]
        assert [line.split(" WARNING platform_api.app ")[1].split(":")[0] for line in lines] == off, lines
    print(f"{settings}: /readyz {body}")


def test_readyz_has_no_warnings_on_sqlite(tmp_path: Path) -> None:
    if "sqlite" not in BACKENDS:
        pytest.skip("sqlite not selected")
    s = start_server("sqlite", tmp_path, "--no-dispatcher")
    try:
        assert httpx.get(s.base_url + "/readyz").json() == {"status": "ok"}
    finally:
        stop_server(s)
