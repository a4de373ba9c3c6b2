"""Event subscriptions: /events/v2/subscriptions (SubscriptionsService) and their deliveries,
/events/v2/deliveries (DeliveriesService).

A subscription lives under a group and receives the events of that group and of every group below it
(outbox.fan_out). Its Standard Webhooks secret is returned once, by CreateSubscription.
"""

from __future__ import annotations

import base64
import secrets
import time

import msgspec

from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.events import sinks
from platform_api.events import types as event_types
from platform_api.gen.records._base import Empty
from platform_api.gen.records.events_v2 import (
    CreateSubscriptionRequest,
    DeleteSubscriptionRequest,
    Delivery,
    GetDeliveryRequest,
    GetSubscriptionRequest,
    ListDeliveriesRequest,
    ListDeliveriesResponse,
    ListSubscriptionsRequest,
    ListSubscriptionsResponse,
    RedeliverEventRequest,
    Subscription,
    UpdateSubscriptionRequest,
)
from platform_api.iam import groups
from platform_api.outbox import outbox, queries
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.events.v2.SubscriptionsService."
DELIVERIES = "chainguard.platform.events.v2.DeliveriesService."
RESOURCE = queries.SUBSCRIPTION
DELIVERY = queries.DELIVERY
TABLE = queries.SUBSCRIPTIONS_TABLE
DELIVERY_TABLE = queries.DELIVERIES_TABLE
UPDATABLE = frozenset({"sink", "types", "disabled"})
MAX_TYPES = 50
MAX_TYPE = 256


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


async def check_sink(ctx: Context, sink: str) -> None:
    try:
        await sinks.resolve(sink, ctx.rt.settings)
    except sinks.SinkRefused as e:
        raise errors.invalid_argument("sink", str(e)) from None


def _check_types(ctx: Context, types: list[str]) -> None:
    """Create's and Update's rule (v1 has no `types`: every type): bounded, and each names a type we emit."""
    if len(types) > MAX_TYPES:
        raise errors.invalid_argument("types", f"at most {MAX_TYPES} event types")
    for t in types:
        if not t or len(t) > MAX_TYPE or any(c.isspace() for c in t):
            raise errors.invalid_argument("types", f"event types must be 1 to {MAX_TYPE} characters without spaces")
    event_types.check(ctx.rt, types)


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> Subscription:
    return await queries.SUBSCRIPTIONS.get(conn, uid, lock=lock)


@rpc(SERVICE + "CreateSubscription")
async def create_subscription(req: CreateSubscriptionRequest, ctx: Context) -> Subscription:
    validate.uid(req.parent, "parent")
    given = req.subscription or Subscription()
    _check_types(ctx, given.types)
    await check_sink(ctx, given.sink)
    now = clock.now()
    sub = Subscription(uid=uidp.new_child(req.parent), sink=given.sink, types=list(given.types),
                       disabled=given.disabled, create_time=now, update_time=now)  # fmt: skip
    secret = new_secret()
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await queries.insert_subscription(tx, sub, req.parent, secret)
        await outbox.emit(tx, ctx, sub)
    return msgspec.structs.replace(sub, secret=secret)


@rpc(SERVICE + "GetSubscription")
async def get_subscription(req: GetSubscriptionRequest, ctx: Context) -> Subscription:
    return await _fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListSubscriptions")
async def list_subscriptions(req: ListSubscriptionsRequest, ctx: Context) -> ListSubscriptionsResponse:
    where = listing.filters(req)
    return await listing.answer(ctx, TABLE, where, req, ListSubscriptionsResponse, "subscriptions", Subscription)


@rpc(SERVICE + "UpdateSubscription")
async def update_subscription(req: UpdateSubscriptionRequest, ctx: Context) -> Subscription:
    patch = req.subscription or Subscription()
    current = await _fetch(ctx.rt.db, patch.uid)
    wanted = fieldmask.apply(current, patch, req.update_mask, UPDATABLE)
    if wanted.types != current.types:  # one stored before types were checked can still be disabled or moved
        _check_types(ctx, wanted.types)
    if wanted.sink != current.sink:
        await check_sink(ctx, wanted.sink)

    async def cancel(tx: Conn, current: Subscription, sub: Subscription) -> None:
        if sub.disabled and not current.disabled:
            await outbox.cancel_pending(tx, sub.uid, sub.update_time)

    return await queries.SUBSCRIPTIONS.update_rpc(
        ctx, patch, req.update_mask, UPDATABLE, columns=queries.subscription_columns, after=cancel, emit=outbox.emit
    )


@rpc(SERVICE + "DeleteSubscription")
async def delete_subscription(req: DeleteSubscriptionRequest, ctx: Context) -> Empty:
    # A subscription's deliveries go with it.
    children = (queries.DELIVERIES.delete_descendants,)
    await queries.SUBSCRIPTIONS.delete_rpc(ctx, req, children=children, emit=outbox.emit)
    return Empty()


@rpc(SERVICE + "RedeliverEvent")
async def redeliver_event(req: RedeliverEventRequest, ctx: Context) -> Delivery:
    validate.uid(req.uid)
    if not req.event_id:
        raise errors.invalid_argument("event_id", "event_id is required")
    async with ctx.rt.db.transaction() as tx:
        sub = await _fetch(tx, req.uid, lock=True)
        if sub.disabled:
            raise errors.failed_precondition(
                "SUBSCRIPTION_DISABLED", "the subscription is disabled; enable it first", subject=req.uid
            )
        d = await queries.delivery_of_event(tx, req.uid, req.event_id)
        if d is None:
            raise errors.not_found("chainguard.platform.events.v2.Event", req.event_id)
        now, due = clock.now(), time.time()
        d.state, d.next_attempt_time, d.update_time = "STATE_PENDING", clock.from_epoch(due), now
        # A fresh retry budget; the attempts so far stay on record.
        await queries.reschedule(tx, d, outbox.PENDING, due)
        await outbox.wake(tx)
    return d


@rpc(DELIVERIES + "GetDelivery")
async def get_delivery(req: GetDeliveryRequest, ctx: Context) -> Delivery:
    return await queries.DELIVERIES.get(ctx.rt.db, req.uid)


@rpc(DELIVERIES + "ListDeliveries")
async def list_deliveries(req: ListDeliveriesRequest, ctx: Context) -> ListDeliveriesResponse:
    where = listing.filters(req, event_id="event_id")
    if req.state != "STATE_UNSPECIFIED":
        where.eq("state", outbox.STATE_CODES[req.state])
    return await listing.answer(ctx, DELIVERY_TABLE, where, req, ListDeliveriesResponse, "deliveries", Delivery)
