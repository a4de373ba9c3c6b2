"""All SQL on the events domain's shared tables: `subscriptions`, `deliveries` and `events` (the outbox, the
dispatcher and the Subscriptions/Deliveries RPCs all work with them). `dispatcher_lease` has one user and
stays in `dispatcher.py`.

Ownership rule (every domain, see `iam/queries.py`): each table has one owning module in its domain package
and only that module has SQL on it (including the generic statements `service.crud`, `storage.get` and
`listing` build from the owner's table name); every other module calls the owner's functions.
"""

from __future__ import annotations

from typing import Any

from platform_api.gen.records.events_v2 import Delivery, Subscription
from platform_api.service import crud, listing
from platform_api.store import rows
from platform_api.store.db import Conn, Database, Row

SUBSCRIPTION = "chainguard.platform.events.v2.Subscription"
DELIVERY = "chainguard.platform.events.v2.Delivery"
PENDING = 1  # deliveries.state of a delivery still to be made (the partial index's)
_ORDER = {"uid": "uid", "created_at": "create_time", "updated_at": "update_time"}
# The outbox's emit is handed to the RPC shapes by the callers (it writes these tables through this module).
SUBSCRIPTIONS = crud.Resource("subscriptions", Subscription, SUBSCRIPTION)
DELIVERIES = crud.Resource("deliveries", Delivery, DELIVERY)
SUBSCRIPTIONS_TABLE = listing.Table("subscriptions", order_keys=_ORDER)
DELIVERIES_TABLE = listing.Table("deliveries", order_keys=_ORDER)


async def any_subscription_in(conn: Conn, group: str) -> bool:
    return await SUBSCRIPTIONS.any_where(conn, "parent", group)


# ------------------------------------------------------------------ subscriptions


async def insert_subscription(tx: Conn, sub: Subscription, parent: str, secret: str) -> None:
    await tx.execute(
        "INSERT INTO subscriptions (uid, parent, create_time, update_time, body, sink, types, disabled, secret)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        sub.uid, parent, sub.create_time, sub.update_time, rows.body(sub), sub.sink, rows.body(sub.types),
        int(sub.disabled), secret,
    )  # fmt: skip


def subscription_columns(sub: Subscription) -> dict[str, Any]:
    """The indexed copies of the record's fields (UpdateSubscription writes them with the body)."""
    return {"sink": sub.sink, "types": rows.body(sub.types), "disabled": int(sub.disabled)}


async def subscribers(tx: Conn, scopes: list[str]) -> list[tuple[str, str]]:
    """(uid, types as JSON) of the enabled subscriptions at any of `scopes`."""
    sql = "SELECT uid, types FROM subscriptions WHERE parent = ANY($1) AND disabled = 0"
    return [(r["uid"], r["types"]) for r in await tx.fetch(sql, list(scopes))]


async def sinks(db: Conn, uids: set[str]) -> list[Row]:
    """uid, sink, secret and disabled of the subscriptions among `uids`."""
    found: list[Row] = await db.fetch(
        "SELECT uid, sink, secret, disabled FROM subscriptions WHERE uid = ANY($1)", list(uids)
    )
    return found


async def disable_subscription(tx: Conn, uid: str, now: str) -> Subscription | None:
    """Disables the subscription (its sink is gone); the record when this changed it."""
    body = await tx.fetchval("SELECT body FROM subscriptions WHERE uid = $1" + rows.for_update(tx), uid)
    if body is None:
        return None
    sub = rows.decode(Subscription, body)
    if sub.disabled:
        return None
    sub.disabled, sub.update_time = True, now
    await tx.execute(
        "UPDATE subscriptions SET disabled = 1, update_time = $2, body = $3 WHERE uid = $1",
        sub.uid, now, rows.body(sub),
    )  # fmt: skip
    return sub


# ------------------------------------------------------------------ events


async def insert_event(tx: Conn, *values: Any) -> None:
    """id, type, source, subject, grp, time, bodytype, extensions, data, create_time."""
    await tx.execute(
        "INSERT INTO events (id, type, source, subject, grp, time, bodytype, extensions, data, create_time)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        *values,
    )


async def event_exists(conn: Conn, event_id: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM events WHERE id = $1", event_id) is not None


async def events(db: Conn, ids: set[str]) -> list[Row]:
    found: list[Row] = await db.fetch(
        "SELECT id, type, source, subject, grp, time, bodytype, extensions, data FROM events WHERE id = ANY($1)",
        list(ids),
    )
    return found


async def prune(tx: Conn, cutoff: str) -> None:
    """Drop finished deliveries, and events none of which is pending, last updated before `cutoff`."""
    await tx.execute("DELETE FROM deliveries WHERE state <> 1 AND update_time < $1", cutoff)
    await tx.execute(
        "DELETE FROM events WHERE create_time < $1"
        " AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_id = events.id)",
        cutoff,
    )


# ------------------------------------------------------------------ deliveries


async def insert_delivery(tx: Conn, d: Delivery, subscription: str, state: int, due: float) -> None:
    await tx.execute(
        "INSERT INTO deliveries (uid, parent, event_id, state, due, create_time, update_time, body)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        d.uid, subscription, d.event_id, state, due, d.create_time, d.update_time, rows.body(d),
    )  # fmt: skip


async def pending_count(db: Conn) -> int:
    return int(await db.fetchval("SELECT COUNT(*) FROM deliveries WHERE state = 1") or 0)


async def pending_of(tx: Conn, subscription: str) -> list[tuple[str, str]]:
    """(uid, body) of the subscription's pending deliveries."""
    sql = "SELECT uid, body FROM deliveries WHERE parent = $1 AND state = $2"
    return [(r["uid"], r["body"]) for r in await tx.fetch(sql, subscription, PENDING)]


async def end_unclaimed(tx: Conn, uid: str, state: int, now: str, body: str) -> None:
    """A delivery ends in `state` without an attempt (its subscription was disabled)."""
    await tx.execute(
        "UPDATE deliveries SET state = $2, update_time = $3, body = $4, claimed_until = 0, claim = ''"
        " WHERE uid = $1",
        uid, state, now, body,
    )  # fmt: skip


async def delivery_of_event(tx: Conn, subscription: str, event_id: str) -> Delivery | None:
    """The subscription's delivery of the event, locked until the transaction ends."""
    body = await tx.fetchval(
        "SELECT body FROM deliveries WHERE parent = $1 AND event_id = $2" + rows.for_update(tx),
        subscription, event_id,
    )  # fmt: skip
    return None if body is None else rows.decode(Delivery, body)


async def reschedule(tx: Conn, d: Delivery, state: int, due: float) -> None:
    """The delivery is due again at `due` with a fresh retry budget (its attempts stay on record)."""
    await tx.execute(
        "UPDATE deliveries SET state = $2, due = $3, round_attempts = 0, round_start = 0, update_time = $4,"
        " body = $5 WHERE uid = $1",
        d.uid, state, due, d.update_time, rows.body(d),
    )  # fmt: skip


async def next_due(db: Conn, now: float) -> float | None:
    """When the earliest unclaimed pending delivery is due."""
    due = await db.fetchval("SELECT MIN(due) FROM deliveries WHERE state = 1 AND claimed_until <= $1", now)
    return None if due is None else float(due)


async def release_claims(tx: Conn, holder: str) -> None:
    """A dead dispatcher's claims: due again now."""
    await tx.execute("UPDATE deliveries SET claimed_until = 0, claim = '' WHERE claim = $1", holder)


async def claim(db: Database, holder: str, until: float, now: float, limit: int) -> list[Row]:
    """Claims up to `limit` due deliveries for `holder` until `until`: uid, parent, event_id, body,
    round_attempts, round_start of each."""
    pick = "SELECT uid FROM deliveries WHERE state = 1 AND due <= $3 AND claimed_until <= $3 ORDER BY due LIMIT $4"
    sql = (
        "UPDATE deliveries SET claimed_until = $1, claim = $2 WHERE uid IN ({pick})"
        " RETURNING uid, parent, event_id, body, round_attempts, round_start"
    )
    found: list[Row] = await db.claim(sql, pick, until, holder, now, limit)
    return found


async def drop_claimed(db: Conn, uid: str, holder: str, state: int) -> None:
    """A claimed delivery that cannot be made (its subscription or event is gone) ends in `state`."""
    await db.execute(
        "UPDATE deliveries SET claimed_until = 0, claim = '', state = $3 WHERE uid = $1 AND claim = $2",
        uid, holder, state,
    )  # fmt: skip


# (uid, holder, state, due, round_attempts, round_start, update_time, body) of each attempt's outcome
RESULT_SQL = (
    "UPDATE deliveries SET state = $3, due = $4, round_attempts = $5, round_start = $6, claimed_until = 0,"
    " claim = '', update_time = $7, body = $8 WHERE uid = $1 AND claim = $2"
)


async def record_results(db: Database, results: list[tuple[Any, ...]]) -> None:
    """The outcomes of attempts (see RESULT_SQL), in one transaction."""
    async with db.transaction() as tx:
        await tx.executemany(RESULT_SQL, results)


async def end_claimed(tx: Conn, uid: str, holder: str, state: int, n: int, start: float, now: str, body: str) -> None:
    """A claimed delivery ends in `state` after its `n`th attempt (410 Gone)."""
    await tx.execute(
        "UPDATE deliveries SET state = $3, round_attempts = $4, round_start = $5, claimed_until = 0,"
        " claim = '', update_time = $6, body = $7 WHERE uid = $1 AND claim = $2",
        uid, holder, state, n, start, now, body,
    )  # fmt: skip
