"""v1 Advisories (`/vulnerabilities/v1/advisories`, chainguard.platform.vulnerabilities.v1.Advisories): reads
over the v2 implementation (the same advisories and events seen both ways, the full filtered set, `{}` for an
unknown id), authoring (created over v1 visible over v2, PUT replaces, review of events), imported advisories
read-only and a re-import taking an authored one over, the same authorization; HTTP and gRPC."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.vulnerabilities.v1 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import Server, assert_error, imported, mk_group, ok, unique

V1 = "/vulnerabilities/v1/advisories"
V2 = "/vulnerabilities/v2/advisories"
EVENTS = "/vulnerabilities/v1/advisory_events"
ALPHABET = "23456789cfghjmpqrvwx"


def cga(n: int, salt: str) -> str:
    digits = "".join(ALPHABET[(n // 20**i) % 20] for i in range(4))
    return f"CGA-{salt}-{digits}-{digits[::-1]}"


def salt() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(4))


def document(package: str, ids: list[str]) -> str:
    """An advisory document of `package` with these advisories (events of varied types)."""
    out = [f'schema-version: "2.0"\npackage:\n  name: {package}\nadvisories:']
    for i, a in enumerate(ids):
        out.append(f"  - id: {a}\n    aliases: [CVE-2023-{10000 + i}]\n    events:")
        out.append(
            "      - timestamp: 2023-06-06T17:02:18Z\n        type: detection\n        data:\n          type: manual"
        )
        if i % 2:
            out.append(f"      - timestamp: 2023-06-07T09:30:00.25Z\n        type: fixed\n        data:\n"
                       f"          fixed-version: 1.{i}-r0")  # fmt: skip
        else:
            out.append("      - timestamp: 2023-06-08T00:00:00+02:00\n        type: false-positive-determination\n"
                       "        data:\n          type: vulnerable-code-not-in-execution-path\n"
                       "          note: n")  # fmt: skip
    return "\n".join(out) + "\n"


def do_import(server: Server, org: str, tmp: Path, docs: dict[str, list[str]]) -> dict[str, Any]:
    d = tmp / secrets.token_hex(4)
    d.mkdir()
    for package, ids in docs.items():
        (d / f"{package}.yaml").write_text(document(package, ids))
    return imported(server, "advisories", str(d), "--group", org)


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(V1, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def v2_all(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = ""
    while True:
        body = ok(http.get(V2, params={**params, "page_size": 200, "page_token": token}))
        out += body.get("advisories", [])
        token = body.get("nextPageToken", "")
        if not token:
            return out


def instant(t: str | None) -> datetime | None:
    return None if t is None else datetime.fromisoformat(t.replace("Z", "+00:00"))


def same_event(one: dict[str, Any], two: dict[str, Any]) -> None:
    assert one["id"] == two["uid"] and instant(one.get("timestamp")) == instant(two.get("createTime"))
    status = two.get("reviewState", "REVIEW_STATE_UNSPECIFIED").removeprefix("REVIEW_STATE_")
    assert one.get("status", "UNKNOWN") == ("UNKNOWN" if status == "UNSPECIFIED" else status)
    assert (one.get("author", ""), one.get("reviewer", "")) == (two.get("author", ""), two.get("reviewer", ""))
    for kind in ("fixed", "pendingUpstreamFix", "analysisNotPlanned", "fixNotPlanned", "patched", "detection"):
        assert one.get(kind) == two.get(kind), kind
    fp1, fp2 = one.get("falsePositiveDetermination"), two.get("falsePositiveDetermination")
    assert (fp1 is None) == (fp2 is None)
    if fp1 is not None and fp2 is not None:
        assert "TYPE_" + fp1["type"] == fp2["type"] and fp1.get("note") == fp2.get("note")


def same_advisory(one: dict[str, Any], two: dict[str, Any]) -> None:
    assert (one["id"], one["advisoryId"], one["artifactName"], one.get("artifactType")) == (
        two["uid"], two["advisoryId"], two["artifactName"], two.get("artifactType"))  # fmt: skip
    assert instant(one.get("createdAt")) == instant(two.get("createTime"))
    assert instant(one.get("updatedAt")) == instant(two.get("updateTime"))
    assert one.get("aliases", []) == two.get("aliases", []) and one.get("author", "") == two.get("author", "")
    assert len(one.get("events", [])) == len(two.get("events", []))
    for e1, e2 in zip(one.get("events", []), two.get("events", []), strict=True):
        same_event(e1, e2)
    assert "severities" not in one


AUTHORING = ["CAP_ADVISORIES_LIST", "CAP_ADVISORIES_CREATE", "CAP_ADVISORIES_UPDATE", "CAP_ADVISORIES_DELETE"]


def advisory_editor(server: Server, group: str, *capabilities: str) -> tuple[str, str]:
    """A new identity holding a role of these capabilities at `group`, and a token for it. No built-in role
    grants advisory authoring and nobody may grant what they do not hold: the operator's `platform-api grant`."""
    subject = secrets.token_hex(8)
    claim = {"issuer": "https://issuer.example", "subject": subject}
    ident = ok(server.http.post(f"/iam/v2/identities/{group}", json={"name": f"id-{subject}", "claimMatch": claim}))
    out = json.loads(server.cli("grant", "--group", group, "--identity", ident["uid"], "--role-name",
                                unique("advisories"), *capabilities))  # fmt: skip
    assert out["createdRole"] is True and out["binding"].startswith(group + "/")
    return str(ident["uid"]), server.mint(ident["uid"])


class Team:
    """A shared organization (one per backend for this module) and its advisory editor and reviewer."""

    def __init__(self, server: Server) -> None:
        self.org = str(mk_group(server.http, "", unique("org"))["uid"])
        self.editor_uid, token = advisory_editor(server, self.org, *AUTHORING)
        self.editor = server.client(token)
        self.reviewer_uid, self.reviewer_token = advisory_editor(server, self.org, *AUTHORING, "CAP_ADVISORIES_APPROVE")
        self.reviewer = server.client(self.reviewer_token)


@pytest.fixture(scope="module")
def team(server: Server) -> Iterator[Team]:
    t = Team(server)
    yield t
    t.editor.close()
    t.reviewer.close()


def authored(http: httpx.Client, group: str, package: str, **fields: Any) -> dict[str, Any]:
    body = {"artifactName": package, "artifactType": "apk", **fields}
    return ok(http.post(V1, json={"parentId": group, "advisory": body}))


def subgroup(http: httpx.Client, team: Team) -> str:
    return str(mk_group(http, team.org, unique("g"))["uid"])


def test_list_is_the_v2_set_and_events(server: Server, http: httpx.Client, team: Team, tmp_path: Path) -> None:
    org = subgroup(http, team)
    s = salt()
    big, small = unique("big"), unique("small")
    ids = [cga(i, s) for i in range(205)]  # more than one v2 page (200)
    assert do_import(server, org, tmp_path, {big: ids, small: [cga(999, s)]})["created"] == 206
    listed = v1_list(http, **{"uidp.descendantsOf": org})
    v2 = {a["uid"]: a for a in v2_all(http, **{"uidp.descendants_of": org})}
    assert len(listed) == 206 and {a["id"] for a in listed} == set(v2)
    for a in listed:
        same_advisory(a, v2[a["id"]])
    assert {a["advisoryId"] for a in v1_list(http, artifactName=small)} == {cga(999, s)}
    fixed = v1_list(http, artifactName=big, eventTypes="EVENT_TYPE_FILTER_FIXED")
    assert len(fixed) == 102 and all(any("fixed" in e for e in a["events"]) for a in fixed)
    assert len(v1_list(http, artifactName=big, eventStatuses="PENDING")) == 0
    assert len(v1_list(http, artifactName=small, eventStatuses="APPROVED")) == 1
    one = v1_list(http, id=listed[3]["id"])
    assert [a["id"] for a in one] == [listed[3]["id"]]
    assert ok(http.get(V1, params={"id": org + "/" + "0" * 16})) == {}
    ordered = v1_list(http, artifactName=big, orderBy="ID_DESC")
    assert [a["id"] for a in ordered] == sorted((a["id"] for a in ordered), reverse=True)
    assert_error(http.get(V1, params={"orderBy": "ALIASES_ASC"}), 400, 3, "order_by")
    clc = {"eventTypes": "EVENT_TYPE_FILTER_COMPONENT_LOCATION_CHANGED"}
    assert_error(http.get(V1, params=clc), 400, 3, "event_types")
    # ListAdvisoryEvents: the advisory's events as v2 has them; `{}` for an advisory that does not exist
    target = one[0]["id"]
    events = ok(http.get(f"{V1}/{target}/events"))
    assert events["parentId"] == target
    for e1, e2 in zip(events["items"], v2[target]["events"], strict=True):
        same_event(e1, e2)
    assert ok(http.get(f"{V1}/{org}/{'0' * 16}/events")) == {}
    # imported advisories are read-only over the API; a Create on one's (package, id) is a conflict
    ed = team.editor
    put = ed.put(f"{V1}/{target}", json={"artifactName": big, "artifactType": "apk"})
    assert_error(put, 400, 9)
    assert "IMPORTED" in put.text
    assert_error(ed.delete(f"{V1}/{target}"), 400, 9)
    assert_error(ed.post(f"{V1}/{target}/events", json={"advisoryEvent": {"detection": {"manual": {}}}}), 400, 9)
    event = f"/vulnerabilities/v1/advisory_events/{events['items'][0]['id']}"
    assert_error(team.reviewer.put(event, json={"detection": {"manual": {}}, "status": "REJECTED"}), 400, 9)
    again = {"artifactName": small, "artifactType": "apk", "advisoryId": cga(999, s)}
    assert_error(ed.post(V1, json={"parentId": org, "advisory": again}), 409, 6)


def test_authored_over_v1_is_over_v2_and_reviewed(http: httpx.Client, anon: httpx.Client, team: Team) -> None:
    org = subgroup(http, team)
    ed, me = team.editor, team.editor_uid
    package = unique("pkg")
    made = authored(ed, org, package, aliases=["CVE-2024-0001"], componentName="libfoo",
                    events=[{"detection": {"manual": {}}, "timestamp": "2024-01-02T03:04:05Z"}])  # fmt: skip
    assert made["id"].startswith(org + "/") and made["advisoryId"].startswith("CGA-") and made["author"] == me
    [event] = made["events"]
    assert (event["status"], event["author"], event.get("reviewer")) == ("PENDING", me, None)
    assert instant(event["timestamp"]) == instant("2024-01-02T03:04:05Z")
    v2 = ok(http.get(f"{V2}/{made['id']}"))
    same_advisory(made, v2)
    assert v2["componentName"] == "libfoo" and v2["events"][0]["reviewState"] == "REVIEW_STATE_PENDING"
    pending = {"event_review_states": "REVIEW_STATE_PENDING", "uidp.descendants_of": org}
    assert [a["uid"] for a in v2_all(http, **pending)] == [made["id"]]
    assert [a["id"] for a in v1_list(http, eventAuthor=me, artifactName=package)] == [made["id"]]
    same = {"artifactName": package, "artifactType": "apk", "advisoryId": made["advisoryId"]}
    assert_error(ed.post(V1, json={"parentId": org, "advisory": same}), 409, 6)
    # an event added is pending; a verdict takes CAP_ADVISORIES_APPROVE and records the reviewer; the latest
    # approved event decides the advisory's latest event type
    fix = ok(ed.post(f"{V1}/{made['id']}/events", json={"advisoryEvent": {"fixed": {"fixedVersion": "1.2-r0"}}}))
    assert (fix["status"], fix["author"]) == ("PENDING", me) and fix["id"].startswith(made["id"] + "/")
    latest = {"latestEventType": "EVENT_TYPE_FILTER_FIXED", "artifactName": package}
    assert v1_list(http, **latest) == []
    at = f"/vulnerabilities/v1/advisory_events/{fix['id']}"
    assert_error(ed.put(at, json={**fix, "status": "APPROVED"}), 403, 7)
    edited = ok(ed.put(at, json={**fix, "fixed": {"fixedVersion": "1.3-r0"}}))
    assert (edited["status"], edited["fixed"]) == ("PENDING", {"fixedVersion": "1.3-r0"})
    approved = ok(team.reviewer.put(at, json={**edited, "status": "APPROVED"}))
    assert (approved["status"], approved["reviewer"], approved["author"]) == ("APPROVED", team.reviewer_uid, me)
    assert [a["id"] for a in v1_list(http, **latest)] == [made["id"]]
    assert [a["id"] for a in v1_list(http, eventReviewer=team.reviewer_uid, artifactName=package)] == [made["id"]]
    events = ok(http.get(f"{V1}/{made['id']}/events"))["items"]
    assert [e["id"] for e in events] == [event["id"], fix["id"]] and events[1]["status"] == "APPROVED"
    v2 = ok(http.get(f"{V2}/{made['id']}"))
    assert (
        v2["events"][1]["reviewer"] == team.reviewer_uid and v2["events"][1]["reviewState"] == "REVIEW_STATE_APPROVED"
    )
    # the public feed is the imported documents only: a group's authored advisories stay the group's
    assert ok(anon.get("/advisory/v2/documents", params={"id": package})).get("documents", []) == []
    # the editor re-sending the approved event unchanged keeps its review; editing it asks for a new one
    assert ok(ed.put(at, json=approved))["reviewer"] == team.reviewer_uid
    changed = ok(ed.put(at, json={**approved, "fixed": {"fixedVersion": "1.4-r0"}}))
    assert (changed["status"], changed.get("reviewer")) == ("PENDING", None)
    assert v1_list(http, **latest) == []
    rejected = ok(team.reviewer.put(at, json={**changed, "status": "REJECTED", "reviewer": team.reviewer_uid}))
    assert (rejected["status"], rejected["reviewer"]) == ("REJECTED", team.reviewer_uid)
    # authors are the caller; a new event is never reviewed; an event has one type, one we keep
    base = f"{V1}/{made['id']}/events"
    manual = {"detection": {"manual": {}}}
    assert_error(ed.post(base, json={"advisoryEvent": {**manual, "author": "0" * 40}}), 400, 3, "advisory_event.author")
    assert_error(ed.post(base, json={"advisoryEvent": {**manual, "status": "APPROVED"}}), 400, 3)
    assert_error(ed.post(base, json={"advisoryEvent": {}}), 400, 3, "advisory_event")
    clc = {"componentLocationChanged": {"newLocation": "/x"}}
    assert_error(ed.post(base, json={"advisoryEvent": clc}), 400, 3, "advisory_event.component_location_changed")
    assert_error(ed.put(f"/vulnerabilities/v1/advisory_events/{made['id']}/{'0' * 16}", json=manual), 404, 5)


class Reviewed:
    """Issue 26 item 7: an authored advisory of three events approved by the team's reviewer: a detection, then
    a fix and a decision not to fix of one later time (of one time the later created decides the verdict)."""

    def __init__(self, http: httpx.Client, team: Team) -> None:
        self.http, self.package = http, unique("pkg")
        same = "2024-05-01T00:00:00.000Z"
        made = authored(team.editor, subgroup(http, team), self.package, events=[
            {"detection": {"manual": {}}, "timestamp": "2024-01-01T00:00:00Z"},
            {"fixed": {"fixedVersion": "1.2-r0"}, "timestamp": same},
            {"fixNotPlanned": {"note": "no"}, "timestamp": same},
        ])  # fmt: skip
        self.events = [ok(team.reviewer.put(f"{EVENTS}/{e['id']}", json={**e, "status": "APPROVED"}))
                       for e in made["events"]]  # fmt: skip
        self.ids = [e["id"] for e in self.events]
        self.url = f"{V1}/{made['id']}"
        self.body = {"artifactName": self.package, "artifactType": "apk"}
        assert self.verdict() == ["FIX_NOT_PLANNED"]

    def verdict(self) -> list[str]:
        """The latest event types the advisory is listed under."""
        kinds = ("FIX_NOT_PLANNED", "FIXED", "DETECTION")
        got = [v1_list(self.http, artifactName=self.package, latestEventType=f"EVENT_TYPE_FILTER_{k}") for k in kinds]
        return [k for k, found in zip(kinds, got, strict=True) if found]


def test_a_writer_without_approve_cannot_reorder_approved_events(http: httpx.Client, team: Team) -> None:
    r = Reviewed(http, team)
    one, two, three = r.events
    done = ok(team.editor.put(r.url, json={**r.body, "events": [one, three, two]}))
    assert [(e["id"], e["status"], e["reviewer"]) for e in done["events"]] == [
        (e, "APPROVED", team.reviewer_uid) for e in r.ids
    ]  # kept in creation order: the verdict is the reviewed one
    assert r.verdict() == ["FIX_NOT_PLANNED"]


def test_an_approved_event_given_a_new_time_by_a_writer_is_pending(server: Server, http: httpx.Client,
                                                                   team: Team) -> None:  # fmt: skip
    r = Reviewed(http, team)
    # the event's own PUT, over gRPC: APPROVED sent with a new time answers PENDING, no reviewer
    token = team.editor.headers["authorization"].split()[1]
    stub = advisory_pb2_grpc.AdvisoriesStub(server.grpc_channel(token))
    moved = advisory_pb2.AdvisoryEvent(id=r.ids[2], fix_not_planned=advisory_pb2.AdvisoryEvent.FixNotPlanned(
        note="no"), status=advisory_pb2.APPROVED)  # fmt: skip
    moved.timestamp.FromJsonString("2024-06-01T00:00:00Z")
    answer = stub.UpdateAdvisoryEvent(moved)
    assert (answer.status, answer.reviewer) == (advisory_pb2.PENDING, "")
    assert r.verdict() == ["FIXED"]  # the approved events that are left decide
    # the advisory's PUT over HTTP: the same
    later = {**r.events[1], "timestamp": "2024-07-01T00:00:00Z"}
    pending = {**r.events[2], "status": "PENDING", "reviewer": ""}  # as it now is
    done = ok(team.editor.put(r.url, json={**r.body, "events": [r.events[0], later, pending]}))
    assert [(e["status"], e.get("reviewer")) for e in done["events"]] == [
        ("APPROVED", team.reviewer_uid), ("PENDING", None), ("PENDING", None)
    ]  # fmt: skip
    assert r.verdict() == ["DETECTION"]
    # the reviewer's own change of time is a review
    again = ok(team.reviewer.put(f"{EVENTS}/{r.ids[1]}", json={**done["events"][1], "status": "APPROVED"}))
    assert (again["status"], again["reviewer"]) == ("APPROVED", team.reviewer_uid)
    assert r.verdict() == ["FIXED"]


def test_an_approved_event_is_removed_only_with_approve(http: httpx.Client, team: Team) -> None:
    r = Reviewed(http, team)
    one, two, three = r.events
    assert_error(team.editor.put(r.url, json={**r.body, "events": [one, two]}), 403, 7)
    assert [e["id"] for e in ok(http.get(f"{r.url}/events"))["items"]] == r.ids
    assert r.verdict() == ["FIX_NOT_PLANNED"]
    # once pending (changed), it is the writer's to remove; the reviewer removes approved ones
    ok(team.editor.put(f"{EVENTS}/{r.ids[2]}", json={**three, "status": "PENDING", "reviewer": ""}))
    assert [e["id"] for e in ok(team.editor.put(r.url, json={**r.body, "events": [one, two]}))["events"]] == r.ids[:2]
    assert r.verdict() == ["FIXED"]
    assert ok(team.reviewer.put(r.url, json=r.body)).get("events", []) == []
    assert r.verdict() == []


def test_put_replaces_and_delete(http: httpx.Client, team: Team) -> None:
    org = subgroup(http, team)
    ed = team.editor
    package = unique("pkg")
    made = authored(ed, org, package, aliases=["CVE-2024-0002", "GHSA-2345-6789-cfgh"], componentName="c",
                    events=[{"detection": {"manual": {}}}, {"fixNotPlanned": {"note": "no"}}])  # fmt: skip
    first = made["events"][0]
    put = {"artifactName": package, "artifactType": "apk", "artifactArchitecture": "x86_64",
           "events": [first, {"pendingUpstreamFix": {"note": "soon"}}]}  # fmt: skip
    done = ok(ed.put(f"{V1}/{made['id']}", json=put))
    # what was not sent is cleared (aliases, component, the second event); the first event kept its id
    assert "aliases" not in done and "componentName" not in done and done["artifactArchitecture"] == "x86_64"
    assert done["events"][0]["id"] == first["id"] and len(done["events"]) == 2
    assert done["events"][1]["pendingUpstreamFix"] == {"note": "soon"} and done["events"][1]["status"] == "PENDING"
    v2 = ok(http.get(f"{V2}/{made['id']}"))
    same_advisory(done, v2)
    assert v2["artifactArchitecture"] == "x86_64" and "aliases" not in v2
    arch = {"artifact_architectures": "x86_64", "uidp.descendants_of": org}
    assert [a["uid"] for a in v2_all(http, **arch)] == [made["id"]]
    assert_error(
        ed.put(f"{V1}/{made['id']}", json={**put, "artifactName": "renamed"}), 400, 3, "advisory.artifact_name"
    )
    bad = {**put, "events": [{"id": made["id"] + "/" + "0" * 16, **first}]}
    bad["events"][0]["id"] = made["id"] + "/" + "0" * 16
    assert_error(ed.put(f"{V1}/{made['id']}", json=bad), 400, 3, "advisory.events[0].id")
    legacy = {**put, "legacyAdvisoryID": "x"}
    assert_error(ed.put(f"{V1}/{made['id']}", json=legacy), 400, 3, "advisory.legacyAdvisoryID")
    assert ok(ed.delete(f"{V1}/{made['id']}")) == {}
    assert http.get(f"{V2}/{made['id']}").status_code == 404
    assert_error(ed.delete(f"{V1}/{made['id']}"), 404, 5)
    assert_error(ed.put(f"{V1}/{made['id']}", json=put), 404, 5)


def test_reimport_takes_an_authored_advisory_over(server: Server, http: httpx.Client, team: Team,
                                                  tmp_path: Path) -> None:  # fmt: skip
    org = subgroup(http, team)
    s = salt()
    package = unique("pkg")
    mine = authored(team.editor, org, package, advisoryId=cga(1, s), events=[{"detection": {"manual": {}}}])
    summary = do_import(server, org, tmp_path, {package: [cga(1, s), cga(2, s)]})
    assert (summary["created"], summary["updated"]) == (1, 1)
    now = ok(http.get(f"{V2}/{mine['id']}"))
    assert len(now["events"]) == 2 and {e["reviewState"] for e in now["events"]} == {"REVIEW_STATE_APPROVED"}
    assert "author" not in now and now["uid"] == mine["id"]
    assert_error(team.editor.delete(f"{V1}/{mine['id']}"), 400, 9)


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, team: Team) -> None:
    org = subgroup(http, team)
    sub = mk_group(http, org, unique("sub"))["uid"]
    other = mk_group(http, org, unique("other"))["uid"]
    a = authored(team.editor, sub, unique("p"), events=[{"detection": {"manual": {}}}])
    b = authored(team.editor, other, unique("p"))
    # the owner lists and reads them, but no built-in role authors advisories
    assert_error(
        http.post(V1, json={"parentId": sub, "advisory": {"artifactName": "x", "artifactType": "apk"}}), 403, 7
    )
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        seen = v1_list(viewer, **{"uidp.descendantsOf": org})
        v2 = v2_all(viewer, **{"uidp.descendants_of": org})
        assert [x["id"] for x in seen] == [x["uid"] for x in v2] == [a["id"]]
        assert v1_list(viewer, id=b["id"]) == []
        assert ok(viewer.get(f"{V1}/{a['id']}/events"))["items"][0]["id"] == a["events"][0]["id"]
        assert viewer.get(f"{V2}/{b['id']}").status_code == viewer.get(f"{V1}/{b['id']}/events").status_code
        body = {"artifactName": "x", "artifactType": "apk"}
        assert viewer.post(V1, json={"parentId": sub, "advisory": body}).status_code == 403
        assert viewer.put(f"{V1}/{a['id']}", json=body).status_code == 403
        assert viewer.delete(f"{V1}/{a['id']}").status_code == 403
        ev = {"advisoryEvent": {"detection": {"manual": {}}}}
        assert viewer.post(f"{V1}/{a['id']}/events", json=ev).status_code == 403
        verdict = {"status": "APPROVED", "detection": {"manual": {}}}
        assert (
            viewer.put(f"/vulnerabilities/v1/advisory_events/{a['events'][0]['id']}", json=verdict).status_code == 403
        )


def test_over_grpc_with_the_contract_messages(server: Server, http: httpx.Client, team: Team) -> None:
    org = subgroup(http, team)
    stub = advisory_pb2_grpc.AdvisoriesStub(server.grpc_channel(team.reviewer_token))
    ev = advisory_pb2.AdvisoryEvent(detection=advisory_pb2.AdvisoryEvent.Detection(
        manual=advisory_pb2.AdvisoryEvent.Detection.Manual()))  # fmt: skip
    made = stub.Create(advisory_pb2.CreateAdvisoryRequest(parent_id=org, advisory=advisory_pb2.Advisory(
        artifact_name=unique("g"), artifact_type="apk", aliases=["CVE-2024-0003"], events=[ev])))  # fmt: skip
    assert made.id.startswith(org + "/") and made.events[0].status == advisory_pb2.PENDING
    found = stub.List(advisory_pb2.AdvisoryFilter(uidp=uidp_pb2.UIDPFilter(descendants_of=org)))
    assert [(a.id, a.advisory_id) for a in found.items] == [(made.id, made.advisory_id)]
    events = stub.ListAdvisoryEvents(advisory_pb2.AdvisoryEventFilter(parent_id=made.id))
    assert [e.id for e in events.items] == [made.events[0].id]
    approved = advisory_pb2.AdvisoryEvent(id=made.events[0].id, detection=ev.detection, status=advisory_pb2.APPROVED)
    assert stub.UpdateAdvisoryEvent(approved).reviewer == made.author == team.reviewer_uid
    stub.Delete(advisory_pb2.DeleteAdvisoryRequest(id=made.id))
    assert list(stub.List(advisory_pb2.AdvisoryFilter(id=made.id)).items) == []
