"""The vendor's fields our contract leaves out are refused, never dropped (issue 27, items 1 and 2), on v1, v2 and
v2beta1, over HTTP and gRPC, on both backends.

- Every Create/Update request of every version, for each left-out field reachable in it (at its top level and
  inside its resource message): a non-zero value, encoded as the vendor's client encodes it (gRPC: the bytes
  built by hand from the field's number and type in the wire facts; HTTP: the field's proto name and JSON names),
  is INVALID_ARGUMENT naming the field's path; its zero value is not refused for it. Before: v2 and v2beta1
  answered OK and dropped the value; v1 dropped `Group.verified`, `kind`, `status`.
- The Terraform provider's group update (terraform-provider-calls.md 3.1, 6.1): v2beta1 UpdateGroup with
  update_mask [name, description, verified] and verified absent clears an absent description (before:
  INVALID_ARGUMENT "unknown field 'verified' in update_mask"); with verified true it is INVALID_ARGUMENT.

Which fields are left out is found here from the wire facts and our descriptors alone (not from the code under
test): a v2/v2beta1 message's are the vendor's fields it does not declare; a v1 message's are those of its v2
twin (V1_TWINS) that it declares. test_left_out_list.py checks the code finds the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import descriptor_pool, field_mask_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.rpc import error_details_pb2

from platform_api.api import schema
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_group
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2_grpc as v1_group_grpc
from platform_api.gen.chainguard.platform.iam.v2beta1 import groups_pb2, groups_pb2_grpc
from platform_api.service.methods import MethodInfo
from tests.helpers import TIMEOUT, Server, assert_error, ok, protowire, rpc_error, unpack, wire_facts

FACTS = wire_facts.parse()
FACTS_V1 = wire_facts.parse(wire_facts.WIRE_V1)
METHODS = schema.methods()
NOT_KEPT = "this server does not keep "
# The v2 message each v1 message with left-out fields adapts to (spec 9.6; docs/reference/wire-contract.md, v1).
V1_TWINS = {
    "chainguard.platform.iam.Group": "chainguard.platform.iam.v2.Group",
    "chainguard.platform.iam.Identity": "chainguard.platform.iam.v2.Identity",
    "chainguard.platform.iam.AccountAssociations": "chainguard.platform.iam.v2.AccountAssociation",
    "chainguard.platform.registry.Repo": "chainguard.platform.registry.v2.Repo",
    "chainguard.platform.registry.Tag": "chainguard.platform.registry.v2.Tag",
}


def camel(name: str) -> str:
    """protoc's default JSON name."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def left_out(desc: Descriptor) -> list[wire_facts.Field]:
    """The vendor's fields that message `desc` leaves out (v2, v2beta1) or declares without keeping (v1)."""
    name = desc.full_name.replace(".v2beta1.", ".v2.")
    if name in FACTS.messages:
        return [f for f in FACTS.messages[name].fields.values() if f.name not in desc.fields_by_name]
    twin = V1_TWINS.get(name)
    if twin is None:
        return []
    ours = descriptor_pool.Default().FindMessageTypeByName(twin)
    vendor = FACTS_V1.messages[name].fields
    return [vendor[f.name] for f in FACTS.messages[twin].fields.values() if f.name not in ours.fields_by_name]


# --------------------------------------------------------------------------- every Create/Update, both ways


@dataclass(frozen=True)
class Case:
    method: MethodInfo
    path: str  # the field's path in the request, e.g. group.verified
    resource: FieldDescriptor | None  # the request field holding it (None: the request's top level)
    vendor: wire_facts.Field  # the field as the vendor's message declares it
    message: wire_facts.Message  # the vendor's message holding it
    facts: wire_facts.Facts  # where its types are declared

    def __str__(self) -> str:
        return f"{self.method.full_name}:{self.path}"


def _vendor_message(desc: Descriptor) -> tuple[wire_facts.Message, wire_facts.Facts]:
    name = desc.full_name.replace(".v2beta1.", ".v2.")
    return (FACTS.messages[name], FACTS) if name in FACTS.messages else (FACTS_V1.messages[name], FACTS_V1)


def _cases() -> list[Case]:
    out: list[Case] = []
    for m in METHODS.values():
        if "Create" not in m.name and "Update" not in m.name:
            continue
        top = {f.name for f in left_out(m.input)}
        places: list[tuple[FieldDescriptor | None, Descriptor]] = [(None, m.input)]
        places += [
            (fd, fd.message_type)
            for fd in m.input.fields
            if fd.type == FieldDescriptor.TYPE_MESSAGE and not fd.is_repeated and fd.name not in top
        ]
        for resource, desc in places:
            for f in left_out(desc):
                message, facts = _vendor_message(desc)
                path = f.name if resource is None else f"{resource.name}.{f.name}"
                out.append(Case(m, path, resource, f, message, facts))
    return out


CASES = _cases()


def test_the_walk_reaches_every_version_and_the_providers_fields() -> None:
    found = {str(c) for c in CASES}
    for expected in [
        "chainguard.platform.iam.v2beta1.GroupsService.UpdateGroup:group.verified",
        "chainguard.platform.iam.v2beta1.GroupsService.CreateGroup:group.kind",
        "chainguard.platform.iam.v2.IdentitiesService.CreateIdentity:identity.aws_identity",
        "chainguard.platform.iam.v2beta1.AccountAssociationsService.UpdateAccountAssociation:account_association.chainguard",
        "chainguard.platform.registry.v2beta1.ReposService.CreateRepo:repo.sync_config",
        "chainguard.platform.registry.v2.TagsService.CreateTag:tag.bundles",
        "chainguard.platform.iam.v2.IdentitiesService.UpdateIdentityMetadata:identity_metadata.utm_source",
        "chainguard.platform.iam.Groups.Update:verified",
        "chainguard.platform.iam.Groups.Create:group.status",
        "chainguard.platform.iam.GroupAccountAssociations.Create:chainguard",
        "chainguard.platform.registry.Registry.UpdateTag:bundles",
        "chainguard.platform.registry.Registry.CreateRepo:repo.catalog_tier",
    ]:
        assert expected in found
    assert len(CASES) == 92


# Values as the vendor's client sends them, from the field's type in the wire facts.


_VARINT = {"bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64"}


def _wire(facts: wire_facts.Facts, number: int, type_: str, zero: bool) -> bytes:
    """One (non-repeated) field, tag included; the zero value is still put on the wire (varint 0, empty)."""
    if type_ in _VARINT or type_ in facts.enums:
        return protowire.varint(number << 3) + protowire.varint(0 if zero else 1)
    if type_ in ("string", "bytes"):
        return protowire.delimited(number, b"" if zero else b"x")
    if type_.startswith("map<"):
        key, value = (t.strip() for t in type_[4:-1].split(","))
        return protowire.delimited(number, _wire(facts, 1, key, zero) + _wire(facts, 2, value, zero))
    assert type_ in facts.messages, type_
    first = next(iter(facts.messages[type_].fields.values()))
    inner = b"" if zero else _field_wire(facts, first, zero=False)
    return protowire.delimited(number, inner)


def _absent_at_zero(facts: wire_facts.Facts, f: wire_facts.Field, message: wire_facts.Message | None) -> bool:
    """An empty list or map has nothing on the wire; a oneof's message member is a choice even when empty."""
    in_oneof = message is not None and any(f.name in members for members in message.oneofs.values())
    return f.label == "repeated" or f.type.startswith("map<") or (in_oneof and f.type in facts.messages)


def _field_wire(
    facts: wire_facts.Facts, f: wire_facts.Field, zero: bool, message: wire_facts.Message | None = None
) -> bytes:
    if zero and _absent_at_zero(facts, f, message):
        return b""
    return _wire(facts, f.number, f.type, zero)


def _json(facts: wire_facts.Facts, type_: str, label: str, zero: bool) -> Any:
    if label == "repeated":
        return [] if zero else [_json(facts, type_, "", False)]
    if type_.startswith("map<"):
        value = type_[4:-1].split(",")[1].strip()
        return {} if zero else {"k": _json(facts, value, "", False)}
    if type_ in facts.enums:
        by_number = {n: name for name, n in facts.enums[type_].items()}
        return by_number[0] if zero else by_number[min(n for n in by_number if n)]
    if type_ in facts.messages:
        first = next(iter(facts.messages[type_].fields.values()))
        return {} if zero else {first.json_name: _json(facts, first.type, first.label, False)}
    return (_ZERO_JSON if zero else _SOME_JSON).get(type_, 0 if zero else 1)  # numbers: 0 or 1


_ZERO_JSON: dict[str, Any] = {"bool": False, "string": "", "bytes": ""}
_SOME_JSON: dict[str, Any] = {"bool": True, "string": "x", "bytes": "eA=="}


def _grpc_request(case: Case, zero: bool) -> bytes:
    field = _field_wire(case.facts, case.vendor, zero, case.message)
    return field if case.resource is None else protowire.delimited(case.resource.number, field)


def _keys(case: Case) -> list[str]:
    """The spellings an HTTP client may use: the proto name, the contract's JSON name, protoc's lowerCamel."""
    name = case.vendor.name
    return list(dict.fromkeys([name, case.vendor.json_name, camel(name)]))


def _http_request(case: Case, org: str, key: str, zero: bool) -> tuple[str, str, dict[str, Any]]:
    rule = case.method.rules[0]
    url = re.sub(r"\{[^}]*\}", org, rule.template)
    absent = zero and _absent_at_zero(case.facts, case.vendor, case.message) and case.vendor.label != "repeated"
    value = {} if absent else {key: _json(case.facts, case.vendor.type, case.vendor.label, zero)}
    if case.resource is None or rule.body == case.resource.name:
        assert rule.body in ("*", getattr(case.resource, "name", None)), case
        return rule.verb, url, value
    assert rule.body == "*", case
    return rule.verb, url, {case.resource.json_name: value}


def _grpc_violation(server: Server, case: Case, request: bytes) -> tuple[grpc.StatusCode, list[tuple[str, str]]]:
    call = server.channel.unary_unary(case.method.grpc_path)  # bytes in, bytes out
    try:
        call(request, timeout=TIMEOUT)
    except grpc.RpcError:
        err, st = rpc_error(call, request)
        details = [d for d in st.details if d.Is(error_details_pb2.BadRequest.DESCRIPTOR)]
        violations = unpack(st, error_details_pb2.BadRequest).field_violations if details else []
        return err.code(), [(v.field, v.description) for v in violations]
    return grpc.StatusCode.OK, []


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_left_out_field_is_refused_with_a_value_and_ignored_at_zero(server: Server, org: str, case: Case) -> None:
    refused = (case.path, NOT_KEPT + case.vendor.name)
    code, violations = _grpc_violation(server, case, _grpc_request(case, zero=False))
    assert (code, violations) == (grpc.StatusCode.INVALID_ARGUMENT, [refused])
    code, violations = _grpc_violation(server, case, _grpc_request(case, zero=True))
    assert refused[0] not in [field for field, _ in violations], (code, violations)
    for key in _keys(case):
        verb, url, body = _http_request(case, org, key, zero=False)
        failed = assert_error(server.http.request(verb, url, json=body), 400, 3, case.path)
        assert failed["message"] == f"Invalid argument: {case.path}: {NOT_KEPT}{case.vendor.name}"
        verb, url, body = _http_request(case, org, key, zero=True)
        r = server.http.request(verb, url, json=body)
        if r.status_code == 400 and "details" in r.json():
            named = [v["field"] for d in r.json()["details"] for v in d.get("fieldViolations", [])]
            assert case.path not in named, r.text


# ------------------------------------------------------------------------ the provider's calls, end to end


def _update_mask(*paths: str) -> field_mask_pb2.FieldMask:
    return field_mask_pb2.FieldMask(paths=list(paths))


def test_the_v04_group_update_mask_over_grpc(server: Server, org: str) -> None:
    """terraform-provider-chainguard >= 0.4.0: [name, description, verified] on every update, verified false."""
    stub = groups_pb2_grpc.GroupsServiceStub(server.channel)
    made = stub.CreateGroup(
        groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(name="tf", description="was")), timeout=TIMEOUT
    )
    # The configuration dropped the description: absent under the mask, so cleared.
    update = groups_pb2.UpdateGroupRequest(
        group=groups_pb2.Group(uid=made.uid, name="tf-renamed"),
        update_mask=_update_mask("name", "description", "verified"),
    )
    done = stub.UpdateGroup(update, timeout=TIMEOUT)
    assert (done.uid, done.name, done.description) == (made.uid, "tf-renamed", "")
    read = stub.GetGroup(groups_pb2.GetGroupRequest(uid=made.uid), timeout=TIMEOUT)
    assert (read.name, read.description) == ("tf-renamed", "")
    again = stub.UpdateGroup(update, timeout=TIMEOUT)  # every later apply sends the same: no change, no error
    assert (again.name, again.description) == ("tf-renamed", "")
    # With `kind` too (v0.4, when the configured kind differs from state), still zero: a no-op.
    update.update_mask.paths.append("kind")
    update.group.description = "back"
    assert stub.UpdateGroup(update, timeout=TIMEOUT).description == "back"
    # verified = true, as the provider sends it: field 5 of the Group, which our Group reserves.
    raw = groups_pb2.UpdateGroupRequest(update_mask=update.update_mask).SerializeToString() + protowire.delimited(
        1, update.group.SerializeToString() + protowire.varint(5 << 3) + b"\x01"
    )
    code, violations = _grpc_violation(server, _case("v2beta1.GroupsService.UpdateGroup", "group.verified"), raw)
    assert (code, violations) == (grpc.StatusCode.INVALID_ARGUMENT, [("group.verified", NOT_KEPT + "verified")])
    assert stub.GetGroup(groups_pb2.GetGroupRequest(uid=made.uid), timeout=TIMEOUT).description == "back"


def _case(suffix: str, path: str) -> Case:
    return next(c for c in CASES if c.method.full_name.endswith(suffix) and c.path == path)


def test_the_v04_group_update_mask_over_http(http: httpx.Client, org: str) -> None:
    made = ok(http.post(f"/iam/v2beta1/groups/{org}", json={"name": "tf", "description": "was"}))
    url = f"/iam/v2beta1/groups/{made['uid']}"
    mask = {"update_mask": "name,description,verified"}
    done = ok(http.patch(url, params=mask, json={"uid": made["uid"], "name": "tf-renamed", "verified": False}))
    assert (done["name"], "description" in done) == ("tf-renamed", False)
    ok(http.patch(url, params={"updateMask": "name,resourceLimits,kind"}, json={"name": "n", "kind": 0}))
    r = http.patch(url, params=mask, json={"uid": made["uid"], "name": "x", "verified": True})
    assert_error(r, 400, 3, "group.verified")
    assert ok(http.get(url))["name"] == "n"
    assert_error(http.patch(url, params={"update_mask": "name,colour"}, json={"name": "n"}), 400, 3, "update_mask")


def test_v2beta1_creates_refuse_what_they_used_to_drop(server: Server, org: str) -> None:
    """Issue 27: CreateGroup `verified: true` answered OK and dropped the value (Terraform then shows the same
    change on every plan); a zero value creates the group."""
    raw = groups_pb2.CreateGroupRequest(parent=org).SerializeToString() + protowire.delimited(
        2, groups_pb2.Group(name="verified").SerializeToString() + protowire.varint(5 << 3) + b"\x01"
    )
    code, violations = _grpc_violation(server, _case("v2beta1.GroupsService.CreateGroup", "group.verified"), raw)
    assert (code, violations) == (grpc.StatusCode.INVALID_ARGUMENT, [("group.verified", NOT_KEPT + "verified")])
    listed = ok(server.http.get("/iam/v2/groups", params={"uidp.children_of": org}))
    assert listed["totalCount"] == "0"
    stub = groups_pb2_grpc.GroupsServiceStub(server.channel)
    zero = groups_pb2.CreateGroupRequest(parent=org).SerializeToString() + protowire.delimited(
        2,
        groups_pb2.Group(name="plain").SerializeToString()
        + protowire.varint(5 << 3)
        + b"\x00"
        + protowire.varint(8 << 3)
        + b"\x00",
    )
    made = stub.CreateGroup(groups_pb2.CreateGroupRequest.FromString(zero), timeout=TIMEOUT)
    assert made.name == "plain"


def test_v1_group_verified_is_refused_not_dropped(server: Server, org: str) -> None:
    stub = v1_group_grpc.GroupsStub(server.channel)
    made = stub.Create(v1_group.CreateGroupRequest(parent=org, group=v1_group.Group(name="v1")), timeout=TIMEOUT)
    err, st = rpc_error(stub.Update, v1_group.Group(id=made.id, name="v1", verified=True))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["verified"]
    done = stub.Update(v1_group.Group(id=made.id, name="v1-renamed", verified=False), timeout=TIMEOUT)
    assert (done.name, done.verified) == ("v1-renamed", False)
    r = server.http.put(f"/iam/v1/groups/{made.id}", json={"name": "x", "kind": "ORG_KIND_CUSTOMER"})
    assert_error(r, 400, 3, "kind")
    assert ok(server.http.put(f"/iam/v1/groups/{made.id}", json={"name": "x", "kind": "ORG_KIND_UNSPECIFIED"}))
