"""Events across process lifetimes: a server killed with SIGKILL between commit and delivery, or during a
delivery, loses no event; a graceful stop finishes deliveries in flight; several processes on one
database deliver each attempt once.
"""

from __future__ import annotations

import collections
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import BACKENDS, EVENT_ENV, Receiver, Server, kill9, ok, start_events_server, stop_server

PREFIX = "local.platform-api.api."


def setup_org(s: Server, sink: str) -> tuple[str, dict[str, Any]]:
    org = ok(s.http.post("/iam/v2/groups/", json={"name": "org-" + secrets.token_hex(4)}))["uid"]
    sub = ok(
        s.http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink, "types": [PREFIX + "iam.group.created.v1"]})
    )
    return org, sub


def make_groups(s: Server, org: str, n: int) -> list[str]:
    return [ok(s.http.post(f"/iam/v2/groups/{org}", json={"name": f"g{i}"}))["uid"] for i in range(n)]


def delivery_states(s: Server, sub: str) -> collections.Counter[str]:
    body = ok(s.http.get("/events/v2/deliveries", params={"uidp.children_of": sub, "page_size": 200}))
    return collections.Counter(d["state"] for d in body.get("deliveries", []))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_between_commit_and_delivery_loses_nothing(backend: str, tmp_path: Path, rx: Receiver) -> None:
    s = start_events_server(backend, tmp_path, "--no-dispatcher")
    p = "/crash/" + secrets.token_hex(4)
    org, _ = setup_org(s, rx.url(p))
    committed = make_groups(s, org, 20)  # each answered 200: committed, with its event in the outbox
    kill9(s)
    assert rx.at(p) == []
    s = start_events_server(backend, tmp_path, database_url=s.database_url)
    try:
        got = rx.wait(p, len(committed))
        time.sleep(0.5)
        subjects = collections.Counter(r.ce("subject") for r in rx.at(p))
        assert set(subjects) == set(committed)
        assert all(n == 1 for n in subjects.values())
        assert len({r.ce("id") for r in got}) == len(committed)
    finally:
        stop_server(s)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_during_delivery_redelivers(backend: str, tmp_path: Path, rx: Receiver) -> None:
    """At least once: an attempt whose dispatcher died is made again (same Ce-Id) once its claim lapses:
    at once on SQLite (the dead lease holder is detected), after the claim lease (2 * 3 s + 5 s) on
    PostgreSQL, where the claimer might be alive on another host."""
    s = start_events_server(backend, tmp_path)
    p = "/slow/" + secrets.token_hex(4)
    rx.behaviours[p] = lambda n: (time.sleep(2), (200, {}))[1] if n == 1 else (200, {})
    org, sub = setup_org(s, rx.url(p))
    (g,) = make_groups(s, org, 1)
    rx.wait(p, 1)  # the first attempt is in flight (the receiver holds it, within the 3 s timeout)
    kill9(s)
    killed = time.time()
    s = start_events_server(backend, tmp_path, database_url=s.database_url)
    try:
        first, second = rx.wait(p, 2, timeout=30)
        assert first.ce("id") == second.ce("id") and second.ce("subject") == g
        assert second.at > killed
        for _ in range(100):
            if delivery_states(s, sub["uid"]) == {"STATE_DELIVERED": 1}:
                break
            time.sleep(0.1)
        assert delivery_states(s, sub["uid"]) == {"STATE_DELIVERED": 1}
    finally:
        stop_server(s)


@pytest.mark.parametrize("backend", BACKENDS)
def test_graceful_stop_finishes_deliveries_in_flight(backend: str, tmp_path: Path, rx: Receiver) -> None:
    s = start_events_server(backend, tmp_path)
    p = "/graceful/" + secrets.token_hex(4)
    rx.behaviours[p] = lambda n: (time.sleep(1.5), (200, {}))[1]
    org, sub = setup_org(s, rx.url(p))
    make_groups(s, org, 1)
    rx.wait(p, 1)
    stop_server(s, drop=False)  # SIGTERM while the sink is still answering
    s = start_events_server(backend, tmp_path, "--no-dispatcher", database_url=s.database_url)
    try:
        states = ok(s.http.get("/events/v2/deliveries", params={"uidp.children_of": sub["uid"]}))["deliveries"]
        assert [d["state"] for d in states] == ["STATE_DELIVERED"] and states[0]["attemptCount"] == 1
        assert len(rx.at(p)) == 1
    finally:
        stop_server(s)


@pytest.mark.parametrize("backend", BACKENDS)
def test_several_processes_deliver_each_event_once(backend: str, tmp_path: Path, rx: Receiver) -> None:
    """Two servers (and on PostgreSQL a `platform-api dispatch` worker too) on one database."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = start_events_server(backend, tmp_path / "a")
    b = start_events_server(backend, tmp_path / "b", database_url=a.database_url)
    worker = None
    if backend == "postgres":
        env = {**os.environ, **EVENT_ENV, "PLATFORM_API_LOG_LEVEL": "warning"}
        cmd = [sys.executable, "-m", "platform_api.cli", "dispatch", "--insecure-allow-loopback",
               "--database", a.database_url]  # fmt: skip
        worker = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p = "/many/" + secrets.token_hex(4)
        org, _ = setup_org(a, rx.url(p))
        created = []
        for i in range(30):
            for s in (a, b):
                created.append(ok(s.http.post(f"/iam/v2/groups/{org}", json={"name": f"{s.base_url[-5:]}-{i}"}))["uid"])
        rx.wait(p, len(created))
        time.sleep(1.0)
        ids = collections.Counter(r.ce("id") for r in rx.at(p))
        assert len(ids) == len(created) and set(ids.values()) == {1}, ids.most_common(3)
        assert {r.ce("subject") for r in rx.at(p)} == set(created)
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=20)
        stop_server(b, drop=False)
        stop_server(a)
