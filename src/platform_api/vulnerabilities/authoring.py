"""Advisories written over the API (v1 Advisories Create/Update/Delete and their events; no v2 twin): the
rules of authoring and review. The SQL is `advisory_queries`'s (the tables' owner); what is written is the
same v2 record the import writes, so GetAdvisory/ListAdvisories show authored advisories like imported ones.

- Identity: an authored advisory's uid is `advisory_queries.advisory_uid(group, artifactName, advisoryId)`,
  the import's, so one (group, package, advisory id) is one advisory whoever wrote it. Creating one the
  group already holds is ALREADY_EXISTS. `advisoryId` is a CGA id; an empty one is minted.
- Imported and authored never overwrite each other silently: an imported advisory is the distribution's
  published record, read-only over the API (Update, Delete and event writes on it are FAILED_PRECONDITION
  `IMPORTED`: change the documents and re-import). A re-import that names an authored advisory's (package,
  advisory id) takes it over: the import's content replaces it (counted `updated` in the import summary) and
  from then on it is imported.
- Authors: `author` (of the advisory and of each event) is the caller; empty means the caller, another
  identity is INVALID_ARGUMENT (an author cannot be impersonated). A new event is PENDING (its `reviewState`
  empty or PENDING, no reviewer). Review is an update of the event: setting APPROVED, REQUEST_CHANGES or
  REJECTED takes CAP_ADVISORIES_APPROVE at the advisory's group (beyond the method's CAP_ADVISORIES_UPDATE)
  and records the caller as `reviewer` (a reviewer sent must be the caller); PENDING clears it; an
  unchanged verdict on an unchanged event keeps its reviewer (no new review, no APPROVE needed); an event
  whose content or time is changed under a verdict by a caller without APPROVE goes back to PENDING (it must
  be reviewed again), and an approved event is removed only by a caller with APPROVE (PERMISSION_DENIED: it
  cannot go back to PENDING, it is gone). Only approved events decide the advisory's latest event type (the
  `latest_event_type` filter), as the contract says: the latest by time, of one time the later created; so a
  caller without APPROVE changes no verdict.
- Events keep their creation order (at most 2,000, the format's limit); a new one's `createTime` is the one
  sent, or now.
- Update is a full replacement (v1 PUT): the advisory's fields and its events as sent; an event sent with the
  uid of one of its events replaces that event, one without a uid is new (after the kept ones: events keep
  their creation order, whatever the order sent), and events not sent are removed (see above for approved
  ones).
  `artifactName` and `advisoryId` name the advisory and cannot change (INVALID_ARGUMENT).
- Not kept in the public advisory feed: the feed is a global, anonymous copy of the imported documents
  (`advisory.documents`), not derived from the group's advisories; a group's authored advisories stay the
  group's (visible to who may list the group's advisories).
- No outbox event: the contract names none for these methods.
"""

from __future__ import annotations

import secrets

import msgspec

from platform_api.auth import authz
from platform_api.auth import capabilities as caps
from platform_api.core import clock, errors, uidp
from platform_api.formats import advisory_yaml as fmt
from platform_api.gen.records.vulnerabilities_v2 import Advisory, AdvisoryEvent
from platform_api.iam import groups
from platform_api.service.context import Context
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries as queries

# The event data fields of the oneof `type`, and their EventTypeFilter numbers.
EVENT_TYPES = {
    "detection": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_DETECTION"],
    "true_positive_determination": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION"],
    "fixed": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_FIXED"],
    "false_positive_determination": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION"],
    "analysis_not_planned": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED"],
    "fix_not_planned": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_FIX_NOT_PLANNED"],
    "pending_upstream_fix": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX"],
    "patched": queries.EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_PATCHED"],
}
PENDING = "REVIEW_STATE_PENDING"
VERDICTS = frozenset(("REVIEW_STATE_APPROVED", "REVIEW_STATE_REQUEST_CHANGES", "REVIEW_STATE_REJECTED"))
APPROVED = "REVIEW_STATE_APPROVED"
APPROVE = caps.mask(["CAP_ADVISORIES_APPROVE"])
MAX_TEXT = 256  # artifact type, architecture and component fields
EVENT_RESOURCE = "chainguard.platform.vulnerabilities.v2.AdvisoryEvent"


def _imported(uid: str) -> errors.ApiError:
    return errors.failed_precondition(
        "IMPORTED",
        "this advisory was imported (`platform-api import advisories`) and is read-only over the API:"
        " change the advisory documents and re-import",
        uid,
    )


def _mint_id() -> str:
    alphabet = "23456789cfghjmpqrvwx"
    return "CGA-" + "-".join("".join(secrets.choice(alphabet) for _ in range(4)) for _ in range(3))


def _who(ctx: Context, sent: str, field: str) -> str:
    me = authz.caller(ctx).subject
    if sent and sent != me:
        raise errors.invalid_argument(field, "is the caller's identity (leave it empty)")
    return me


def _type_of(event: AdvisoryEvent, field: str) -> str:
    """The one event data field set (the oneof `type`)."""
    present = [name for name in EVENT_TYPES if getattr(event, name) is not None]
    if len(present) != 1:
        raise errors.invalid_argument(field, f"an event has exactly one type ({', '.join(EVENT_TYPES)})")
    return present[0]


def _content(event: AdvisoryEvent) -> AdvisoryEvent:
    """What an event says (its review, author, uid and time aside): to tell whether an update changed it."""
    return msgspec.structs.replace(event, uid="", create_time=None, author="", reviewer="", review_state=PENDING)


def _new_event(ctx: Context, advisory: str, sent: AdvisoryEvent, field: str, now: str) -> AdvisoryEvent:
    _type_of(sent, field)
    author = _who(ctx, sent.author, field + ".author")
    if sent.review_state not in ("REVIEW_STATE_UNSPECIFIED", PENDING):
        raise errors.invalid_argument(field + ".review_state", "a new event is pending: review it by updating it")
    if sent.reviewer:
        raise errors.invalid_argument(field + ".reviewer", "a new event has no reviewer yet")
    return msgspec.structs.replace(
        sent, uid=uidp.new_child(advisory), create_time=sent.create_time or now, author=author, reviewer="",
        review_state=PENDING,
    )  # fmt: skip


def _replaced_event(ctx: Context, old: AdvisoryEvent, sent: AdvisoryEvent, field: str) -> AdvisoryEvent:
    """`old` as `sent` replaces it (a PUT of the event): content, findings and issue as sent; the author
    stays; the review as the rules above say."""
    _type_of(sent, field)
    if sent.author and sent.author != old.author:
        raise errors.invalid_argument(field + ".author", "the author of an event cannot change")
    state = PENDING if sent.review_state == "REVIEW_STATE_UNSPECIFIED" else sent.review_state
    when = sent.create_time or old.create_time
    # Its time is part of what a verdict approved: the latest approved event decides the advisory's verdict.
    unchanged = _content(sent) == _content(old) and when == old.create_time
    if state == PENDING:
        if sent.reviewer:
            raise errors.invalid_argument(field + ".reviewer", "a pending event has no reviewer")
        reviewer = ""
    elif state == old.review_state and unchanged and sent.reviewer in ("", old.reviewer):
        reviewer = old.reviewer  # nothing reviewed anew
    elif authz.caller(ctx).holds(APPROVE, old.uid):
        reviewer = _who(ctx, sent.reviewer, field + ".reviewer")  # a review: the caller is its reviewer
    elif state == old.review_state and sent.reviewer in ("", old.reviewer):
        state, reviewer = PENDING, ""  # content edited under a verdict by one who cannot review: review again
    else:
        # A new verdict is a review: it takes CAP_ADVISORIES_APPROVE where the advisory is (the method's own
        # capability, CAP_ADVISORIES_UPDATE, only lets a caller edit and ask for review again).
        raise errors.permission_denied(f"missing CAP_ADVISORIES_APPROVE at {uidp.parent(old.uid)}")
    return msgspec.structs.replace(
        sent, uid=old.uid, create_time=when, author=old.author, reviewer=reviewer, review_state=state
    )


def _check_fields(a: Advisory, field: str) -> None:
    if not fmt.is_package_name(a.artifact_name):
        raise errors.invalid_argument(field + ".artifact_name", "a package name (letters, digits, ._+-)")
    if not fmt.grouped_id(a.advisory_id, "CGA"):
        raise errors.invalid_argument(field + ".advisory_id", "an advisory id (CGA-xxxx-xxxx-xxxx) or empty")
    if not a.artifact_type:
        raise errors.invalid_argument(field + ".artifact_type", "is required (e.g. apk)")
    texts = ("artifact_type", "artifact_architecture", "component_name", "component_type", "component_location")
    for name in texts:
        if len(getattr(a, name)) > MAX_TEXT:
            raise errors.invalid_argument(f"{field}.{name}", f"at most {MAX_TEXT} characters")
    for i, alias in enumerate(a.aliases):
        if not fmt.is_alias(alias):
            raise errors.invalid_argument(f"{field}.aliases[{i}]", "a CVE, GHSA or GO vulnerability id")
    if len(set(a.aliases)) != len(a.aliases):
        raise errors.invalid_argument(field + ".aliases", "an alias is listed twice")


def _row(a: Advisory) -> queries.Row:
    """The stored form of an authored advisory: its latest event type is that of its latest approved event."""
    typed = [(e.uid, EVENT_TYPES[_type_of(e, "events")]) for e in a.events]
    approved = sorted((e.create_time or "", i) for i, e in enumerate(a.events) if e.review_state == APPROVED)
    latest = typed[approved[-1][1]][1] if approved else 0
    search = queries.search_text(a.artifact_name, a.component_name, a.aliases)
    return queries.Row(a, queries.AUTHORED, latest, search, typed)


async def create(ctx: Context, group: str, sent: Advisory) -> Advisory:
    """A new authored advisory in `group`, with its events (each pending)."""
    now = clock.now()
    advisory_id = sent.advisory_id or _mint_id()
    a = msgspec.structs.replace(sent, advisory_id=advisory_id, severities=[])
    _check_fields(a, "advisory")
    a.uid = queries.advisory_uid(group, a.artifact_name, advisory_id)
    a.author = _who(ctx, sent.author, "advisory.author")
    a.create_time, a.delete_time = now, None
    a.events = [_new_event(ctx, a.uid, e, f"advisory.events[{i}]", now) for i, e in enumerate(sent.events)]
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, group, "parent_id")  # and locked: the group is not deleted under it
        if await _exists(tx, a.uid):
            raise errors.already_exists(
                queries.RESOURCE, a.uid, f"the group has advisory {advisory_id} of {a.artifact_name} already"
            )
        await queries.write(tx, group, [_row(a)], [], now)
    return a


async def _exists(tx: Conn, uid: str) -> bool:
    try:
        await queries.stored(tx, uid)
    except errors.ApiError as e:
        if e.code == errors.NOT_FOUND:
            return False
        raise
    return True


async def _authored(tx: Conn, uid: str) -> Advisory:
    a, authored = await queries.stored(tx, uid)
    if not authored:
        raise _imported(uid)
    return a


async def _rewrite(tx: Conn, a: Advisory) -> Advisory:
    now = clock.now()
    await queries.write(tx, uidp.parent(a.uid), [], [_row(a)], now)
    return a


async def replace(ctx: Context, sent: Advisory) -> Advisory:
    """The authored advisory `sent.uid` replaced by `sent` (a full replacement, events included)."""
    async with ctx.rt.db.transaction() as tx:
        old = await _authored(tx, sent.uid)
        for name in ("artifact_name", "advisory_id"):
            if getattr(sent, name) and getattr(sent, name) != getattr(old, name):
                raise errors.invalid_argument("advisory." + name, "names the advisory and cannot change")
        a = msgspec.structs.replace(
            sent, uid=old.uid, advisory_id=old.advisory_id, artifact_name=old.artifact_name,
            create_time=old.create_time, delete_time=None, severities=[],
            author=old.author,
        )  # fmt: skip
        if sent.author not in ("", old.author):
            raise errors.invalid_argument("advisory.author", "the author of an advisory cannot change")
        _check_fields(a, "advisory")
        stored = {e.uid: e for e in old.events}
        now = clock.now()
        kept: dict[str, AdvisoryEvent] = {}
        new: list[AdvisoryEvent] = []
        for i, e in enumerate(sent.events):
            field = f"advisory.events[{i}]"
            if not e.uid:
                new.append(_new_event(ctx, a.uid, e, field, now))
            elif e.uid in stored:
                kept[e.uid] = _replaced_event(ctx, stored.pop(e.uid), e, field)
            elif e.uid in kept:
                raise errors.invalid_argument(field + ".id", "the event is listed twice")
            else:
                raise errors.invalid_argument(field + ".id", f"{e.uid[-60:]} is not an event of this advisory")
        _check_removed(ctx, list(stored.values()))
        # Creation order, whatever the order sent: among approved events of one time the later decides (_row).
        a.events = [kept[e.uid] for e in old.events if e.uid in kept] + new
        return await _rewrite(tx, a)


def _check_removed(ctx: Context, removed: list[AdvisoryEvent]) -> None:
    """Removing an approved event changes the verdict it gave: that takes CAP_ADVISORIES_APPROVE where the
    advisory is (PERMISSION_DENIED otherwise). It cannot go back to PENDING as a changed one does: it is gone."""
    for e in removed:
        if e.review_state == APPROVED and not authz.caller(ctx).holds(APPROVE, e.uid):
            raise errors.permission_denied(
                f"missing CAP_ADVISORIES_APPROVE at {uidp.parent(e.uid)}: removing an approved event takes it"
                " (send the event to keep it)"
            )


async def delete(ctx: Context, uid: str) -> None:
    async with ctx.rt.db.transaction() as tx:
        await _authored(tx, uid)
        await queries.delete(tx, uidp.parent(uid), uid)


async def add_event(ctx: Context, advisory: str, sent: AdvisoryEvent) -> AdvisoryEvent:
    """A new (pending) event at the end of the authored advisory `advisory`."""
    async with ctx.rt.db.transaction() as tx:
        a = await _authored(tx, advisory)
        if len(a.events) >= fmt.MAX_EVENTS:
            raise errors.failed_precondition(
                "TOO_MANY_EVENTS", f"an advisory has at most {fmt.MAX_EVENTS} events (the format's limit)", advisory
            )
        event = _new_event(ctx, advisory, sent, "advisory_event", clock.now())
        a.events.append(event)
        await _rewrite(tx, a)
    return event


async def update_event(ctx: Context, sent: AdvisoryEvent) -> AdvisoryEvent:
    """The event `sent.uid` of an authored advisory replaced by `sent` (its review included)."""
    advisory = uidp.parent(sent.uid)
    async with ctx.rt.db.transaction() as tx:
        try:
            a = await _authored(tx, advisory)
        except errors.ApiError as e:
            if e.code == errors.NOT_FOUND:
                raise errors.not_found(EVENT_RESOURCE, sent.uid) from None
            raise
        for i, old in enumerate(a.events):
            if old.uid == sent.uid:
                a.events[i] = _replaced_event(ctx, old, sent, "advisory_event")
                await _rewrite(tx, a)
                return a.events[i]
    raise errors.not_found(EVENT_RESOURCE, sent.uid)
