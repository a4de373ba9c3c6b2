"""vulnerabilities.v2 AdvisoriesService over the wire, both transports: every ListAdvisories filter, ordering,
paging, visibility and authorization, over advisories imported from tests/data/advisories."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.vulnerabilities.v2 import advisories_pb2, advisories_pb2_grpc
from tests.helpers import imported

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories"


def import_fixtures(server: Any, org: str, tmp: Path) -> dict[str, str]:
    """The fixture documents imported into `org` under unique package names: {fixture name: package}."""
    suffix = secrets.token_hex(3)
    names = {}
    for f in sorted(DATA.glob("*.advisories.yaml")):
        base = f.name.split(".")[0]
        names[base] = f"{base}-{suffix}"
        (tmp / f"{base}.yaml").write_text(f.read_text().replace(f"name: {base}\n", f"name: {names[base]}\n"))
    assert imported(server, "advisories", str(tmp), "--group", org)["created"] == 5
    return names


def ids(http: httpx.Client, org: str, **params: Any) -> list[str]:
    r = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org, **params})
    assert r.status_code == 200, r.text
    return [a["advisoryId"] for a in r.json().get("advisories", [])]


CRANE = ["CGA-2fq3-jx6r-8w4c", "CGA-9cgh-j2rr-5vwx", "CGA-m7vp-w9xq-c3hr"]
BUSYBOX = ["CGA-qqq2-3456-789c", "CGA-wwx2-3456-789c"]


def test_every_filter(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    names = import_fixtures(server, org, tmp_path)
    crane, busybox = names["crane"], names["busybox"]
    everything = sorted(CRANE + BUSYBOX)

    def check(expected: list[str], **params: Any) -> None:
        assert sorted(ids(http, org, page_size=200, **params)) == sorted(expected), params

    check(everything)
    check(["CGA-9cgh-j2rr-5vwx", "CGA-qqq2-3456-789c"], advisory_ids=["CGA-9cgh-j2rr-5vwx", "CGA-qqq2-3456-789c"])
    check([], legacy_advisory_ids=["GHSA-aaaa-bbbb-cccc"])
    check(CRANE, artifact_names=[crane])
    check(everything, artifact_names=[crane, busybox])
    check(BUSYBOX, origin=busybox, artifact_names=[crane])  # origin wins over artifact_names
    check(everything, artifact_types=["apk"])
    check([], artifact_types=["library"])
    check([], artifact_architectures=["x86_64"])
    check(["CGA-2fq3-jx6r-8w4c"], component_names=["github.com/docker/distribution"])
    check(["CGA-2fq3-jx6r-8w4c"], component_types=["go-module"])
    check(["CGA-2fq3-jx6r-8w4c"], component_locations=["/usr/bin/crane"])
    check(["CGA-2fq3-jx6r-8w4c", "CGA-qqq2-3456-789c"], aliases=["GHSA-hqxw-f8mx-cpmw", "CVE-2022-48174"])
    check(everything, event_review_states=["REVIEW_STATE_APPROVED"])
    check([], event_review_states=["REVIEW_STATE_PENDING"])
    check([], event_authors=["someone"])
    check(everything, exclude_event_authors=["someone"])
    check([], exclude_event_authors=[""])  # imported events have no author
    check([], event_reviewers=["someone"])
    check(["CGA-m7vp-w9xq-c3hr"], event_types=["EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION"])
    check(CRANE, event_types=["EVENT_TYPE_FILTER_DETECTION"])
    check(["CGA-2fq3-jx6r-8w4c", "CGA-9cgh-j2rr-5vwx"],
          event_types=["EVENT_TYPE_FILTER_FIXED", "EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX"])  # fmt: skip
    check([], event_types=["EVENT_TYPE_FILTER_PATCHED"])
    check(["CGA-2fq3-jx6r-8w4c"], latest_event_type="EVENT_TYPE_FILTER_FIXED")
    check(["CGA-wwx2-3456-789c"], latest_event_type="EVENT_TYPE_FILTER_FIX_NOT_PLANNED")
    check(["CGA-2fq3-jx6r-8w4c"], query="DOCKER/Distribution")
    check(["CGA-m7vp-w9xq-c3hr"], query="cve-2024-24786")
    check(CRANE, query=crane.upper())
    check([], query="%")
    check([], query="_")
    # Filters combine with AND.
    check(["CGA-2fq3-jx6r-8w4c"], artifact_names=[crane], event_types=["EVENT_TYPE_FILTER_FIXED"])
    check([], artifact_names=[busybox], component_types=["go-module"])


def test_paging_ordering_and_errors(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    import_fixtures(server, org, tmp_path)
    seen: list[str] = []
    token = ""
    while True:
        params: dict[str, Any] = {"uidp.descendants_of": org, "page_size": 2, "order_by": "advisory_id desc"}
        if token:
            params["page_token"] = token
        r = http.get("/vulnerabilities/v2/advisories", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["totalCount"] == "5"
        seen += [a["advisoryId"] for a in body["advisories"]]
        token = body.get("nextPageToken", "")
        if not token:
            break
    assert seen == sorted(CRANE + BUSYBOX, reverse=True)
    # Default order: uid asc; skip after the cursor.
    r = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org, "skip": 1, "page_size": 2})
    uids = [a["uid"] for a in r.json()["advisories"]]
    listed = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org}).json()
    all_uids = sorted(a["uid"] for a in listed["advisories"])
    assert uids == all_uids[1:3] and r.json()["skipped"] == 1
    for bad in ({"order_by": "severity"}, {"event_types": "EVENT_TYPE_FILTER_UNSPECIFIED"}, {"page_size": -1},
                {"latest_event_type": "EVENT_TYPE_FILTER_UNSPECIFIED"}, {"query": "x" * 300},
                {"uidp.descendants_of": "nope"}, {"event_types": "NOT_AN_ENUM"}):  # fmt: skip
        r = http.get("/vulnerabilities/v2/advisories", params=bad)
        assert r.status_code == 400, (bad, r.text)
    r = http.get(f"/vulnerabilities/v2/advisories/{org}/0123456789abcdef")
    assert r.status_code == 404


def test_grpc(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    names = import_fixtures(server, org, tmp_path)
    stub = advisories_pb2_grpc.AdvisoriesServiceStub(server.channel)
    resp = stub.ListAdvisories(advisories_pb2.ListAdvisoriesRequest(
        uidp=uidp_pb2.UIDPFilter(descendants_of=org), artifact_names=[names["crane"]], page_size=2))  # fmt: skip
    assert resp.total_count == 3 and len(resp.advisories) == 2 and resp.next_page_token
    rest = stub.ListAdvisories(advisories_pb2.ListAdvisoriesRequest(
        uidp=uidp_pb2.UIDPFilter(descendants_of=org), artifact_names=[names["crane"]], page_size=2,
        page_token=resp.next_page_token))  # fmt: skip
    assert len(rest.advisories) == 1
    got = {a.advisory_id: a for a in [*resp.advisories, *rest.advisories]}
    assert sorted(got) == CRANE
    one = stub.GetAdvisory(advisories_pb2.GetAdvisoryRequest(uid=got["CGA-2fq3-jx6r-8w4c"].uid))
    assert one.events[0].detection.scanv1.component == "github.com/docker/distribution"
    assert one.events[2].fixed.fixed_version == "0.15.2-r1"
    assert one.events[0].review_state == advisories_pb2.REVIEW_STATE_APPROVED
    # Same record as over HTTP.
    assert http.get(f"/vulnerabilities/v2/advisories/{one.uid}").json()["componentName"] == one.component_name
    fp = stub.ListAdvisories(advisories_pb2.ListAdvisoriesRequest(
        uidp=uidp_pb2.UIDPFilter(descendants_of=org),
        event_types=[advisories_pb2.EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION]))  # fmt: skip
    assert [a.advisory_id for a in fp.advisories] == ["CGA-m7vp-w9xq-c3hr"]
    assert fp.advisories[0].events[1].false_positive_determination.type == (
        advisories_pb2.AdvisoryEvent.FalsePositiveDetermination.TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH)  # fmt: skip
    with pytest.raises(grpc.RpcError) as e:
        stub.GetAdvisory(advisories_pb2.GetAdvisoryRequest(uid=f"{org}/0123456789abcdef"))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_authorization_and_visibility(server: Any, http: httpx.Client, anon: httpx.Client, org: str,
                                      tmp_path: Path) -> None:  # fmt: skip
    import_fixtures(server, org, tmp_path)
    uid = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org}).json()["advisories"][0]["uid"]
    assert anon.get("/vulnerabilities/v2/advisories").status_code == 401
    assert anon.get(f"/vulnerabilities/v2/advisories/{uid}").status_code == 401
    # A viewer of the organization sees its advisories; listing unscoped returns only those.
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as viewer:
        assert viewer.get(f"/vulnerabilities/v2/advisories/{uid}").status_code == 200
        body = viewer.get("/vulnerabilities/v2/advisories", params={"page_size": 200}).json()
        assert body["totalCount"] == "5" and all(a["uid"].startswith(org + "/") for a in body["advisories"])
    # A viewer elsewhere sees none of them; Get answers NOT_FOUND.
    r = http.post("/iam/v2/groups/", json={"name": "org-" + secrets.token_hex(4)})
    other = r.json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.client(token) as stranger:
        assert stranger.get("/vulnerabilities/v2/advisories").json().get("totalCount") == "0"
        assert stranger.get(f"/vulnerabilities/v2/advisories/{uid}").status_code in (403, 404)
    # Without advisories.list: PERMISSION_DENIED, on both transports.
    _, token = server.identity_with_role(org, "registry.pull")
    with server.client(token) as puller:
        assert puller.get(f"/vulnerabilities/v2/advisories/{uid}").status_code == 403
    stub = advisories_pb2_grpc.AdvisoriesServiceStub(server.grpc_channel(token))
    with pytest.raises(grpc.RpcError) as e:
        stub.GetAdvisory(advisories_pb2.GetAdvisoryRequest(uid=uid))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
