"""The dispatcher in-process, on both backends, against a webhook receiver on loopback: a failed delivery
stays pending with its backoff recorded (the attempt, the count, the next due time, Retry-After honoured)
and fails after the last attempt; a dispatcher that lost its claim, or never held the SQLite dispatch
lease, neither delivers nor records anything."""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from platform_api.auth import keys
from platform_api.auth.keys import KeySet
from platform_api.core import clock
from platform_api.core.settings import Settings
from platform_api.events import dispatcher
from platform_api.events.dispatcher import Dispatcher
from platform_api.outbox import outbox
from platform_api.store import db as store
from platform_api.store.migrate import migrate
from tests.helpers import Receiver, receiver, scratch_database

ORG = secrets.token_hex(20)
SUB = ORG + "/" + "a" * 16


def settings(**over: Any) -> Settings:
    base: dict[str, Any] = {"insecure_allow_loopback": True, "delivery_poll_seconds": 0.1, "delivery_timeout": 5.0,
                            "delivery_max_attempts": 3, "delivery_backoff_scale": 1.0}  # fmt: skip
    return Settings(**{**base, **over})


async def add_delivery(db: Any, sink: str) -> str:
    """A subscription at ORG sending to `sink`, one event, and its pending delivery, due now; its uid."""
    now = clock.now()
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    event_id = secrets.token_hex(8)
    async with db.transaction() as tx:
        if await tx.fetchval("SELECT 1 FROM subscriptions WHERE uid = $1", SUB) is None:
            await tx.execute(
                "INSERT INTO subscriptions (uid, parent, create_time, update_time, body, sink, secret)"
                " VALUES ($1, $2, $3, $3, '{}', $4, $5)",
                SUB, ORG, now, sink, secret,
            )  # fmt: skip
        await tx.execute(
            "INSERT INTO events (id, type, source, subject, grp, time, bodytype, data, create_time)"
            " VALUES ($1, 'dev.test.api.iam.group.created', 'https://api.example/iam', $2, $2, $3, 'x', '{}', $3)",
            event_id, ORG, now,
        )  # fmt: skip
        d = await outbox.insert_delivery(tx, SUB, event_id, "dev.test.api.iam.group.created", ORG, now, time.time())
    return d.uid


async def row(db: Any, uid: str) -> dict[str, Any]:
    r = await db.fetchrow(
        "SELECT state, due, round_attempts, round_start, claimed_until, claim, body FROM deliveries WHERE uid = $1",
        uid,
    )
    names = ("state", "due", "round_attempts", "round_start", "claimed_until", "claim", "body")
    out = dict(zip(names, r, strict=True))
    out["body"] = msgspec.json.decode(out["body"])
    return out


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def run(backend: str, tmp: Path, body: Callable[[Any, Receiver], Awaitable[None]]) -> None:
    with scratch_database(backend, tmp) as url, receiver() as rx:

        async def go() -> None:
            db = await store.connect(url)
            try:
                await migrate(db)
                await keys.ensure(db)
                await body(db, rx)
            finally:
                await db.close()

        asyncio.run(go())


async def started(db: Any, s: Settings) -> Dispatcher:
    key_set = KeySet(db)
    await key_set.load()
    d = Dispatcher(db, s, key_set, "https://issuer.example")
    await d.start()
    return d


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_failed_attempts_are_retried_with_their_backoff_recorded(backend: str, tmp_path: Path) -> None:
    """500: pending again, due 30-60 s later (60 s x 3^0 with equal jitter); 503 with Retry-After: due then;
    the failure before the last attempt: due no earlier than 24 h after the round began; the fourth failure
    (delivery_max_attempts) is final. Every attempt is kept on the delivery."""
    answers = iter([(500, {}), (503, {"retry-after": "7200"}), (500, {}), (500, {})])

    async def body(db: Any, rx: Receiver) -> None:
        rx.behaviours["/hook"] = lambda n: next(answers)
        uid = await add_delivery(db, rx.url("/hook"))
        d = await started(db, settings(delivery_max_attempts=4))
        try:
            t0 = time.time()
            await until(lambda: _attempts_are(db, uid, 1))
            r = await row(db, uid)
            assert r["state"] == outbox.PENDING and r["round_attempts"] == 1
            assert t0 + 30 - 1 <= r["due"] <= time.time() + 60
            assert t0 - 1 <= r["round_start"] <= time.time()
            assert r["claim"] == "" and r["claimed_until"] == 0  # released for whichever dispatcher comes next
            assert r["body"]["state"] == "STATE_PENDING" and r["body"]["attemptCount"] == 1
            assert r["body"]["nextAttemptTime"] == clock.from_epoch(r["due"])
            [attempt] = r["body"]["attempts"]
            assert attempt["statusCode"] == 500 and attempt["error"] == "HTTP 500"
            assert len(rx.at("/hook")) == 1  # not retried before it is due

            round_start = r["round_start"]
            await db.execute("UPDATE deliveries SET due = 0 WHERE uid = $1", uid)  # the backoff has passed
            d.wake()
            await until(lambda: _attempts_are(db, uid, 2))
            r = await row(db, uid)
            assert r["state"] == outbox.PENDING and r["round_attempts"] == 2
            assert time.time() + 7200 - 5 <= r["due"] <= time.time() + 7200  # Retry-After replaces the backoff
            assert r["round_start"] == round_start
            assert [a["statusCode"] for a in r["body"]["attempts"]] == [500, 503]

            await db.execute("UPDATE deliveries SET due = 0 WHERE uid = $1", uid)
            d.wake()
            await until(lambda: _attempts_are(db, uid, 3))
            r = await row(db, uid)
            assert r["state"] == outbox.PENDING and r["due"] >= round_start + dispatcher.MIN_SPAN

            await db.execute("UPDATE deliveries SET due = 0 WHERE uid = $1", uid)
            d.wake()
            await until(lambda: _attempts_are(db, uid, 4))
            r = await row(db, uid)
            assert r["state"] == outbox.FAILED and r["round_attempts"] == 4
            assert r["body"]["state"] == "STATE_FAILED" and "nextAttemptTime" not in r["body"]
            assert [a["statusCode"] for a in r["body"]["attempts"]] == [500, 503, 500, 500]
            assert len(rx.at("/hook")) == 4
        finally:
            await d.stop()

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_sink_no_request_can_name_is_a_recorded_failed_attempt(backend: str, tmp_path: Path) -> None:
    """A sink stored before such URLs were refused (a space in its path): the attempt is recorded as failed,
    with its backoff, instead of escaping the dispatcher unrecorded and being claimed again and again."""

    async def body(db: Any, rx: Receiver) -> None:
        uid = await add_delivery(db, rx.url("/a b"))
        d = await started(db, settings())
        try:
            t0 = time.time()
            await until(lambda: _attempts_are(db, uid, 1))
            r = await row(db, uid)
            assert r["state"] == outbox.PENDING and r["due"] >= t0 + 30 - 1
            [attempt] = r["body"]["attempts"]
            assert attempt.get("statusCode", 0) == 0 and "visible ASCII" in attempt["error"], attempt
            assert rx.at("/a b") == [] and rx.at("/a%20b") == []
        finally:
            await d.stop()

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_any_local_error_in_an_attempt_is_recorded_with_backoff(backend: str, tmp_path: Path) -> None:
    """An error of our own while sending (here the client raising something unexpected) is a failed attempt
    like a refused connection: recorded, then retried after the backoff."""

    async def body(db: Any, rx: Receiver) -> None:
        uid = await add_delivery(db, rx.url("/hook"))
        d = await started(db, settings())

        async def broken(*_: Any) -> Any:
            raise RuntimeError("boom")

        d.http.post = broken  # type: ignore[method-assign]
        try:
            t0 = time.time()
            await until(lambda: _attempts_are(db, uid, 1))
            r = await row(db, uid)
            assert r["state"] == outbox.PENDING and r["due"] >= t0 + 30 - 1
            [attempt] = r["body"]["attempts"]
            assert attempt["error"] == "local error: RuntimeError: boom", attempt
        finally:
            await d.stop()

    run(backend, tmp_path, body)


async def _attempts_are(db: Any, uid: str, n: int) -> bool:
    return int(await db.fetchval("SELECT round_attempts FROM deliveries WHERE uid = $1", uid)) == n


def test_the_retry_schedule_grows_and_keeps_the_minimum_span() -> None:
    s = settings(delivery_max_attempts=10)
    low, high = (lambda: 0.0), (lambda: 1.0)
    assert [dispatcher.retry_delay(n, 1.0, high) for n in (1, 2, 3)] == [60.0, 180.0, 540.0]
    assert dispatcher.retry_delay(1, 1.0, low) == 30.0
    assert dispatcher.retry_delay(20, 1.0, high) == dispatcher.MAX_DELAY
    # The last attempt of a round is never earlier than 24 h after its first.
    assert dispatcher.next_due(9, 1000.0, 2000.0, s, None, low) == 1000.0 + 24 * 3600
    assert dispatcher.next_due(3, 1000.0, 2000.0, s, 99999.0) == 2000.0 + dispatcher.MAX_RETRY_AFTER


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_result_is_not_recorded_once_the_claim_was_taken(backend: str, tmp_path: Path) -> None:
    """While an attempt is in flight its claim lapses and another dispatcher claims the delivery: the
    answer that then arrives is not written (the write is fenced by the claim), so it cannot overwrite
    the new holder's work."""
    entered, release = threading.Event(), threading.Event()

    def slow(n: int) -> tuple[int, dict[str, str]]:
        entered.set()
        release.wait(10)
        return 200, {}

    async def body(db: Any, rx: Receiver) -> None:
        rx.behaviours["/slow"] = slow
        uid = await add_delivery(db, rx.url("/slow"))
        d = await started(db, settings())
        try:
            assert await asyncio.to_thread(entered.wait, 10)
            mine = await row(db, uid)
            assert mine["claim"] == d.id and mine["claimed_until"] > time.time()
            await db.execute(
                "UPDATE deliveries SET claim = 'elsewhere:1:feed', claimed_until = $2 WHERE uid = $1",
                uid, time.time() + 600,
            )  # fmt: skip
            release.set()
        finally:
            await d.stop()  # finishes the attempt in flight and its (fenced) write
        r = await row(db, uid)
        assert len(rx.at("/slow")) == 1
        assert r["claim"] == "elsewhere:1:feed" and r["state"] == outbox.PENDING
        assert r["round_attempts"] == 0 and r["body"]["state"] == "STATE_PENDING"
        assert r["body"].get("attempts", []) == [] and r["body"].get("attemptCount", 0) == 0

    run(backend, tmp_path, body)


def test_without_the_sqlite_lease_a_dispatcher_does_not_deliver(tmp_path: Path) -> None:
    """SQLite runs one dispatcher per database: while another live holder has the lease nothing is claimed
    or sent; once that lease runs out, this dispatcher takes it and delivers."""

    async def body(db: Any, rx: Receiver) -> None:
        assert db.claims_need_lease
        await db.execute("UPDATE dispatcher_lease SET holder = $1, until = $2 WHERE id = 1",
                         "another-host:1:beef", time.time() + 600)  # fmt: skip
        uid = await add_delivery(db, rx.url("/hook"))
        d = await started(db, settings())
        try:
            await asyncio.sleep(1.0)
            r = await row(db, uid)
            assert rx.at("/hook") == [] and r["claim"] == "" and r["state"] == outbox.PENDING
            assert await db.fetchval("SELECT holder FROM dispatcher_lease WHERE id = 1") == "another-host:1:beef"

            await db.execute("UPDATE dispatcher_lease SET until = 0 WHERE id = 1")  # the holder stopped renewing
            await until(lambda: _state_is(db, uid, outbox.DELIVERED), timeout=dispatcher.SQLITE_LEASE_SECONDS)
            assert len(rx.wait("/hook", 1)) == 1
            assert await db.fetchval("SELECT holder FROM dispatcher_lease WHERE id = 1") == d.id
        finally:
            await d.stop()

    run("sqlite", tmp_path, body)


async def _state_is(db: Any, uid: str, state: int) -> bool:
    return int(await db.fetchval("SELECT state FROM deliveries WHERE uid = $1", uid)) == state
