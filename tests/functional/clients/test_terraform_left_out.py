"""Fields the provider sends only when a user sets them, which this server does not keep (facts 6.2): set, each is
INVALID_ARGUMENT naming it and nothing is written (never silently dropped: Terraform would show the same change on
every plan); unset, the same call succeeds (the resources' own tests). Over v2beta1 they arrive as unknown fields of
our messages (our contract reserves them), as the vendor's Go client encodes them (facts 2); over v1 they are
declared, and set. One port, the generated stubs, both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.protobuf import field_mask_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.iam.v2beta1 import account_associations_pb2, groups_pb2, identities_pb2
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2
from tests.functional.clients.provider import Provider, uidp
from tests.helpers import protowire, rpc_error, unique, unpack

M = TypeVar("M", bound=Message)
NOT_KEPT = "this server does not keep "


def with_vendor_field(message: M, number: int, payload: bytes | int) -> M:
    """`message` with field `number` of the vendor's message set, as its Go client puts it on the wire: a varint
    (bool, enum) or a length-delimited value (an embedded message). Ours does not declare it: an unknown field."""
    if isinstance(payload, int):
        message.MergeFromString(protowire.varint(number << 3) + protowire.varint(payload))
    else:
        message.MergeFromString(protowire.delimited(number, payload))
    return message


def assert_refused(call: Callable[..., Any], request: Any, path: str) -> None:
    """INVALID_ARGUMENT whose BadRequest names `path` alone, saying that this server does not keep it."""
    err, st = rpc_error(call, request)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    violations = unpack(st, error_details_pb2.BadRequest).field_violations
    assert [(v.field, v.description) for v in violations] == [(path, NOT_KEPT + path.rsplit(".", 1)[-1])]


def test_group_verified_and_kind(tf: Provider, org: str) -> None:
    """facts 3.1, 6.2: `verified = true` (field 5) and a configured `kind` (v0.4, field 8) on create and on the
    v0.4 update; nothing is created or changed."""
    name = unique("verified")
    for number, value, path in [(5, 1, "group.verified"), (8, 2, "group.kind")]:  # kind 2: ORG_KIND_CUSTOMER
        group = with_vendor_field(groups_pb2.Group(name=name), number, value)
        assert_refused(tf.groups.CreateGroup, groups_pb2.CreateGroupRequest(parent=org, group=group), path)
    listed = tf.groups.ListGroups(groups_pb2.ListGroupsRequest(uidp=uidp(org), name=name))
    assert list(listed.groups) == []
    made = tf.groups.CreateGroup(groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(name=name)))
    mask = field_mask_pb2.FieldMask(paths=["name", "description", "verified", "kind"])
    for number, value, path in [(5, 1, "group.verified"), (8, 2, "group.kind")]:
        group = with_vendor_field(groups_pb2.Group(uid=made.uid, name="renamed"), number, value)
        assert_refused(tf.groups.UpdateGroup, groups_pb2.UpdateGroupRequest(group=group, update_mask=mask), path)
    assert tf.groups.GetGroup(groups_pb2.GetGroupRequest(uid=made.uid)).name == name


def test_identity_aws_and_service_principal(tf: Provider, org: str) -> None:
    """facts 3.2, 6.2: the `aws_identity` (field 22) and `service_principal` (field 23) relationships."""
    aws = protowire.delimited(1, b"123456789012") + protowire.delimited(2, b"arn:aws:iam::123456789012:role/ci")
    name = unique("aws")
    for number, payload, path in [(22, aws, "identity.aws_identity"), (23, 1, "identity.service_principal")]:
        identity = with_vendor_field(identities_pb2.Identity(name=name), number, payload)
        request = identities_pb2.CreateIdentityRequest(parent=org, identity=identity)
        assert_refused(tf.identities.CreateIdentity, request, path)
    listed = tf.identities.ListIdentities(identities_pb2.ListIdentitiesRequest(uidp=uidp(org), name=name))
    assert list(listed.identities) == []
    config = identities_pb2.Identity(name=name)
    config.claim_match.issuer, config.claim_match.subject = "https://issuer.example.test", "ci"
    made = tf.identities.CreateIdentity(identities_pb2.CreateIdentityRequest(parent=org, identity=config))
    config.uid = made.uid
    config.ClearField("claim_match")
    update = identities_pb2.UpdateIdentityRequest(identity=with_vendor_field(config, 22, aws),
                                                  update_mask=field_mask_pb2.FieldMask(paths=["*"]))  # fmt: skip
    assert_refused(tf.identities.UpdateIdentity, update, "identity.aws_identity")
    assert tf.identities.GetIdentity(identities_pb2.GetIdentityRequest(uid=made.uid)).claim_match.subject == "ci"


def test_account_association_chainguard_service_bindings(tf: Provider, org: str) -> None:
    """facts 3.7, 6.2: the `chainguard { service_bindings }` block (field 7) on create and update."""
    # Chainguard{service_bindings: {"INGESTER": <identity>}}: one map entry, field 1, of key 1 and value 2.
    chainguard = protowire.delimited(1, protowire.delimited(1, b"INGESTER") + protowire.delimited(2, org.encode()))
    config = account_associations_pb2.AccountAssociation(name=unique("assoc"))
    config.amazon.account = "123456789012"
    create = account_associations_pb2.CreateAccountAssociationRequest(
        parent=org, account_association=with_vendor_field(config, 7, chainguard)
    )
    assert_refused(tf.account_associations.CreateAccountAssociation, create, "account_association.chainguard")
    get = account_associations_pb2.GetAccountAssociationRequest(uid=org)
    assert tf.read(tf.account_associations.GetAccountAssociation, get) is None
    config = account_associations_pb2.AccountAssociation(name=unique("assoc"))
    config.amazon.account = "123456789012"
    tf.account_associations.CreateAccountAssociation(
        account_associations_pb2.CreateAccountAssociationRequest(parent=org, account_association=config)
    )
    config.uid = org
    update = account_associations_pb2.UpdateAccountAssociationRequest(
        account_association=with_vendor_field(config, 7, chainguard), update_mask=field_mask_pb2.FieldMask(paths=["*"])
    )
    assert_refused(tf.account_associations.UpdateAccountAssociation, update, "account_association.chainguard")


def test_repo_and_tag_fields(tf: Provider, org: str) -> None:
    """facts 3.8, 3.9, 6.2 (v1, declared fields): a repo's `bundles`, `catalog_tier`, `sync_config` and `readme`,
    a tag's `bundles`, on create and on update; nothing is created or changed."""
    name = unique("repo")
    sync = registry_pb2.SyncConfig(source="cgr.dev/acme/app")
    set_fields: list[tuple[str, Any]] = [
        ("bundles", ["fips"]), ("catalog_tier", registry_pb2.BASE), ("readme", "# app"), ("sync_config", sync)
    ]  # fmt: skip
    for field, value in set_fields:
        create = registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name=name, **{field: value}))
        assert_refused(tf.registry.CreateRepo, create, f"repo.{field}")
    assert list(tf.registry.ListRepos(registry_pb2.RepoFilter(uidp=uidp(org), name=name)).items) == []
    made = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name=name)))
    for field, value in set_fields:
        assert_refused(tf.registry.UpdateRepo, registry_pb2.Repo(id=made.id, name=name, **{field: value}), field)
    tag = registry_pb2.Tag(name="v1", bundles=["fips"])
    assert_refused(tf.registry.CreateTag, registry_pb2.CreateTagRequest(repo_id=made.id, tag=tag), "tag.bundles")
    assert list(tf.registry.ListTags(registry_pb2.TagFilter(uidp=uidp(made.id))).items) == []
    tag = tf.registry.CreateTag(registry_pb2.CreateTagRequest(repo_id=made.id, tag=registry_pb2.Tag(name="v1")))
    assert_refused(tf.registry.UpdateTag, registry_pb2.Tag(id=tag.id, name="v1", deprecated=True, bundles=["x"]),
                   "bundles")  # fmt: skip
    assert tf.read_v1(tf.registry.ListTags, registry_pb2.TagFilter(id=tag.id)).deprecated is False
