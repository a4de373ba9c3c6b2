"""Where the contract's left-out fields are (api/omitted.py), in-process: a gRPC request carrying one as an
unknown field (v2, v2beta1) or as a declared field (v1) and the same request as JSON (either spelling) give
the same INVALID_ARGUMENT naming the same path, at any depth; zero values pass; names that are not the
vendor's are ignored; messages without such fields have nothing to walk; recursive messages plan."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from platform_api.api import omitted, schema
from platform_api.core import errors
from platform_api.gen.chainguard.platform.iam.v1 import account_associations_pb2 as v1_associations
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_group
from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, identities_pb2
from platform_api.gen.chainguard.platform.iam.v2beta1 import groups_pb2 as beta_groups_pb2
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2 as v1_registry
from tests.helpers import protowire, violated_fields

ORG = "0" * 40
# v1 twins are found in the default pool: every generated module loaded, as the server does at start.
METHODS = schema.methods()


def _said(p: omitted.Plan, run: Any) -> tuple[str, str] | None:
    """What `run` refused (the one field violation of its INVALID_ARGUMENT), or None."""
    try:
        run()
    except errors.ApiError as e:
        assert e.code == errors.INVALID_ARGUMENT and len(violated_fields(e)) == 1, e.details
        return violated_fields(e)[0], e.details[0]["fieldViolations"][0]["description"]
    return None


def _grpc(desc: Descriptor, raw: bytes) -> tuple[str, str] | None:
    msg = message_factory.GetMessageClass(desc).FromString(raw)
    p = omitted.plan(desc)
    return _said(p, lambda: omitted.check_message(p, msg))


def _json(desc: Descriptor, body: dict[str, Any]) -> tuple[str, str] | None:
    p = omitted.plan(desc)
    return _said(p, lambda: omitted.check_json(p, body))


def _create_group(inner: bytes) -> bytes:
    """CreateGroupRequest{parent, group{name + inner}} as the vendor's client encodes it."""
    group = groups_pb2.Group(name="g").SerializeToString() + inner
    return groups_pb2.CreateGroupRequest(parent=ORG).SerializeToString() + protowire.delimited(2, group)


def _refused(path: str) -> tuple[str, str]:
    return path, "this server does not keep " + path.rsplit(".", 1)[-1]


VERIFIED = _refused("group.verified")


@pytest.mark.parametrize("create", [groups_pb2.CreateGroupRequest, beta_groups_pb2.CreateGroupRequest])
def test_verified_true_inside_the_group_is_refused_on_v2_and_v2beta1(create: type[Message]) -> None:
    desc = create.DESCRIPTOR
    assert _grpc(desc, _create_group(protowire.tag(5, 0) + b"\x01")) == VERIFIED
    assert _json(desc, {"group": {"name": "g", "verified": True}}) == VERIFIED
    assert _json(desc, {"group": {"resourceLimits": {"repos": 3}}}) == _refused("group.resource_limits")
    assert _json(desc, {"group": {"resource_limits": {"repos": 3}}}) == _refused("group.resource_limits")


def test_zero_values_pass_both_ways() -> None:
    desc = groups_pb2.CreateGroupRequest.DESCRIPTOR
    zero_wire = (
        protowire.tag(5, 0)
        + b"\x00"
        + protowire.tag(8, 0)
        + b"\x00"
        + protowire.delimited(4, b"")
        + protowire.tag(9, 0)
        + b"\x00"
    )
    assert _grpc(desc, _create_group(zero_wire)) is None
    body = {"verified": False, "kind": "ORG_KIND_UNSPECIFIED", "resourceLimits": {}, "status": 0, "name": "g"}
    assert _json(desc, {"group": body}) is None
    assert _json(desc, {"group": {"kind": None, "resource_limits": []}}) is None


def test_names_that_are_not_the_vendors_are_ignored() -> None:
    desc = groups_pb2.CreateGroupRequest.DESCRIPTOR
    assert _grpc(desc, _create_group(protowire.tag(77, 0) + b"\x01" + protowire.delimited(500, b"x"))) is None
    assert _json(desc, {"group": {"colour": "red", "Verified": True}, "verified": True}) is None


def test_a_map_entry_and_a_message_are_non_zero_on_the_wire() -> None:
    desc = groups_pb2.CreateGroupRequest.DESCRIPTOR
    entry = protowire.delimited(1, b"repos") + protowire.tag(2, 0) + b"\x03"
    assert _grpc(desc, _create_group(protowire.delimited(4, entry))) == _refused("group.resource_limits")
    desc = identities_pb2.CreateIdentityRequest.DESCRIPTOR
    aws = protowire.delimited(22, protowire.delimited(1, b"123456789012"))
    raw = identities_pb2.CreateIdentityRequest(parent=ORG).SerializeToString() + protowire.delimited(2, aws)
    assert _grpc(desc, raw) == _refused("identity.aws_identity")
    assert _json(desc, {"identity": {"awsIdentity": {"awsAccount": "1"}}}) == _refused("identity.aws_identity")
    assert _json(desc, {"identity": {"servicePrincipal": "SERVICE_PRINCIPAL_COSIGNED"}}) == _refused(
        "identity.service_principal"
    )
    assert _json(desc, {"identity": {"servicePrincipal": "SERVICE_PRINCIPAL_UNSPECIFIED", "awsIdentity": {}}}) is None


def test_v1_declares_them_and_refuses_a_value_all_the_same() -> None:
    """v1 Group.verified was dropped silently before: the v1 adapters keep nothing of it."""
    desc = v1_group.Group.DESCRIPTOR
    assert _grpc(desc, v1_group.Group(id=ORG, name="g", verified=True).SerializeToString()) == _refused("verified")
    assert _json(desc, {"id": ORG, "kind": "ORG_KIND_DEV"}) == _refused("kind")
    assert _grpc(desc, v1_group.Group(id=ORG, kind=v1_group.ORG_KIND_UNSPECIFIED).SerializeToString()) is None
    create = v1_group.CreateGroupRequest(parent=ORG, group=v1_group.Group(status=v1_group.ORG_STATUS_READY))
    assert _grpc(create.DESCRIPTOR, create.SerializeToString()) == _refused("group.status")
    assert _json(create.DESCRIPTOR, {"group": {"resourceLimits": {"a": 1}}}) == _refused("group.resource_limits")


def test_v1_enum_zero_names_and_empty_messages() -> None:
    desc = v1_registry.Repo.DESCRIPTOR
    assert _json(desc, {"name": "r", "catalogTier": "UNKNOWN", "bundles": [], "sync_config": {}}) is None
    assert _json(desc, {"catalogTier": "BASE"}) == _refused("catalog_tier")
    assert _json(desc, {"catalog_tier": 5}) == _refused("catalog_tier")
    assert _json(desc, {"sync_config": {"source": "s"}}) == _refused("sync_config")
    repo = v1_registry.Repo(name="r")
    repo.sync_config.SetInParent()  # set, with nothing in it: zero
    assert _grpc(desc, repo.SerializeToString()) is None
    assert _grpc(desc, v1_registry.Repo(name="r", bundles=["b"]).SerializeToString()) == _refused("bundles")
    association = v1_associations.AccountAssociations(group=ORG)
    association.chainguard.service_bindings["INGESTER"] = ORG
    assert _grpc(association.DESCRIPTOR, association.SerializeToString()) == _refused("chainguard")
    assert _json(association.DESCRIPTOR, {"chainguard": {"serviceBindings": {"A": "b"}}}) == _refused("chainguard")


def test_messages_without_left_out_fields_have_nothing_to_walk() -> None:
    methods = METHODS
    assert not methods["chainguard.platform.iam.v2.GroupsService.ListGroups"].omitted
    assert not methods["chainguard.platform.iam.v2.RolesService.CreateRole"].omitted
    assert methods["chainguard.platform.iam.v2beta1.GroupsService.UpdateGroup"].omitted


def _pool_message(reserved: list[tuple[int, int]], names: list[str]) -> Descriptor:
    """A message Node{Node child = 1; repeated Node children = 3; map<string, Node> by_name = 4} with the given
    reserved ranges and names, in a pool of its own."""
    f = descriptor_pb2.FileDescriptorProto(name=f"node{len(reserved)}{len(names)}.proto", package="t", syntax="proto3")
    node = f.message_type.add(name="Node")
    node.field.add(name="child", number=1, type=11, type_name=".t.Node", label=1, json_name="child")
    node.field.add(name="children", number=3, type=11, type_name=".t.Node", label=3, json_name="children")
    entry = node.nested_type.add(name="ByNameEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=9, label=1, json_name="key")
    entry.field.add(name="value", number=2, type=11, type_name=".t.Node", label=1, json_name="value")
    node.field.add(name="by_name", number=4, type=11, type_name=".t.Node.ByNameEntry", label=3, json_name="byName")
    for start, end in reserved:
        node.reserved_range.add(start=start, end=end)
    node.reserved_name.extend(names)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return pool.FindMessageTypeByName("t.Node")


def test_a_recursive_message_plans_and_is_checked_at_any_depth() -> None:
    desc = _pool_message([(2, 3)], ["secret_field"])
    deep = protowire.delimited(1, protowire.delimited(3, protowire.delimited(1, protowire.tag(2, 0) + b"\x01")))
    assert _grpc(desc, deep) == _refused("child.children[0].child.secret_field")
    by_name = protowire.delimited(
        4, protowire.delimited(1, b"k") + protowire.delimited(2, protowire.tag(2, 0) + b"\x07")
    )
    assert _grpc(desc, by_name) == _refused("by_name[k].secret_field")
    assert _json(desc, {"byName": {"k": {"children": [{}, {"secretField": "x"}]}}}) == _refused(
        "by_name[k].children[1].secret_field"
    )
    assert (
        _grpc(
            desc, protowire.delimited(1, protowire.delimited(3, protowire.delimited(1, protowire.tag(2, 0) + b"\x00")))
        )
        is None
    )


@pytest.mark.parametrize(("reserved", "names"), [([(2, 4)], ["a"]), ([(2, 3)], ["a", "b"]), ([], ["a"])])
def test_reserved_statements_that_do_not_pair_are_refused(reserved: list[tuple[int, int]], names: list[str]) -> None:
    with pytest.raises(omitted.ContractError):
        omitted.pairs(_pool_message(reserved, names))
