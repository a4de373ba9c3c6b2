"""The advisories' tables (migration 0006): `advisories` (one row per advisory, the filterable fields as
columns, the Advisory record as `body`), `advisory_aliases` and `advisory_events` (the events' filterable
facts). The only SQL on them (the filters of ListAdvisories included: `filters`), and the mapping from a
parsed advisory document to `Advisory` records. Rows come from `import advisories` (digest: the content's)
or from the v1 authoring calls (`vulnerabilities.authoring`, digest AUTHORED); both write through `write`.

Identity: an advisory's uid is `<group>/<16 hex of sha256(package, advisory id)>`, so re-importing the
same (group, package, advisory id) always names the same resource; an event's uid is
`<advisory uid>/<16 hex of sha256(advisory uid, position)>` (events are append-only in the format).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from platform_api.core import errors
from platform_api.formats import advisory_yaml as fmt
from platform_api.gen.records.vulnerabilities_v2 import (
    Advisory,
    AdvisoryEvent,
    AdvisoryEvent_AnalysisNotPlanned,
    AdvisoryEvent_Detection,
    AdvisoryEvent_Detection_Manual,
    AdvisoryEvent_Detection_NVDAPI,
    AdvisoryEvent_Detection_ScanV1,
    AdvisoryEvent_FalsePositiveDetermination,
    AdvisoryEvent_Fixed,
    AdvisoryEvent_FixNotPlanned,
    AdvisoryEvent_PendingUpstreamFix,
    AdvisoryEvent_TruePositiveDetermination,
    ListAdvisoriesRequest,
)
from platform_api.service import listing, storage
from platform_api.store import rows
from platform_api.store.db import Conn

RESOURCE = "chainguard.platform.vulnerabilities.v2.Advisory"
# EventTypeFilter numbers (the proto enum), stored in advisory_events.type and advisories.latest_event_type.
EVENT_TYPE_NUMBERS = {
    "EVENT_TYPE_FILTER_DETECTION": 1,
    "EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION": 2,
    "EVENT_TYPE_FILTER_FIXED": 3,
    "EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION": 4,
    "EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED": 5,
    "EVENT_TYPE_FILTER_FIX_NOT_PLANNED": 6,
    "EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX": 7,
    "EVENT_TYPE_FILTER_PATCHED": 8,
}
_FORMAT_TYPE_NUMBERS = {
    fmt.DETECTION: 1,
    fmt.TRUE_POSITIVE: 2,
    fmt.FIXED: 3,
    fmt.FALSE_POSITIVE: 4,
    fmt.ANALYSIS_NOT_PLANNED: 5,
    fmt.FIX_NOT_PLANNED: 6,
    fmt.PENDING_UPSTREAM_FIX: 7,
}
REVIEW_STATE_NUMBERS = {
    "REVIEW_STATE_UNSPECIFIED": 0,
    "REVIEW_STATE_PENDING": 1,
    "REVIEW_STATE_APPROVED": 2,
    "REVIEW_STATE_REQUEST_CHANGES": 3,
    "REVIEW_STATE_REJECTED": 4,
}
# Imported events are the distribution's published record: approved (there is no review in the format).
IMPORTED_REVIEW_STATE = "REVIEW_STATE_APPROVED"
# The `digest` of an advisory written over the API (vulnerabilities.authoring) rather than imported: no
# content digest is this, so a re-import of the same (package, advisory id) rewrites it (the import wins).
AUTHORED = "authored"


def advisory_uid(group: str, package: str, advisory_id: str) -> str:
    key = package + "\0" + advisory_id
    return f"{group}/{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def event_uid(advisory: str, position: int) -> str:
    key = f"{advisory}/{position}"
    return f"{advisory}/{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def event(uid: str, e: fmt.Event) -> AdvisoryEvent:
    """The record of one event of the format: the one mapping of the YAML event types and their data (the
    public feed's DocumentEvent is derived from this record, `advisory.documents`)."""
    out = AdvisoryEvent(uid=uid, create_time=e.timestamp, review_state=IMPORTED_REVIEW_STATE)
    d = e.data
    if e.type == fmt.DETECTION:
        if d["type"] == "manual":
            out.detection = AdvisoryEvent_Detection(manual=AdvisoryEvent_Detection_Manual())
        elif d["type"] == "nvdapi":
            nvd = AdvisoryEvent_Detection_NVDAPI(cpe_searched=d["cpeSearched"], cpe_found=d["cpeFound"])
            out.detection = AdvisoryEvent_Detection(nvdapi=nvd)
        else:
            scan = AdvisoryEvent_Detection_ScanV1(
                scanner=d["scanner"], subpackage=d["subpackageName"], component_id=d["componentID"],
                component=d["componentName"], component_version=d["componentVersion"],
                component_type=d["componentType"], component_location=d["componentLocation"],
            )  # fmt: skip
            out.detection = AdvisoryEvent_Detection(scanv1=scan)
    elif e.type == fmt.TRUE_POSITIVE:
        out.true_positive_determination = AdvisoryEvent_TruePositiveDetermination(note=d.get("note", ""))
    elif e.type == fmt.FALSE_POSITIVE:
        kind: Any = "TYPE_" + d["type"].upper().replace("-", "_")
        out.false_positive_determination = AdvisoryEvent_FalsePositiveDetermination(type=kind, note=d.get("note", ""))
    elif e.type == fmt.FIXED:
        out.fixed = AdvisoryEvent_Fixed(fixed_version=d["fixed-version"])
    elif e.type == fmt.ANALYSIS_NOT_PLANNED:
        out.analysis_not_planned = AdvisoryEvent_AnalysisNotPlanned(note=d["note"])
    elif e.type == fmt.FIX_NOT_PLANNED:
        out.fix_not_planned = AdvisoryEvent_FixNotPlanned(note=d["note"])
    else:
        out.pending_upstream_fix = AdvisoryEvent_PendingUpstreamFix(note=d["note"])
    return out


def content_digest(adv: fmt.Advisory, artifact_type: str) -> str:
    """What decides whether a stored advisory must be rewritten (cheap: no record is built)."""
    return hashlib.sha256(f"{adv.digest}\0{artifact_type}".encode()).hexdigest()


@dataclass
class Row:
    """One advisory to store: its record and its filterable facts."""

    record: Advisory
    digest: str
    latest_event_type: int
    search: str
    # (event uid, type number) per event
    events: list[tuple[str, int]]


def build(group: str, package: str, adv: fmt.Advisory, artifact_type: str = "apk") -> Row:
    """The stored form of one parsed advisory of package `package`, imported into `group`.
    createTime is the first event's timestamp; updateTime is set when written."""
    uid = advisory_uid(group, package, adv.id)
    events = [event(event_uid(uid, i), e) for i, e in enumerate(adv.events)]
    # Latest by timestamp; of equal timestamps the later in the list (wolfictl's stable sort).
    order = sorted(range(len(adv.events)), key=lambda i: adv.events[i].timestamp)
    latest = adv.events[order[-1]]
    component = ("", "", "")
    for i in reversed(order):
        d = adv.events[i].data
        if adv.events[i].type == fmt.DETECTION and d.get("type") == "scan/v1":
            component = (d["componentName"], d["componentType"], d["componentLocation"])
            break
    record = Advisory(
        uid=uid, advisory_id=adv.id, create_time=adv.events[order[0]].timestamp, artifact_name=package,
        artifact_type=artifact_type, component_name=component[0], component_type=component[1],
        component_location=component[2], aliases=list(adv.aliases), events=events,
    )  # fmt: skip
    search = search_text(package, component[0], adv.aliases)
    digest = content_digest(adv, artifact_type)
    typed = [(ev.uid, _FORMAT_TYPE_NUMBERS[e.type]) for ev, e in zip(events, adv.events, strict=True)]
    return Row(record, digest, _FORMAT_TYPE_NUMBERS[latest.type], search, typed)


def search_text(package: str, component: str, aliases: Iterable[str]) -> str:
    """The `search` column (`query`'s substring match): lower-cased package, component name and aliases."""
    return "\n".join(s.lower() for s in (package, component, *aliases) if s)


async def digests(conn: Conn, group: str) -> dict[str, str]:
    """{uid: content digest} of the advisories stored in `group`."""
    found = await conn.fetch("SELECT uid, digest FROM advisories WHERE parent = $1", group)
    return {r["uid"]: r["digest"] for r in found}


_INSERT = (
    "INSERT INTO advisories (uid, parent, advisory_id, artifact_name, artifact_type, component_name,"
    " component_type, component_location, latest_event_type, search, digest, create_time, update_time, body,"
    " artifact_architecture) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
)
_UPDATE = (
    "UPDATE advisories SET advisory_id = $3, artifact_name = $4, artifact_type = $5, component_name = $6,"
    " component_type = $7, component_location = $8, latest_event_type = $9, search = $10, digest = $11,"
    " create_time = $12, update_time = $13, body = $14, artifact_architecture = $15 WHERE uid = $1 AND parent = $2"
)


def _columns(group: str, r: Row) -> tuple[Any, ...]:
    a = r.record
    return (a.uid, group, a.advisory_id, a.artifact_name, a.artifact_type, a.component_name, a.component_type,
            a.component_location, r.latest_event_type, r.search, r.digest, a.create_time, a.update_time,
            rows.body(a), a.artifact_architecture)  # fmt: skip


async def write(tx: Conn, group: str, new: Sequence[Row], changed: Sequence[Row], now: str) -> None:
    """Insert `new` and rewrite `changed` advisories of `group` (with their aliases and events), in `tx`."""
    for r in (*new, *changed):
        r.record.update_time = now
    if changed:
        uids = [(r.record.uid,) for r in changed]
        await tx.executemany("DELETE FROM advisory_aliases WHERE advisory = $1", uids)
        await tx.executemany("DELETE FROM advisory_events WHERE advisory = $1", uids)
        await tx.executemany(_UPDATE, [_columns(group, r) for r in changed])
    if new:
        await tx.executemany(_INSERT, [_columns(group, r) for r in new])
        # The group's row counter for totalCount (migration 0006: maintained here, once per write).
        await listing.add_counts(tx, "advisories", [(group, 0, len(new))])
    both = (*new, *changed)
    await tx.executemany(
        "INSERT INTO advisory_aliases (alias, advisory) VALUES ($1, $2)",
        [(alias, r.record.uid) for r in both for alias in r.record.aliases],
    )
    # The events' filterable facts as their records hold them (imported ones: approved, no author).
    facts = [
        (uid, r.record.uid, t, e.author, e.reviewer, REVIEW_STATE_NUMBERS[e.review_state])
        for r in both
        for (uid, t), e in zip(r.events, r.record.events, strict=True)
    ]
    await tx.executemany(
        "INSERT INTO advisory_events (uid, advisory, type, author, reviewer, review_state)"
        " VALUES ($1, $2, $3, $4, $5, $6)",
        facts,
    )


async def stored(tx: Conn, uid: str) -> tuple[Advisory, bool]:
    """The advisory `uid` and whether it was authored over the API (not imported), its row locked until
    `tx` ends (read-modify-write); NOT_FOUND when there is none."""
    row = await tx.fetchrow("SELECT body, digest FROM advisories WHERE uid = $1" + rows.for_update(tx), uid)
    if row is None:
        raise errors.not_found(RESOURCE, uid)
    return rows.decode(Advisory, row["body"]), row["digest"] == AUTHORED


async def delete(tx: Conn, group: str, uid: str) -> None:
    """Remove one advisory of `group` with its aliases and events (an authored one, deleted over the API)."""
    await tx.execute("DELETE FROM advisory_events WHERE advisory = $1", uid)
    await tx.execute("DELETE FROM advisory_aliases WHERE advisory = $1", uid)
    if await tx.execute("DELETE FROM advisories WHERE uid = $1 AND parent = $2", uid, group):
        await listing.add_counts(tx, "advisories", [(group, 0, -1)])


async def delete_in_group(tx: Conn, group: str) -> None:
    """Remove the advisories stored in `group` with their events, aliases and row counter (the group is
    being deleted; the public feed's documents are global and stay)."""
    owned = "SELECT uid FROM advisories WHERE parent = $1"
    await tx.execute(f"DELETE FROM advisory_events WHERE advisory IN ({owned})", group)
    await tx.execute(f"DELETE FROM advisory_aliases WHERE advisory IN ({owned})", group)
    await tx.execute("DELETE FROM advisories WHERE parent = $1", group)
    await listing.drop_counts(tx, "advisories", group)


async def aliases_of(conn: Conn, uids: Iterable[str]) -> dict[str, list[str]]:
    """{advisory uid: its aliases} (e.g. to join OSV severities onto a page of advisories)."""
    wanted = list(dict.fromkeys(uids))
    out: dict[str, list[str]] = {u: [] for u in wanted}
    sql = "SELECT advisory, alias FROM advisory_aliases WHERE advisory = ANY($1) ORDER BY alias"
    for r in await conn.fetch(sql, wanted):
        out[r["advisory"]].append(r["alias"])
    return out


class Fixed(NamedTuple):
    """An advisory's `fixed` event: which advisory, its aliases, when."""

    advisory_id: str
    aliases: list[str]
    time: str


async def fixed_between(conn: Conn, org: str, packages: Iterable[str], start: str, end: str) -> list[Fixed]:
    """The `fixed` events in [start, end] (canonical timestamps) of the advisories stored under group
    `org` (at any depth) for the packages named, ordered by time then advisory id."""
    sql = (
        "SELECT body FROM advisories WHERE uid > $1 AND uid < $2 AND artifact_name = ANY($4)"
        " AND uid IN (SELECT advisory FROM advisory_events WHERE type = $3)"
    )
    fixed = EVENT_TYPE_NUMBERS["EVENT_TYPE_FILTER_FIXED"]
    found: list[Fixed] = []
    for r in await conn.fetch(sql, org + "/", org + "0", fixed, sorted(set(packages))):
        advisory = rows.decode(Advisory, r["body"])
        for event in advisory.events:
            when = event.create_time or ""
            if event.fixed is not None and start <= when <= end:
                found.append(Fixed(advisory.advisory_id, advisory.aliases, when))
    return sorted(found, key=lambda f: (f.time, f.advisory_id))


# ------------------------------------------------------------------ ListAdvisories

TABLE = listing.Table(
    "advisories",
    order_keys={
        "uid": "uid",
        "created_at": "create_time",
        "create_time": "create_time",
        "updated_at": "update_time",
        "update_time": "update_time",
        "artifact_name": "artifact_name",
        "advisory_id": "advisory_id",
    },
)
MAX_QUERY = 256


async def get(conn: Conn, uid: str) -> Advisory:
    return await storage.get(conn, "advisories", Advisory, RESOURCE, uid)


# Which advisories have an alias, or an event, whose column holds one of a list of values.
_ALIASED = "SELECT advisory FROM advisory_aliases WHERE alias = ANY({})"
_EVENTS = {
    column: f"SELECT advisory FROM advisory_events WHERE {column} = ANY({{}})"
    for column in ("review_state", "author", "reviewer", "type")
}


def _subquery(where: listing.Where, sql: str, values: list[object], negate: bool = False) -> None:
    where.add(f"uid {'NOT IN' if negate else 'IN'} ({sql.format(where.p(values))})")


def _event_type(name: str, value: str) -> int:
    number = EVENT_TYPE_NUMBERS.get(value)
    if number is None:
        raise errors.invalid_argument(name, f"{name} must name an event type, not {value}")
    return number


def filters(req: ListAdvisoriesRequest) -> listing.Where:
    """The SQL conditions of a ListAdvisoriesRequest (before visibility and paging)."""
    where = listing.Where()
    listing.add_uidp_filter(where, req.uidp)
    columns = (
        ("advisory_id", req.advisory_ids),
        ("legacy_advisory_id", req.legacy_advisory_ids),
        ("artifact_type", req.artifact_types),
        ("artifact_architecture", req.artifact_architectures),
        ("component_name", req.component_names),
        ("component_type", req.component_types),
        ("component_location", req.component_locations),
    )
    for column, values in columns:
        if values:
            where.any_of(column, list(values))
    # `origin`: the advisories of the packages whose origin package it names. An imported document is one
    # origin package and its advisories' artifactName is that package, so origin selects on artifact_name
    # (and, as the contract says, artifact_names is then ignored).
    if isinstance(req.origin, str):
        where.eq("artifact_name", req.origin)
    elif req.artifact_names:
        where.any_of("artifact_name", list(req.artifact_names))
    if req.aliases:
        _subquery(where, _ALIASED, list(req.aliases))
    if req.event_review_states:
        states: list[object] = [REVIEW_STATE_NUMBERS[s] for s in req.event_review_states]
        _subquery(where, _EVENTS["review_state"], states)
    if req.event_authors:
        _subquery(where, _EVENTS["author"], list(req.event_authors))
    if req.exclude_event_authors:
        _subquery(where, _EVENTS["author"], list(req.exclude_event_authors), negate=True)
    if req.event_reviewers:
        _subquery(where, _EVENTS["reviewer"], list(req.event_reviewers))
    if req.event_types:
        types: list[object] = [_event_type("event_types", t) for t in req.event_types]
        _subquery(where, _EVENTS["type"], types)
    if isinstance(req.latest_event_type, str):
        where.eq("latest_event_type", _event_type("latest_event_type", req.latest_event_type))
    if req.query:
        if len(req.query) > MAX_QUERY:
            raise errors.invalid_argument("query", f"query must be at most {MAX_QUERY} characters")
        pattern = req.query.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.add(f"search LIKE {where.p('%' + pattern + '%')} ESCAPE '\\'")
    return where
