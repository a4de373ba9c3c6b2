"""The one rule for the contract's fields this server leaves out (core/fieldmask.py): an update mask may name
them (a no-op: their value can only be zero there), in either spelling, while a truly unknown path stays
INVALID_ARGUMENT; what counts as a zero value in JSON and on the protobuf wire; the error's wording."""

from __future__ import annotations

from typing import Any

import pytest

from platform_api.core import errors, fieldmask
from platform_api.gen.records.iam_v2 import Group, Identity, IdentityMetadata
from platform_api.gen.records.registry_v2 import Repo
from tests.helpers.api_errors import raised, violated_fields

UPDATABLE = frozenset({"name", "description"})
STORED = Group(uid="a" * 40, name="before", description="was")


def test_the_records_list_what_their_messages_reserve() -> None:
    assert Group.NOT_KEPT == ("resource_limits", "verified", "kind", "status")
    assert Identity.NOT_KEPT == ("aws_identity", "service_principal")
    assert Repo.NOT_KEPT == ("catalog_tier", "bundles", "sync_config", "custom_overlay")
    assert "NOT_KEPT" not in {f for f in Group.__struct_fields__}  # a class attribute, never a field on the wire


def test_the_provider_mask_names_verified_and_clears_an_absent_description() -> None:
    """terraform-provider-chainguard v0.4 sends [name, description, verified] on every group update, verified
    false (absent on the wire) and description absent when the configuration dropped it."""
    patch = Group(uid=STORED.uid, name="after")
    assert fieldmask.parse("name,description,verified", Group) == [["name"], ["description"]]
    assert fieldmask.apply(STORED, patch, "name,description,verified", UPDATABLE) == Group(uid=STORED.uid, name="after")


@pytest.mark.parametrize("path", ["verified", "kind", "resource_limits", "resourceLimits", "status"])
def test_a_left_out_field_alone_is_a_no_op(path: str) -> None:
    assert fieldmask.parse(path, Group) == []
    assert fieldmask.apply(STORED, Group(uid=STORED.uid), path, UPDATABLE) == STORED


def test_left_out_fields_of_other_messages_in_both_spellings() -> None:
    assert fieldmask.parse("name,sync_config,syncConfig,catalogTier,bundles", Repo) == [["name"]]
    assert fieldmask.parse("awsIdentity,service_principal", Identity) == []
    assert fieldmask.parse("company,updatesOptIn,utm_source", IdentityMetadata) == [["company"]]


@pytest.mark.parametrize("path", ["colour", "verified.x", "name.verified", "aws_identity", "groupVerified"])
def test_other_unknown_paths_stay_invalid(path: str) -> None:
    e = raised(lambda: fieldmask.parse(path, Group))
    assert e.code == errors.INVALID_ARGUMENT and violated_fields(e) == ["update_mask"]


def test_star_still_replaces_every_updatable_field() -> None:
    assert fieldmask.parse("*", Group) is None


def test_the_error_names_the_path_and_says_the_server_does_not_keep_it() -> None:
    e = fieldmask.not_kept("group.verified")
    assert e.code == errors.INVALID_ARGUMENT and violated_fields(e) == ["group.verified"]
    assert e.details[0]["fieldViolations"][0]["description"] == "this server does not keep verified"
    assert e.message == "Invalid argument: group.verified: this server does not keep verified"


ZERO_JSON: list[Any] = [None, False, 0, 0.0, "", [], {}, "ORG_KIND_UNSPECIFIED", "CATALOG_TIER_UNSPECIFIED"]
NON_ZERO_JSON: list[Any] = [True, 1, -1, 0.5, "x", "0", "UNKNOWN", ["x"], [""], [0], {"a": 0}, {"": ""}, "ORG_KIND_DEV"]


@pytest.mark.parametrize("value", ZERO_JSON)
def test_json_zero_values(value: Any) -> None:
    assert fieldmask.zero_json(value)


@pytest.mark.parametrize("value", NON_ZERO_JSON)
def test_json_values_to_keep(value: Any) -> None:
    assert not fieldmask.zero_json(value)


def test_a_declared_enums_zero_name_is_zero_for_that_field_only() -> None:
    assert fieldmask.zero_json("UNKNOWN", frozenset({"UNKNOWN"}))
    assert not fieldmask.zero_json("BASE", frozenset({"UNKNOWN"}))


@pytest.mark.parametrize(
    ("wire_type", "data", "zero"),
    [(0, 0, True), (0, 1, False), (1, 0, True), (1, 7, False), (5, 0, True), (5, 1, False),
     (2, b"", True), (2, b"\x08\x01", False), (2, b"x", False), (3, [], True), (3, [object()], False)],
)  # fmt: skip
def test_wire_zero_values(wire_type: int, data: Any, zero: bool) -> None:
    assert fieldmask.zero_wire(wire_type, data) is zero


def test_camel_is_protocs_json_name() -> None:
    assert [fieldmask.camel(n) for n in ("verified", "resource_limits", "latest_form_submit_url", "sync_config")] == [
        "verified",
        "resourceLimits",
        "latestFormSubmitUrl",
        "syncConfig",
    ]
