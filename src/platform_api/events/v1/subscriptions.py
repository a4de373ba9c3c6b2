"""/events/v1/subscriptions (chainguard.platform.events.Subscriptions) over events/subscriptions.py: `id` for
`uid`, `parent_id` for `parent`. A v1 Subscription is `{id, sink}`:
- its Standard Webhooks secret, which v2 shows once (in CreateSubscription's answer), has no v1 field and is
  never in a v1 answer; a v1 receiver authenticates deliveries by their bearer token (our JWT), as v1 did;
- v2's `types` and `disabled` are not v1 fields: a subscription created over v1 receives every type and is
  enabled (v2's defaults), and a v2 one listed over v1 shows only its id and sink;
- Create and Delete are the v2 twins, so they emit exactly the v2 events (`subscription.created.v1`, ...).
"""

from __future__ import annotations

from platform_api.events import subscriptions
from platform_api.gen.records import events_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.events import (
    CreateSubscriptionRequest,
    DeleteSubscriptionRequest,
    Subscription,
    SubscriptionFilter,
    SubscriptionList,
)
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.events.Subscriptions."


def to_v1(sub: v2.Subscription) -> Subscription:
    # Only `id` and `sink`: the secret (and types, disabled) have no v1 field.
    return Subscription(id=sub.uid, sink=sub.sink)


@rpc(SERVICE + "Create")
async def create(req: CreateSubscriptionRequest, ctx: Context) -> Subscription:
    given = req.subscription or Subscription()
    ask = v2.CreateSubscriptionRequest(parent=req.parent_id, subscription=v2.Subscription(sink=given.sink))
    return to_v1(await v1.call(ctx, subscriptions.create_subscription, ask))


@rpc(SERVICE + "List")
async def list_(req: SubscriptionFilter, ctx: Context) -> SubscriptionList:
    ask = v2.ListSubscriptionsRequest(uidp=v1.uidp_of(req.uidp, req.id))
    return SubscriptionList(items=await v1.every(ctx, subscriptions.list_subscriptions, ask, "subscriptions", to_v1))


@rpc(SERVICE + "Delete")
async def delete(req: DeleteSubscriptionRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, subscriptions.delete_subscription, v2.DeleteSubscriptionRequest(uid=req.id))
