"""Concurrent writes over the wire (both backends): SQLite commits concurrent writes in groups (one COMMIT, a
savepoint per request). A failed statement fails only its own request; an acknowledged create survives a
SIGKILL of the server under 64 concurrent writers."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.helpers import BACKENDS, Server, all_items, kill9, mk_group, mk_org, start_server, stop_server, unique

CLIENTS = 64


def _all_at_once(server: Server, names: list[str], parent: str) -> list[httpx.Response]:
    """One create per name, each from a client of its own, sent together (connected first, then a barrier)."""
    barrier = threading.Barrier(len(names))
    out: list[httpx.Response | None] = [None] * len(names)

    def one(i: int) -> None:
        with server.client(server.token) as c:
            c.get("/readyz")  # connected
            barrier.wait()
            out[i] = c.post(f"/registry/v2/repos/{parent}", json={"name": names[i]})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(names))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


def test_a_name_collision_fails_only_its_own_create(server: Server, org: str) -> None:
    names = [f"repo-{i}" for i in range(CLIENTS - 16)] + [f"dup-{i % 4}" for i in range(16)]
    random.Random(7).shuffle(names)
    results = _all_at_once(server, names, org)
    codes: dict[str, Counter[int]] = {}
    for name, r in zip(names, results, strict=True):
        codes.setdefault(name, Counter())[r.status_code] += 1
    for name, got in codes.items():
        assert got == (Counter({200: 1, 409: 3}) if name.startswith("dup-") else Counter({200: 1})), (name, got)
    created = {r.json()["uid"]: r.json()["name"] for r in results if r.status_code == 200}
    assert len(created) == CLIENTS - 12
    for uid, name in created.items():  # each acknowledged create is stored, as answered
        got = server.http.get(f"/registry/v2/repos/{uid}")
        assert got.status_code == 200 and got.json()["name"] == name
    listed, total = all_items(server.http, "/registry/v2/repos", "repos", **{"uidp.children_of": org})
    assert total == len(created) and {r["uid"] for r in listed} == set(created)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_under_64_concurrent_writers_loses_no_acknowledged_create(backend: str, tmp_path: Path) -> None:
    s = start_server(backend, tmp_path)
    org = mk_group(s.http, "", unique("org"))["uid"]
    acknowledged: list[str] = []
    lock = threading.Lock()
    enough = threading.Event()

    def writer(w: int) -> None:
        with s.client(s.token) as c:
            for i in range(10_000):
                try:
                    r = c.post(f"/registry/v2/repos/{org}", json={"name": f"w{w}-{i}"})
                except httpx.HTTPError:
                    return  # the server is gone
                assert r.status_code == 200, r.text
                with lock:
                    acknowledged.append(r.json()["uid"])
                    if len(acknowledged) >= 20 * CLIENTS:
                        enough.set()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(CLIENTS)]
    for t in threads:
        t.start()
    try:
        assert enough.wait(300), f"only {len(acknowledged)} creates acknowledged"
        kill9(s)  # in the middle of the writes: every writer has requests in flight
    finally:
        if s.process.poll() is None:
            kill9(s)
        for t in threads:
            t.join()
    s = start_server(backend, tmp_path, database_url=s.database_url)
    try:
        listed, _ = all_items(s.http, "/registry/v2/repos", "repos", page_size=200, **{"uidp.children_of": org})
        stored = {r["uid"] for r in listed}
        lost = set(acknowledged) - stored
        assert not lost, f"{len(lost)} of {len(acknowledged)} acknowledged creates lost"
    finally:
        stop_server(s)


def test_a_write_blocked_by_another_process_answers_unavailable_then_succeeds(tmp_path: Path) -> None:
    """Another process holding SQLite's write lock past the busy timeout: reads go on meanwhile, the create
    answers 503 UNAVAILABLE with Retry-After and stores nothing; the same request succeeds once the lock is
    free."""
    s = start_server("sqlite", tmp_path)
    try:
        org = mk_org(s.http)
        holder = sqlite3.connect(s.database_url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            answers: dict[str, httpx.Response] = {}

            def create() -> None:
                with s.client(s.token) as c:
                    answers["create"] = c.post(f"/registry/v2/repos/{org}", json={"name": "blocked"}, timeout=30)

            writer = threading.Thread(target=create)
            writer.start()
            time.sleep(0.5)  # the create is waiting for the lock: reads are served meanwhile
            read = s.http.get(f"/iam/v2/groups/{org}")
            assert read.status_code == 200 and "create" not in answers
            writer.join()
            r = answers["create"]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] == "1"
        body = r.json()
        assert body["code"] == 14 and body["details"][0]["reason"] == "NOTHING_STORED"
        listed, total = all_items(s.http, "/registry/v2/repos", "repos", **{"uidp.children_of": org})
        assert total == 0 and listed == []
        again = s.http.post(f"/registry/v2/repos/{org}", json={"name": "blocked"})
        assert again.status_code == 200, again.text
    finally:
        stop_server(s)
