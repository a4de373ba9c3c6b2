"""The v1 dialect of advisories (vulnerabilities/v1/advisories.py): every event type and field crosses from
v2 to v1 and back unchanged; what v1 has and v2 does not keep is refused, not dropped; the v1 filter becomes
the v2 request."""

from __future__ import annotations

import msgspec
import pytest

from platform_api.core import errors
from platform_api.gen.records import vulnerabilities_v1 as one
from platform_api.gen.records import vulnerabilities_v2 as two
from platform_api.vulnerabilities.v1 import advisories as adapter

T = "2024-01-02T03:04:05Z"
EVENTS = [
    two.AdvisoryEvent(uid="g/a/1", create_time=T, author="me", review_state="REVIEW_STATE_PENDING",
                      detection=two.AdvisoryEvent_Detection(scanv1=two.AdvisoryEvent_Detection_ScanV1(
                          scanner="grype", subpackage="sub", component="comp", component_type="go-module"))),
    two.AdvisoryEvent(uid="g/a/2", create_time=T, reviewer="you", review_state="REVIEW_STATE_APPROVED",
                      false_positive_determination=two.AdvisoryEvent_FalsePositiveDetermination(
                          type="TYPE_INLINE_MITIGATIONS_EXIST", note="n")),
    two.AdvisoryEvent(uid="g/a/3", findings="AAEC", issue="x/1",
                      patched=two.AdvisoryEvent_Patched(patched_versions=["1.0"], note="p")),
    two.AdvisoryEvent(uid="g/a/4", fixed=two.AdvisoryEvent_Fixed(fixed_version="1.2", note="f")),
    two.AdvisoryEvent(uid="g/a/5", detection=two.AdvisoryEvent_Detection(
        nvdapi=two.AdvisoryEvent_Detection_NVDAPI(cpe_searched="a", cpe_found="b"))),
]  # fmt: skip


def test_events_cross_both_ways() -> None:
    v1 = [adapter.event_to_v1(e) for e in EVENTS]
    assert v1[0].id == "g/a/1" and v1[0].timestamp == T and v1[0].status == "PENDING"
    assert v1[0].detection is not None and v1[0].detection.scanv1 is not None
    assert (v1[0].detection.scanv1.subpackage_name, v1[0].detection.scanv1.component_name) == ("sub", "comp")
    assert v1[1].false_positive_determination is not None
    assert v1[1].false_positive_determination.type == "INLINE_MITIGATIONS_EXIST" and v1[1].status == "APPROVED"
    assert v1[3].status == "UNKNOWN"
    assert [adapter.event_to_v2(e, "e") for e in v1] == EVENTS


def test_advisory_crosses_both_ways() -> None:
    a = two.Advisory(uid="g/a", advisory_id="CGA-2345-6789-cfgh", create_time=T, update_time=T, author="me",
                     artifact_name="p", artifact_type="apk", artifact_architecture="x86_64", component_name="c",
                     aliases=["CVE-2024-0001"], events=EVENTS, severities=[two.Severity(score="9")])  # fmt: skip
    v1 = adapter.to_v1(a)
    assert (v1.id, v1.created_at, v1.updated_at, v1.component_name, v1.author) == ("g/a", T, T, "c", "me")
    back = adapter.to_v2(v1)
    # the times are output only (not taken from a write), severities are v2's alone
    assert back == msgspec.structs.replace(a, create_time=None, update_time=None, severities=[])


def _refused(call: object, field: str) -> None:
    with pytest.raises(errors.ApiError) as e:
        call()  # type: ignore[operator]
    assert e.value.code == errors.INVALID_ARGUMENT and field in str(e.value)


def test_what_v2_does_not_keep_is_refused() -> None:
    clc = one.AdvisoryEvent(component_location_changed=one.AdvisoryEvent_ComponentLocationChanged(new_location="/"))
    _refused(lambda: adapter.event_to_v2(clc, "advisory_event"), "advisory_event.component_location_changed")
    _refused(lambda: adapter.to_v2(one.Advisory(legacyAdvisoryID="GHSA")), "advisory.legacyAdvisoryID")
    _refused(lambda: adapter.request_of(one.AdvisoryFilter(order_by="ALIASES_ASC")), "order_by")
    clc_filter = one.AdvisoryFilter(latest_event_type="EVENT_TYPE_FILTER_COMPONENT_LOCATION_CHANGED")
    _refused(lambda: adapter.request_of(clc_filter), "latest_event_type")


ID = "a" * 40 + "/" + "b" * 16


def test_filter_becomes_the_v2_request() -> None:
    f = one.AdvisoryFilter(id=ID, artifact_name=["p"], event_statuses=["UNKNOWN", "APPROVED"],
                           event_author=["me"], exclude_event_author=["bot"], event_reviewer=["you"],
                           event_types=["EVENT_TYPE_FILTER_FIXED"], order_by="CREATED_AT_DESC", origin="o")  # fmt: skip
    r = adapter.request_of(f)
    assert r.uidp is not None and r.uidp.ids == [ID]
    assert r.event_review_states == ["REVIEW_STATE_UNSPECIFIED", "REVIEW_STATE_APPROVED"]
    assert (r.artifact_names, r.event_authors, r.exclude_event_authors, r.event_reviewers) == (
        ["p"], ["me"], ["bot"], ["you"])  # fmt: skip
    assert (r.event_types, r.order_by, r.origin) == (["EVENT_TYPE_FILTER_FIXED"], "create_time desc", "o")
