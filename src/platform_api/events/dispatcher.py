"""The dispatcher: claims due deliveries from the outbox and POSTs them to their sinks (CloudEvents over HTTP).

Delivery is at least once, in CloudEvents binary mode: `Ce-*` headers, the stored JSON body, a bearer
JWT of our issuer (`aud` customer, `sub` webhook:<subscription's group>, `webhook.digest` = SHA-256 of
the exact body) and Standard Webhooks signature headers (HMAC-SHA256 with the subscription's secret).

Claiming: a claim sets `claimed_until` (a lease longer than any attempt can take) and `claim` (this
dispatcher's id) on due pending rows; on PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`, so any
number of dispatchers on one database never make the same attempt twice, and a crashed claimer's rows
come back when the lease runs out. Results are written back fenced by the claim id. SQLite runs one
dispatcher per database: the holder of the `dispatcher_lease` row (a dead holder on this host is
replaced at once, its claims voided).

Wake-ups: PostgreSQL NOTIFY (sent at commit by every emit), this process's emits, the next due time,
and a poll every `delivery_poll_seconds`.

Retries: attempt 1 at once; after the n-th failure of a round the next attempt waits
min(8 h, 60 s * 3^(n-1)) with equal jitter (a uniformly random 50-100 % of it), times
`delivery_backoff_scale`; a Retry-After answer (seconds or HTTP date, at most 8 h) replaces that delay;
the last attempt is never earlier than 24 h after the first. With the default 10 attempts the schedule
spans 24-30 h. 2xx: delivered. 410 Gone: the subscription is disabled and its pending deliveries end.
Anything else (status, timeout, connection error, refused address) is retried; after the last attempt
the delivery is FAILED (RedeliverEvent starts a new round).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import email.utils
import hashlib
import hmac
import logging
import os
import random
import secrets
import signal
import socket
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec

from platform_api.auth import issuer, keys
from platform_api.auth.keys import KeySet
from platform_api.core import clock, metrics, uidp
from platform_api.core.settings import Settings
from platform_api.events import sinks, webhook_http
from platform_api.gen.records.events_v2 import Delivery, DeliveryAttempt
from platform_api.outbox import outbox, queries
from platform_api.store import Unavailable, rows
from platform_api.store import db as store
from platform_api.store.db import Database
from platform_api.store.migrate import migrate

log = logging.getLogger(__name__)

BASE_DELAY = 60.0
FACTOR = 3.0
MAX_DELAY = 8 * 3600.0
MIN_SPAN = 24 * 3600.0
MAX_RETRY_AFTER = 8 * 3600.0
TOKEN_SECONDS = 300
SQLITE_LEASE_SECONDS = 15.0
PRUNE_EVERY_SECONDS = 600.0
MAX_RESPONSE_READ = 64 * 1024
MAX_ATTEMPTS_KEPT = 100
AUDIENCE = "customer"


def retry_delay(n: int, scale: float, rng: Any = random.random) -> float:
    """Seconds to wait after the n-th failed attempt of a round (n >= 1)."""
    d = min(MAX_DELAY, BASE_DELAY * FACTOR ** (n - 1))
    return float(scale * d * (0.5 + 0.5 * rng()))


def next_due(
    n: int, round_start: float, now: float, settings: Settings, retry_after: float | None, rng: Any = random.random
) -> float:
    """When the attempt after the n-th failure is due."""
    if retry_after is not None:
        due = now + min(max(retry_after, 0.0), MAX_RETRY_AFTER)
    else:
        due = now + retry_delay(n, settings.delivery_backoff_scale, rng)
    if n == settings.delivery_max_attempts - 1:
        due = max(due, round_start + MIN_SPAN * settings.delivery_backoff_scale)
    return due


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@cache
def user_agent() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"platform-api/{version('platform-api')}"
    except PackageNotFoundError:
        return "platform-api"


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """Standard Webhooks `webhook-signature`: v1,<base64 HMAC-SHA256 of "id.timestamp.body">."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


@dataclass
class Event:
    id: str
    type: str
    source: str
    subject: str
    group: str
    time: str
    bodytype: str
    extensions: dict[str, str]
    data: bytes


@dataclass
class Claimed:
    uid: str
    subscription: str
    event_id: str
    body: str
    round_attempts: int
    round_start: float


@dataclass
class Sink:
    uid: str
    url: str
    secret: str
    disabled: bool


def _alive(holder: str) -> bool:
    """Whether a lease holder (host:pid:nonce) may still run; False only when it surely does not."""
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class Dispatcher:
    def __init__(self, db: Database, settings: Settings, keys: KeySet, issuer: str = ""):
        self.db = db
        self.settings = settings
        self.keys = keys
        self.issuer = issuer or settings.issuer
        self.id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        # The claim lease outlasts any attempt (bounded by delivery_timeout) and the write of its result.
        self.claim_seconds = 2 * settings.delivery_timeout + 5.0
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._inflight: set[asyncio.Task[None]] = set()
        self.http = webhook_http.Client(
            settings.delivery_connect_timeout, settings.delivery_concurrency, MAX_RESPONSE_READ
        )
        self._listener: Any = None  # a store Listener on outbox.CHANNEL, from start()
        # Where claimers cannot skip each other's rows (SQLite), one dispatcher claims: the lease holder.
        self._leader = not db.claims_need_lease
        self._lease_renew_at = 0.0
        self._pruned_at = time.monotonic()
        # Results of attempts, written in batches: one transaction (one commit) for all that finished meanwhile.
        self._results: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._results_ready = asyncio.Event()
        self._closing = False
        self._writer: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        self._listener = await self.db.listen(outbox.CHANNEL, self.wake)
        self._writer = asyncio.get_running_loop().create_task(self._write_results())
        self._task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        """Stop claiming; finish the deliveries in flight."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
        self._closing = True
        self._results_ready.set()
        if self._writer is not None:
            await self._writer
        await self.http.close()
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await listener.close()
        if self.db.claims_need_lease and self._leader:
            with contextlib.suppress(Exception):
                await self.db.execute("UPDATE dispatcher_lease SET until = 0 WHERE id = 1 AND holder = $1", self.id)

    async def run_forever(self) -> None:
        await self.start()
        assert self._task is not None
        await self._task

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self._step()
            except Unavailable:  # the database is down: the store logs the outage once; try again shortly
                await self._sleep(1.0)
            except Exception:
                log.exception("event dispatcher step failed")
                await self._sleep(1.0)
        if self._inflight:
            await asyncio.wait(self._inflight, timeout=self.settings.delivery_timeout + 5)

    async def _sleep(self, seconds: float) -> None:
        """Until woken (NOTIFY, this process's emits) or `seconds` pass. SQLite also wakes when any process
        commits (the listener polls the commit counter every 20 ms: a `platform-api dispatch` process sees
        the server's writes)."""
        if self._listener is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(seconds, 0.0))
            return
        await self._listener.wait(self._wake, seconds)

    # ------------------------------------------------------------------ the loop

    async def _step(self) -> None:
        self._wake.clear()
        now = time.time()
        if self.db.claims_need_lease and not await self._lease(now):
            await self._sleep(SQLITE_LEASE_SECONDS / 3)
            return
        await self.keys.refresh_if_stale()
        if time.monotonic() - self._pruned_at > PRUNE_EVERY_SECONDS:
            self._pruned_at = time.monotonic()
            await self.prune()
        room = self.settings.delivery_concurrency - len(self._inflight)
        if room > 0:
            claimed = await self._claim(room, now)
            if claimed:
                await self._start_deliveries(claimed)
                if len(claimed) == room:
                    return  # more may be due: claim again as soon as a slot frees (or at once)
        wait = self.settings.delivery_poll_seconds
        if room > 0:
            due = await queries.next_due(self.db, time.time())
            if due is not None:
                wait = min(wait, due - time.time())
        if self.db.claims_need_lease:
            wait = min(wait, self._lease_renew_at - time.time())
        await self._sleep(wait)

    async def _lease(self, now: float) -> bool:
        """SQLite: hold (or take) the single-dispatcher lease."""
        if now < self._lease_renew_at:
            return self._leader  # held, or someone else's: look again when it is time to renew
        async with self.db.transaction() as tx:
            row = await tx.fetchrow("SELECT holder, until FROM dispatcher_lease WHERE id = 1")
            holder, until = (row["holder"], float(row["until"])) if row is not None else ("", 0.0)
            dead = bool(holder) and holder != self.id and not _alive(holder)
            leader = holder == self.id or until < now or dead
            if leader:
                await tx.execute(
                    "UPDATE dispatcher_lease SET holder = $1, until = $2 WHERE id = 1",
                    self.id,
                    now + SQLITE_LEASE_SECONDS,
                )
                if dead:  # its attempts died with it: they are due again now
                    await queries.release_claims(tx, holder)
        if leader and not self._leader:
            log.info("event dispatcher %s holds the SQLite dispatch lease", self.id)
        self._leader = leader
        self._lease_renew_at = now + SQLITE_LEASE_SECONDS / 3
        return leader

    async def _claim(self, limit: int, now: float) -> list[Claimed]:
        found = await queries.claim(self.db, self.id, now + self.claim_seconds, now, limit)
        return [
            Claimed(r["uid"], r["parent"], r["event_id"], r["body"], int(r["round_attempts"]), float(r["round_start"]))
            for r in found
        ]

    async def _start_deliveries(self, claimed: list[Claimed]) -> None:
        events = await self._events({c.event_id for c in claimed})
        subs = await self._sinks({c.subscription for c in claimed})
        loop = asyncio.get_running_loop()
        for c in claimed:
            task = loop.create_task(self._deliver(c, events.get(c.event_id), subs.get(c.subscription)))
            self._inflight.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._inflight.discard(task)
        self._wake.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("delivery failed unexpectedly", exc_info=task.exception())

    async def _events(self, ids: set[str]) -> dict[str, Event]:
        found = await queries.events(self.db, ids)
        return {
            r["id"]: Event(
                r["id"],
                r["type"],
                r["source"],
                r["subject"],
                r["grp"],
                r["time"],
                r["bodytype"],
                msgspec.json.decode(r["extensions"]),
                r["data"].encode(),
            )
            for r in found
        }

    async def _sinks(self, uids: set[str]) -> dict[str, Sink]:
        found = await queries.sinks(self.db, uids)
        return {r["uid"]: Sink(r["uid"], r["sink"], r["secret"], bool(r["disabled"])) for r in found}

    # ------------------------------------------------------------------ one attempt

    def headers(self, ev: Event, sink: Sink, now: int) -> dict[str, str]:
        digest = hashlib.sha256(ev.data).hexdigest()
        token = self.keys.sign(
            {
                "iss": self.issuer,
                "aud": AUDIENCE,
                "sub": f"webhook:{uidp.parent(sink.uid)}",
                "iat": now,
                "exp": now + TOKEN_SECONDS,
                "webhook.digest": f"sha256:{digest}",
            }
        )
        h = {
            "content-type": "application/json",
            "ce-specversion": "1.0",
            "ce-id": ev.id,
            "ce-type": ev.type,
            "ce-source": ev.source,
            "ce-time": ev.time,
            "ce-audience": AUDIENCE,
            "ce-bodytype": ev.bodytype,
        }
        if ev.subject:
            h["ce-subject"] = ev.subject
        if ev.group:
            h["ce-group"] = ev.group
        for k, v in ev.extensions.items():
            h[f"ce-{k}"] = v
        h["authorization"] = f"Bearer {token}"
        h["user-agent"] = user_agent()
        h["webhook-id"] = ev.id
        h["webhook-timestamp"] = str(now)
        h["webhook-signature"] = signature(sink.secret, ev.id, now, ev.data)
        return h

    async def _post(self, ev: Event, sink: Sink) -> tuple[int, str, float | None]:
        """(status, error, retry_after) of one POST; status 0 when no answer arrived."""
        try:
            async with asyncio.timeout(self.settings.delivery_timeout):
                target = await sinks.resolve(sink.url, self.settings)
                response = await self.http.post(target, self.headers(ev, sink, int(time.time())), ev.data)
        except sinks.SinkRefused as e:
            return 0, f"refused: {e}", None
        except TimeoutError:
            return 0, f"timed out after {self.settings.delivery_timeout:g}s", None
        except (OSError, EOFError, ValueError, webhook_http.ProtocolError) as e:
            return 0, f"{type(e).__name__}: {e}".rstrip(": "), None
        except Exception as e:
            # Anything else is still a failed attempt, recorded and retried with backoff: an error escaping
            # here would leave the claim to lapse and the delivery to loop with no attempt on record.
            log.warning("delivery %s to subscription %s failed locally", ev.id, sink.uid, exc_info=True)
            return 0, f"local error: {type(e).__name__}: {e}".rstrip(": "), None
        status = response.status
        error = "" if 200 <= status < 300 else f"HTTP {status}"
        return status, error, parse_retry_after(response.headers.get("retry-after"))

    async def _deliver(self, c: Claimed, ev: Event | None, sink: Sink | None) -> None:
        if sink is None or ev is None:
            # The subscription was deleted (its deliveries with it) or the event pruned: nothing to do.
            metrics.count(metrics.delivery("dropped"))
            await queries.drop_claimed(self.db, c.uid, self.id, outbox.FAILED)
            return
        if sink.disabled:
            metrics.count(metrics.delivery("dropped"))
            await self._finish(c, None, outbox.DISABLED, 0.0)
            return
        started = time.time()
        t0 = time.perf_counter()
        status, error, retry_after = await self._post(ev, sink)
        latency = time.perf_counter() - t0
        attempt = DeliveryAttempt(time=clock.from_epoch(started), status_code=status,
                                  latency=_duration(latency), error=error)  # fmt: skip
        n = c.round_attempts + 1
        round_start = c.round_start or started
        now = time.time()
        if 200 <= status < 300:
            metrics.count(metrics.delivery("delivered"))
            await self._finish(c, attempt, outbox.DELIVERED, 0.0, n, round_start)
        elif status == 410:
            metrics.count(metrics.delivery("gone"))
            await self._gone(c, attempt, n, round_start)
        elif n >= self.settings.delivery_max_attempts:
            metrics.count(metrics.delivery("failed"))
            await self._finish(c, attempt, outbox.FAILED, 0.0, n, round_start)
        else:
            metrics.count(metrics.delivery("retry"))
            due = next_due(n, round_start, now, self.settings, retry_after)
            await self._finish(c, attempt, outbox.PENDING, due, n, round_start)

    def _updated(self, c: Claimed, attempt: DeliveryAttempt | None, state: int, due: float) -> tuple[Delivery, str]:
        d = rows.decode(Delivery, c.body)
        now = clock.now()
        if attempt is not None:
            d.attempts = [*d.attempts, attempt][-MAX_ATTEMPTS_KEPT:]
            d.attempt_count += 1
        d.state = outbox.STATE_NAMES[state]  # type: ignore[assignment]
        d.next_attempt_time = clock.from_epoch(due) if state == outbox.PENDING else None
        d.update_time = now
        return d, now

    async def _finish(
        self, c: Claimed, attempt: DeliveryAttempt | None, state: int, due: float, n: int = 0, start: float = 0.0
    ) -> None:
        d, now = self._updated(c, attempt, state, due)
        args = (c.uid, self.id, state, due, n or c.round_attempts, start or c.round_start, now, rows.body(d))
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._results.append((args, done))
        self._results_ready.set()
        await done

    async def _write_results(self) -> None:
        while True:
            await self._results_ready.wait()
            self._results_ready.clear()
            batch, self._results = self._results, []
            if batch:
                try:
                    await queries.record_results(self.db, [args for args, _ in batch])
                except Exception as e:  # the claims lapse and the attempts are made again
                    if not isinstance(e, Unavailable):  # an outage is logged once, by the store
                        log.exception("recording %d delivery results failed", len(batch))
                    for _, done in batch:
                        done.set_exception(e)
                else:
                    for _, done in batch:
                        done.set_result(None)
            if self._closing and not self._results:
                return

    async def _gone(self, c: Claimed, attempt: DeliveryAttempt, n: int, start: float) -> None:
        """410 Gone: this delivery ends, the subscription is disabled, its other pending deliveries end."""
        d, now = self._updated(c, attempt, outbox.DISABLED, 0.0)
        async with self.db.transaction() as tx:
            await queries.end_claimed(tx, c.uid, self.id, outbox.DISABLED, n, start, now, rows.body(d))
            if await queries.disable_subscription(tx, c.subscription, now) is not None:
                log.warning("subscription %s disabled: its sink answered 410 Gone", c.subscription)
            await outbox.cancel_pending(tx, c.subscription, now)

    # ------------------------------------------------------------------ retention

    async def prune(self) -> None:
        """Drop finished deliveries, and events none of which is pending, older than the retention."""
        cutoff = clock.from_epoch(time.time() - self.settings.event_retention_days * 86400)
        async with self.db.transaction() as tx:
            await queries.prune(tx, cutoff)


def _duration(seconds: float) -> str:
    """protobuf JSON Duration with millisecond precision: '0.012s', '3s'."""
    ms = round(seconds * 1000)
    whole, frac = divmod(ms, 1000)
    return f"{whole}s" if frac == 0 else f"{whole}.{frac:03d}s"


async def run(settings: Settings, explicit_issuer: bool = False) -> None:
    """`platform-api dispatch`: the dispatcher alone, until SIGINT/SIGTERM."""
    database = await store.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    try:
        await migrate(database)
        await keys.ensure(database)
        key_set = KeySet(database)
        await key_set.load()
        # The issuer `serve` recorded, unless given: receivers verify `iss` against our discovery document.
        url = await issuer.issuer_of(database, settings, explicit_issuer)
        dispatcher = Dispatcher(database, settings, key_set, url)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await dispatcher.start()
        log.info("event dispatcher %s running on %s", dispatcher.id, database.name)
        await stop.wait()
        await dispatcher.stop()
    finally:
        await database.close()
