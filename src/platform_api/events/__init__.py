"""Events: subscriptions and deliveries over the API (the outbox below every domain records the events) and
the dispatcher that delivers them to webhook sinks."""

from platform_api.events import subscriptions
from platform_api.events.v1 import subscriptions as v1_subscriptions
from platform_api.outbox import queries
from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain(
    "events",
    rpcs=handlers(subscriptions, v1_subscriptions),
    cascades=(Cascade("group", "subscriptions", exists=queries.any_subscription_in),),
)
