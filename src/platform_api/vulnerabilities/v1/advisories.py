"""/vulnerabilities/v1/advisories (chainguard.platform.vulnerabilities.v1.Advisories).

Reads over the v2 implementation (List over ListAdvisories, ListAdvisoryEvents over GetAdvisory); writes
(Create, Update, Delete, CreateAdvisoryEvent, UpdateAdvisoryEvent, which have no v2 twin) over
`vulnerabilities.authoring`, whose docstring gives the rules: imported advisories are read-only, authors are
the caller, new events are pending and review is an event update; no outbox event (the contract names none).

v1 differences: `id` for `uid`, `createdAt`/`updatedAt`/`deletedAt` for the v2 times, an event's `timestamp`
for `createTime` and `status` (UNKNOWN, PENDING, ...) for `reviewState`, a scan's `subpackageName` and
`componentName`, a false positive's unprefixed type; `severities` (v2 only) are not in v1 answers.
List answers the full filtered set (v1.every); `pageSize`/`pageToken` are not used. `orderBy` ALIASES_* and
DELETED_AT_* are INVALID_ARGUMENT (no such v2 order). Refused when sent (v2 keeps no such thing): an event of
type `componentLocationChanged`, the event type filter COMPONENT_LOCATION_CHANGED and a `legacyAdvisoryID`
(output only). The times (`createdAt`, `updatedAt`, `deletedAt`) are output only and ignored on writes, as
is an event's `id` where the URL names it.
ListAdvisoryEvents of an advisory that does not exist answers `{}` (v1's empty list).
"""

from __future__ import annotations

from typing import Any

import msgspec

from platform_api.core import errors
from platform_api.gen.records import vulnerabilities_v1 as one
from platform_api.gen.records import vulnerabilities_v2 as two
from platform_api.gen.records._base import Empty
from platform_api.service import v1
from platform_api.service.context import Context, rpc
from platform_api.vulnerabilities import advisories, authoring

SERVICE = "chainguard.platform.vulnerabilities.v1.Advisories."
ORDER = {
    "ORDER_BY_UNSPECIFIED": "",
    "ID_ASC": "uid",
    "ID_DESC": "uid desc",
    "CREATED_AT_ASC": "create_time",
    "CREATED_AT_DESC": "create_time desc",
    "UPDATED_AT_ASC": "update_time",
    "UPDATED_AT_DESC": "update_time desc",
}
_SCAN = (("subpackage", "subpackageName"), ("component", "componentName"))
_ADVISORY = (("uid", "id"), ("createTime", "createdAt"), ("updateTime", "updatedAt"), ("deleteTime", "deletedAt"),
             ("legacyAdvisoryId", "legacyAdvisoryID"))  # fmt: skip
_EVENT = (("uid", "id"), ("createTime", "timestamp"))


def _rename(raw: dict[str, Any], pairs: tuple[tuple[str, str], ...], back: bool = False) -> None:
    for v2_name, v1_name in pairs:
        old, new = (v1_name, v2_name) if back else (v2_name, v1_name)
        if old in raw:
            raw[new] = raw.pop(old)


def _status(state: str) -> str:
    return "UNKNOWN" if state == "REVIEW_STATE_UNSPECIFIED" else state.removeprefix("REVIEW_STATE_")


def _event_raw(raw: dict[str, Any], back: bool = False) -> dict[str, Any]:
    """A JSON event of one dialect in the other's names."""
    _rename(raw, _EVENT, back)
    scan = raw.get("detection", {}).get("scanv1")
    if scan is not None:
        _rename(scan, _SCAN, back)
    fp = raw.get("falsePositiveDetermination")
    if fp is not None and "type" in fp:
        fp["type"] = "TYPE_" + fp["type"] if back else fp["type"].removeprefix("TYPE_")
    if back:
        status = raw.pop("status", "UNKNOWN")
        raw["reviewState"] = "REVIEW_STATE_UNSPECIFIED" if status == "UNKNOWN" else "REVIEW_STATE_" + status
    else:
        raw["status"] = _status(raw.pop("reviewState", "REVIEW_STATE_UNSPECIFIED"))
    return raw


def event_to_v1(e: two.AdvisoryEvent) -> one.AdvisoryEvent:
    return msgspec.convert(_event_raw(msgspec.to_builtins(e)), one.AdvisoryEvent)


def to_v1(a: two.Advisory) -> one.Advisory:
    raw = msgspec.to_builtins(a)
    raw.pop("severities", None)
    _rename(raw, _ADVISORY)
    raw["events"] = [_event_raw(e) for e in raw.pop("events", [])]  # (not `get`: the table-owner check reads it as SQL)
    return msgspec.convert(raw, one.Advisory)


def event_to_v2(e: one.AdvisoryEvent, field: str) -> two.AdvisoryEvent:
    if e.component_location_changed is not None:
        raise errors.invalid_argument(field + ".component_location_changed", "this event type is not kept")
    return msgspec.convert(_event_raw(msgspec.to_builtins(e), back=True), two.AdvisoryEvent)


def to_v2(a: one.Advisory) -> two.Advisory:
    if isinstance(a.legacyAdvisoryID, str) and a.legacyAdvisoryID:
        raise errors.invalid_argument("advisory.legacyAdvisoryID", "output only: it is not set over the API")
    raw = msgspec.to_builtins(msgspec.structs.replace(a, events=[]))
    for out_only in ("createdAt", "updatedAt", "deletedAt", "legacyAdvisoryID"):
        raw.pop(out_only, None)
    _rename(raw, _ADVISORY, back=True)
    made = msgspec.convert(raw, two.Advisory)
    made.events = [event_to_v2(e, f"advisory.events[{i}]") for i, e in enumerate(a.events)]
    return made


def _types(values: list[str], field: str) -> list[Any]:
    if "EVENT_TYPE_FILTER_COMPONENT_LOCATION_CHANGED" in values:
        raise errors.invalid_argument(field, "COMPONENT_LOCATION_CHANGED events are not kept")
    return values


def request_of(f: one.AdvisoryFilter) -> two.ListAdvisoriesRequest:
    """The v2 ListAdvisories request of a v1 filter."""
    if f.order_by not in ORDER:
        raise errors.invalid_argument("order_by", f"{f.order_by} is not an order of this service")
    latest: Any = msgspec.UNSET
    if isinstance(f.latest_event_type, str):
        latest = _types([f.latest_event_type], "latest_event_type")[0]
    return two.ListAdvisoriesRequest(
        uidp=v1.uidp_of(f.uidp, f.id), advisory_ids=f.advisory_ids, legacy_advisory_ids=f.legacy_advisory_ids,
        artifact_names=f.artifact_name, artifact_types=f.artifact_type,
        artifact_architectures=f.artifact_architecture, component_names=f.component_name,
        component_types=f.component_type, component_locations=f.component_location, aliases=f.aliases,
        origin=f.origin, event_review_states=["REVIEW_STATE_" + s if s != "UNKNOWN" else "REVIEW_STATE_UNSPECIFIED"
                                              for s in f.event_statuses],
        event_authors=f.event_author, exclude_event_authors=f.exclude_event_author,
        event_reviewers=f.event_reviewer, event_types=_types(list(f.event_types), "event_types"),
        latest_event_type=latest, order_by=ORDER[f.order_by],
    )  # fmt: skip


@rpc(SERVICE + "List")
async def list_(req: one.AdvisoryFilter, ctx: Context) -> one.AdvisoriesList:
    return one.AdvisoriesList(
        items=await v1.every(ctx, advisories.list_advisories, request_of(req), "advisories", to_v1)
    )


@rpc(SERVICE + "ListAdvisoryEvents")
async def list_events(req: one.AdvisoryEventFilter, ctx: Context) -> one.AdvisoryEventList:
    try:
        a = await v1.call(ctx, advisories.get_advisory, two.GetAdvisoryRequest(uid=req.parent_id))
    except errors.ApiError as e:
        if e.code != errors.NOT_FOUND:
            raise
        return one.AdvisoryEventList()  # v1's empty list: `{}`
    return one.AdvisoryEventList(parent_id=req.parent_id, items=[event_to_v1(e) for e in a.events])


@rpc(SERVICE + "Create")
async def create(req: one.CreateAdvisoryRequest, ctx: Context) -> one.Advisory:
    made = await authoring.create(ctx, req.parent_id, to_v2(req.advisory or one.Advisory()))
    return to_v1(made)


@rpc(SERVICE + "Update")
async def update(req: one.Advisory, ctx: Context) -> one.Advisory:
    return to_v1(await authoring.replace(ctx, to_v2(req)))


@rpc(SERVICE + "Delete")
async def delete(req: one.DeleteAdvisoryRequest, ctx: Context) -> Empty:
    await authoring.delete(ctx, req.id)
    return Empty()


@rpc(SERVICE + "CreateAdvisoryEvent")
async def create_event(req: one.CreateAdvisoryEventRequest, ctx: Context) -> one.AdvisoryEvent:
    sent = event_to_v2(req.advisory_event or one.AdvisoryEvent(), "advisory_event")
    return event_to_v1(await authoring.add_event(ctx, req.parent_id, sent))


@rpc(SERVICE + "UpdateAdvisoryEvent")
async def update_event(req: one.AdvisoryEvent, ctx: Context) -> one.AdvisoryEvent:
    return event_to_v1(await authoring.update_event(ctx, event_to_v2(req, "advisory_event")))
