"""The transactional outbox: every mutation records its CloudEvent in the same transaction as the change.

Domain code calls `emit(tx, ctx, body)` inside its transaction, once the response (create, update) or
the request (delete) it describes is known; the event type and subject come from the method's
`events` option. A change that commits always has its event; a change that rolls back never does.

What is stored is exactly what is sent: the CloudEvents attributes and the body bytes
(`{"actor": ..., "body": ...}`). In the same transaction the event is fanned out to the
subscriptions that receive it — those at its group or any ancestor of it, not disabled, whose type
filter admits it — as one pending delivery row each, which the dispatcher then claims and sends.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from functools import cache
from typing import Any

import msgspec

from platform_api.auth.authz import Principal
from platform_api.core import clock, patterns, uidp
from platform_api.core.settings import Settings
from platform_api.gen.records import RECORDS
from platform_api.gen.records.events_v2 import Delivery
from platform_api.outbox import queries
from platform_api.service.context import Context
from platform_api.service.methods import MethodInfo
from platform_api.store import rows
from platform_api.store.db import Conn

CHANNEL = "platform_api_events"
PENDING, DELIVERED, FAILED, DISABLED = 1, 2, 3, 4
STATE_NAMES = {
    PENDING: "STATE_PENDING",
    DELIVERED: "STATE_DELIVERED",
    FAILED: "STATE_FAILED",
    DISABLED: "STATE_DISABLED",
}
STATE_CODES = {v: k for k, v in STATE_NAMES.items()}

# How the `group` extension (Ce-Group) follows from the subject, per event type,
# keyed by the type suffix without its version. Types not listed use PARENT.
SELF, PARENT, ROOT = "self", "parent", "root"
# External group role mappings: group = Root(subject), plus the `identityprovider` extension, which is
# the mapping's parent (IDP_PARENT) or the subject itself (IDP_SELF, batch delete: subject = the IdP).
ROOT_IDP_PARENT, ROOT_IDP_SELF = "root+idp=parent", "root+idp=self"
# Batch role binding create: subject = Parent(first binding) = the batch parent, group = subject.
BATCH_PARENT = "batch-parent"
GROUP_RULES: dict[str, str] = {
    "iam.group.created": SELF,
    "iam.group.updated": SELF,
    "iam.group.deleted": PARENT,
    "iam.identity.created": PARENT,
    "iam.identity.updated": PARENT,
    "iam.identity.deleted": PARENT,
    "iam.roles.created": PARENT,
    "iam.roles.updated": PARENT,
    "iam.roles.deleted": PARENT,
    "iam.rolebindings.created": PARENT,
    "iam.rolebindings.updated": PARENT,
    "iam.rolebindings.deleted": PARENT,
    "iam.rolebindings.created.batch": BATCH_PARENT,
    "iam.identity_providers.created": PARENT,
    "iam.identity_providers.updated": PARENT,
    "iam.identity_providers.deleted": PARENT,
    "iam.identity_providers.scim_token.generated": PARENT,
    "iam.identity_providers.scim_token.regenerated": PARENT,
    "iam.identity_providers.scim_token.revoked": PARENT,
    "iam.identity_providers.scim_enabled.updated": PARENT,
    "iam.account_associations.created": SELF,
    "iam.account_associations.updated": SELF,
    "iam.account_associations.deleted": SELF,
    "iam.group_invite.created": PARENT,
    "iam.group_invite.deleted": PARENT,
    "iam.external_group_role_mappings.created": ROOT_IDP_PARENT,
    "iam.external_group_role_mappings.deleted": ROOT_IDP_PARENT,
    "iam.external_group_role_mappings.deleted.batch": ROOT_IDP_SELF,
    "iam.terms.accepted": SELF,
    "platform.registry.repo.created": PARENT,
    "platform.registry.repo.updated": PARENT,
    "platform.registry.repo.deleted": PARENT,
    "platform.registry.tag.created": ROOT,
    "platform.registry.tag.updated": ROOT,
    "platform.registry.tag.deleted": ROOT,
    "events.subscription.created": PARENT,
    "events.subscription.updated": PARENT,
    "events.subscription.deleted": PARENT,
}


def _unversioned(type_suffix: str) -> str:
    """`iam.group.created.v1` -> `iam.group.created`."""
    head, dot_v, number = type_suffix.rpartition(".v")
    return head if dot_v and patterns.digits(number) else type_suffix


def _only(*keys: str) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    return lambda d: {k: d[k] for k in keys if k in d}


def _drop_oidc_secret(d: dict[str, Any]) -> dict[str, Any] | None:
    oidc = d.get("oidc")
    if isinstance(oidc, dict):
        oidc.pop("clientSecret", None)
    return d


def _drop(key: str) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    def f(d: dict[str, Any]) -> dict[str, Any] | None:
        d.pop(key, None)
        return d

    return f


# Secrets never leave in an event, by the proto message of the payload; None: no body.
REDACTIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "chainguard.platform.iam.v2.GroupInvite": _only("uid", "expirationTime"),
    "chainguard.platform.iam.v2.IdentityProvider": _drop_oidc_secret,
    "chainguard.platform.iam.v2.GenerateScimTokenResponse": _drop("token"),
    "chainguard.platform.iam.v2.RegenerateScimTokenResponse": _drop("token"),
    "chainguard.platform.iam.v2.DeleteAccountAssociationRequest": lambda d: None,
    "chainguard.platform.events.v2.Subscription": _drop("secret"),
}

_encode = msgspec.json.Encoder().encode


async def wake(tx: Conn) -> None:
    """Deliveries are due: wake the dispatchers listening on CHANNEL (this process's at once — on SQLite
    its claim waits for the writer, so it sees the commit — and every process's when `tx` commits)."""
    await tx.notify(CHANNEL)


@cache
def _proto_names() -> dict[type, str]:
    # v2beta1 messages share the v2 records: a record is named by its v2 message.
    return {cls: name for name, cls in RECORDS.items() if ".v2beta1." not in name}


def proto_name(record: Any) -> str:
    return _proto_names().get(type(record), "")


@cache
def rule_of(type_suffix: str) -> str:
    """The GROUP_RULES entry of an event type (cached: the types are the contract's, a few dozen)."""
    return GROUP_RULES.get(_unversioned(type_suffix), PARENT)


def group_of(type_suffix: str, subject: str) -> tuple[str, dict[str, str]]:
    """The `group` extension and any further extensions of an event, by GROUP_RULES above.

    Not cached by subject: subjects are uids, a new one per create, so such a cache kept every pair for the
    process's life (~440 bytes per create, issue 26) and never hit on creates; the rule lookup is the part worth
    caching, and the rest is a string split (~0.3 µs)."""
    rule = rule_of(type_suffix)
    if rule in (SELF, BATCH_PARENT):
        return subject, {}
    if rule == ROOT:
        return uidp.root(subject) if subject else "", {}
    if rule == ROOT_IDP_PARENT:
        return (uidp.root(subject) if subject else ""), {"identityprovider": uidp.parent(subject)}
    if rule == ROOT_IDP_SELF:
        return (uidp.root(subject) if subject else ""), {"identityprovider": subject}
    return uidp.parent(subject), {}


def subject_of(type_suffix: str, field: str, body: Any) -> str:
    value = getattr(body, field, None) if field else None
    if isinstance(value, str) and value:
        return value
    if rule_of(type_suffix) == BATCH_PARENT:
        # BatchCreateRoleBindingsResponse: Parent of the first binding.
        bindings = getattr(body, "role_bindings", None) or []
        return uidp.parent(bindings[0].uid) if bindings else ""
    return ""


def payload(body: Any) -> tuple[Any, str]:
    """The body as it is sent (redacted) and its proto message name (Ce-Bodytype)."""
    name = proto_name(body)
    redact = REDACTIONS.get(name)
    if redact is None:
        return body, name
    return redact(msgspec.to_builtins(body)), name


def ce_time(ns: int) -> str:
    secs, rem = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{rem:09d}Z"


def type_matches(event_type: str, filters: list[str]) -> bool:
    if not filters:
        return True
    return any(f == event_type or (f.endswith("*") and event_type.startswith(f[:-1])) for f in filters)


async def emit(tx: Conn, ctx: Context, body: Any, *, subject: str = "", group: str = "") -> None:
    """Record the event of `ctx.method` carrying `body` (a record) in the outbox, inside `tx`.

    `subject` and `group` override what the method's events option and the event-type rules derive.
    A method without an events option emits nothing.
    """
    actor: dict[str, Any] = {"subject": ctx.subject}
    claims = ctx.principal.claims if isinstance(ctx.principal, Principal) else None
    if claims is not None and claims.act:
        actor["act"] = claims.act
    await emit_as(tx, ctx.rt.settings, ctx.info, actor, body, subject=subject, group=group)


async def emit_as(
    tx: Conn, settings: Settings, method: MethodInfo | None, actor: dict[str, Any], body: Any, *, subject: str = "",
    group: str = "",
) -> None:  # fmt: skip
    """`emit` for a writer that serves no call (the registry's data plane): the event of `method` carrying
    `body`, by `actor` (the envelope's `{"subject": ...}`)."""
    if method is None or not method.event_type:
        return
    suffix = method.event_type
    subject = subject or subject_of(suffix, method.event_subject, body)
    derived, extensions = group_of(suffix, subject)
    group = group or derived
    data, body_name = payload(body)
    envelope: dict[str, Any] = {"actor": actor}
    if data is not None:
        envelope["body"] = data
    event_type = f"{settings.event_type_prefix}.api.{suffix}"
    source = settings.public_url.rstrip("/") + method.event_source
    await _record(tx, str(uuid.uuid4()), event_type, source, subject, group, body_name, extensions, envelope)


async def _record(
    tx: Conn, event_id: str, event_type: str, source: str, subject: str, group: str, bodytype: str,
    extensions: dict[str, str], envelope: dict[str, Any],
) -> None:  # fmt: skip
    """Store the event as it will be sent and fan it out to its subscriptions, inside `tx`."""
    now = clock.now()
    await queries.insert_event(
        tx, event_id, event_type, source, subject, group, ce_time(time.time_ns()), bodytype,
        _encode(extensions).decode(), _encode(envelope).decode(), now,
    )  # fmt: skip
    if await fan_out(tx, event_id, event_type, subject, group, now):
        await wake(tx)


async def emit_data_plane(
    tx: Conn,
    settings: Settings,
    kind: str,
    *,
    actor: str,
    event_id: str,
    source: str,
    subject: str,
    group: str,
    bodytype: str,
    body: dict[str, Any],
) -> bool:
    """Record an event of a data plane beside the API (`<prefix>.<kind>`, e.g. `registry.push.v1`: reference
    12.3's registry events), under a caller-chosen id; False, recording nothing, when that id is already
    recorded (a notification delivered again)."""
    if await queries.event_exists(tx, event_id):
        return False
    envelope = {"actor": {"subject": actor}, "body": body}
    event_type = f"{settings.event_type_prefix}.{kind}"
    await _record(tx, event_id, event_type, source, subject, group, bodytype, {}, envelope)
    return True


async def fan_out(tx: Conn, event_id: str, event_type: str, subject: str, group: str, now: str) -> int:
    """One pending delivery per subscription at `group` or above it that takes this type; how many."""
    if not group:
        return 0
    subs = await queries.subscribers(tx, uidp.ancestry(group))
    n = 0
    due = time.time()
    for sub_uid, types in subs:
        if types != "[]" and not type_matches(event_type, msgspec.json.decode(types)):
            continue
        await insert_delivery(tx, sub_uid, event_id, event_type, subject, now, due)
        n += 1
    return n


async def insert_delivery(
    tx: Conn, subscription: str, event_id: str, event_type: str, subject: str, now: str, due: float
) -> Delivery:
    d = Delivery(uid=uidp.new_child(subscription), event_id=event_id, event_type=event_type, subject=subject,
                 state="STATE_PENDING", next_attempt_time=clock.from_epoch(due), create_time=now,
                 update_time=now)  # fmt: skip
    await queries.insert_delivery(tx, d, subscription, PENDING, due)
    return d


async def pending_count(db: Conn) -> int:
    """Deliveries still to be made (due or scheduled): the dispatcher's queue depth (a partial index)."""
    return await queries.pending_count(db)


async def cancel_pending(tx: Conn, subscription: str, now: str) -> None:
    """A disabled subscription's pending deliveries end as DISABLED."""
    for uid, body in await queries.pending_of(tx, subscription):
        d = rows.decode(Delivery, body)
        d.state, d.next_attempt_time, d.update_time = "STATE_DISABLED", None, now
        await queries.end_unclaimed(tx, uid, DISABLED, now, rows.body(d))
