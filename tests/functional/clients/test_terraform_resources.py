"""The Terraform provider's resources (facts 3), each as the provider's own sequence makes it: create → read →
update with each provider version's mask → read, comparing every field the provider compares → delete → read
(NOT_FOUND or an empty v1 list: removed) → delete again (v2beta1: NOT_FOUND is success; v1: an error), over
gRPC on one port with the generated stubs, on both backends."""

from __future__ import annotations

import datetime
import json
from typing import Any

import grpc
from google.protobuf import duration_pb2, field_mask_pb2

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.events.v1 import subscriptions_pb2
from platform_api.gen.chainguard.platform.iam.v2beta1 import (
    account_associations_pb2,
    group_invites_pb2,
    groups_pb2,
    identities_pb2,
    identity_providers_pb2,
    role_bindings_pb2,
    roles_pb2,
)
from platform_api.gen.chainguard.platform.registry.v1 import apko_pb2, registry_pb2
from tests.functional.clients.provider import Provider, capability_names, capability_numbers, parent_of
from tests.helpers import EDITOR, VIEWER, error_info, new_key, rpc_error, unique

DIGEST = "sha256:" + "ab" * 32
STAR = field_mask_pb2.FieldMask(paths=["*"])  # every v2beta1 update but the v0.4 group's (facts 1)
MASK_V03 = ["*"]
MASK_V04 = ["name", "description", "verified"]


def update_group(tf: Provider, uid: str, name: str, description: str, mask: list[str]) -> groups_pb2.Group:
    """UpdateGroup as the provider sends it: `group{uid, name, description, verified}` (verified false: absent on
    the wire, facts 2) with the version's mask; the answer is read back."""
    request = groups_pb2.UpdateGroupRequest(group=groups_pb2.Group(uid=uid, name=name, description=description))
    request.update_mask.paths.extend(mask)
    answer: groups_pb2.Group = tf.groups.UpdateGroup(request)
    return answer


def assert_group(got: groups_pb2.Group | None, uid: str, name: str, description: str, parent: str | None) -> None:
    """What the provider reads back (facts 3.1): name, description, parent_id = parent of uid (null for an
    organization); `verified` and `kind` are not in our Group, so they read false and UNSPECIFIED (null)."""
    assert got is not None
    assert (got.uid, got.name, got.description, parent_of(got.uid)) == (uid, name, description, parent)


def test_group(tf: Provider, org: str) -> None:
    """facts 3.1, 6.1, 6.7: a sub-group, updated with v0.3's mask ["*"] and v0.4's [name, description, verified]
    (+ kind), the description removed from the configuration (absent under the mask: cleared), deleted."""
    name = unique("team")
    made = tf.groups.CreateGroup(
        groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(name=name, description="first"))
    )
    assert_group(made, made.uid, name, "first", org)
    assert_group(tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid)), made.uid, name, "first", org)
    for mask in (MASK_V03, MASK_V04, [*MASK_V04, "kind"]):
        renamed = unique("team")
        assert_group(update_group(tf, made.uid, renamed, "changed", mask), made.uid, renamed, "changed", org)
        read = tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid))
        assert_group(read, made.uid, renamed, "changed", org)
        # The description dropped from the configuration: "" (absent) under the mask, so cleared.
        assert_group(update_group(tf, made.uid, renamed, "", mask), made.uid, renamed, "", org)
        assert_group(tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid)), made.uid, renamed, "", org)
    tf.delete(tf.groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=made.uid))
    assert tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid)) is None
    tf.delete(tf.groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=made.uid))


def test_organization(tf: Provider) -> None:
    """facts 3.1: an organization (no parent_id): CreateGroup without parent, the propagation loop (a forced
    re-exchange, then v1 Groups/List{id} until it lists the organization: here in its first round), updated with
    both masks, deleted, and its read afterwards removes it from state."""
    name = unique("tf-org")
    made, rounds = tf.create_organization(name, "an organization")
    assert rounds == 1
    assert_group(made, made.uid, name, "an organization", None)
    for mask in (MASK_V03, MASK_V04):
        assert_group(update_group(tf, made.uid, name, "", mask), made.uid, name, "", None)
        assert_group(tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid)), made.uid, name, "", None)
    tf.delete(tf.groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=made.uid))
    assert tf.read(tf.groups.GetGroup, groups_pb2.GetGroupRequest(uid=made.uid)) is None
    tf.delete(tf.groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=made.uid))
    assert all(a.code == grpc.StatusCode.OK or a.code == grpc.StatusCode.NOT_FOUND for a in tf.kit.attempts)


# ------------------------------------------------------------------------------------------------- identities


def identity_state(got: identities_pb2.Identity) -> dict[str, Any]:
    """What chainguard_identity reads back (facts 3.2): name, parent, the relationship (which oneof member is set
    and its value; claims maps only when non-empty; static keys' issuer_keys as a string, expiration in RFC 3339),
    and the times it copies (created_at, updated_at; last_seen is zero until a token is exchanged)."""
    state: dict[str, Any] = {"name": got.name, "parent": parent_of(got.uid), "description": got.description}
    relationship = got.WhichOneof("relationship")
    if relationship == "claim_match":
        cm = got.claim_match
        state["claim_match"] = {m: getattr(cm, m) for m in (cm.WhichOneof("iss"), cm.WhichOneof("sub"),
                                                              cm.WhichOneof("aud")) if m}  # fmt: skip
        state["claim_match"].update({k: dict(getattr(cm, k)) for k in ("claims", "claim_patterns") if getattr(cm, k)})
    elif relationship == "static_keys":
        sk = got.static_keys
        state["static"] = {"issuer": sk.issuer, "subject": sk.subject, "issuer_keys": sk.issuer_keys,
                           "expiration": sk.expiration_time.ToJsonString()}  # fmt: skip
    else:
        raise AssertionError(f"an identity whose relationship the provider cannot read: {relationship}")
    assert got.create_time.seconds and got.update_time.seconds >= got.create_time.seconds
    return state


def test_identity_claim_match(tf: Provider, org: str) -> None:
    """facts 3.2, 6.5, 6.7: a claim_match identity (exact issuer, subject, audience, claims), updated with
    ["*"] to patterns (RE2, byte-exact), its answer read back; deleted; NOT_FOUND on read removes it."""
    config = identities_pb2.Identity(name=unique("ci"), description="a CI job")
    config.claim_match.issuer = "https://token.actions.githubusercontent.com"
    config.claim_match.subject = "repo:acme/app:ref:refs/heads/main"
    config.claim_match.audience = "https://example.test"
    config.claim_match.claims.update({"repository_owner": "acme"})
    made = tf.create(tf.identities.CreateIdentity, identities_pb2.CreateIdentityRequest(parent=org, identity=config))
    want = {"name": config.name, "parent": org, "description": "a CI job",
            "claim_match": {"issuer": config.claim_match.issuer, "subject": config.claim_match.subject,
                            "audience": "https://example.test", "claims": {"repository_owner": "acme"}}}  # fmt: skip
    assert identity_state(made) == want
    assert identity_state(tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid))) == want
    update = identities_pb2.Identity(uid=made.uid, name=config.name, description="patterns now")
    update.claim_match.issuer_pattern = r"https://token\.actions\.githubusercontent\.com"
    update.claim_match.subject_pattern = r"repo:acme/[^/]+:ref:refs/(heads|tags)/.*"
    update.claim_match.claim_patterns.update({"workflow": r"release \(.*\)"})
    answer = tf.identities.UpdateIdentity(identities_pb2.UpdateIdentityRequest(identity=update, update_mask=STAR))
    want = {"name": config.name, "parent": org, "description": "patterns now",
            "claim_match": {"issuer_pattern": update.claim_match.issuer_pattern,
                            "subject_pattern": update.claim_match.subject_pattern,
                            "claim_patterns": {"workflow": r"release \(.*\)"}}}  # fmt: skip
    assert identity_state(answer) == want
    assert identity_state(tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid))) == want
    tf.delete(tf.identities.DeleteIdentity, identities_pb2.DeleteIdentityRequest(uid=made.uid))
    assert tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid)) is None
    tf.delete(tf.identities.DeleteIdentity, identities_pb2.DeleteIdentityRequest(uid=made.uid))


def test_identity_static_keys(tf: Provider, org: str) -> None:
    """facts 3.2, 6.5: static keys whose issuer_keys the provider compares as a string (a JWKS written with its
    own spacing and key order must come back byte for byte) and whose expiration it reads back in RFC 3339."""
    _, jwk = new_key()
    keys = '{ "keys":[\n  ' + json.dumps(dict(reversed(list(jwk.items()))), indent=1) + "\n] }"
    expiration = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=30)).replace(microsecond=0)
    config = identities_pb2.Identity(name=unique("static"))
    config.static_keys.issuer = "https://issuer.example.test"
    config.static_keys.subject = "robot"
    config.static_keys.issuer_keys = keys
    config.static_keys.expiration_time.FromDatetime(expiration)
    made = tf.create(tf.identities.CreateIdentity, identities_pb2.CreateIdentityRequest(parent=org, identity=config))
    want = {"name": config.name, "parent": org, "description": "",
            "static": {"issuer": "https://issuer.example.test", "subject": "robot", "issuer_keys": keys,
                       "expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ")}}  # fmt: skip
    assert identity_state(made) == want
    assert identity_state(tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid))) == want
    # A rename (static changes force replacement): the whole identity, keys included, under ["*"].
    update = identities_pb2.Identity()
    update.CopyFrom(config)
    update.uid, update.name = made.uid, unique("static")
    answer = tf.identities.UpdateIdentity(identities_pb2.UpdateIdentityRequest(identity=update, update_mask=STAR))
    want["name"] = update.name
    assert identity_state(answer) == want
    assert identity_state(tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid))) == want
    tf.delete(tf.identities.DeleteIdentity, identities_pb2.DeleteIdentityRequest(uid=made.uid))
    assert tf.read(tf.identities.GetIdentity, identities_pb2.GetIdentityRequest(uid=made.uid)) is None


# ------------------------------------------------------------------------------------------ identity providers


def idp_state(got: identity_providers_pb2.IdentityProvider) -> dict[str, Any]:
    """What chainguard_identity_provider reads back (facts 3.3); a configuration other than oidc is an error."""
    assert got.WhichOneof("configuration") == "oidc", got
    return {"name": got.name, "description": got.description, "default_role": got.default_role,
            "parent": parent_of(got.uid), "issuer": got.oidc.issuer, "client_id": got.oidc.client_id,
            "additional_scopes": list(got.oidc.additional_scopes), "client_secret": got.oidc.client_secret}  # fmt: skip


def test_identity_provider(tf: Provider, org: str) -> None:
    """facts 3.3, 6.5: only `uid` is taken from the create; the read gives back the ordered additional_scopes and
    no client secret; every update sends the whole provider with the secret, under ["*"] (answer ignored)."""
    config = identity_providers_pb2.IdentityProvider(name=unique("sso"), description="corporate SSO",
                                                     default_role=VIEWER)  # fmt: skip
    config.oidc.issuer = "https://sso.example.test"
    config.oidc.client_id = "tf-client"
    config.oidc.client_secret = "s3cret"
    config.oidc.additional_scopes.extend(["offline_access", "groups", "email"])
    create = identity_providers_pb2.CreateIdentityProviderRequest(parent=org, identity_provider=config)
    made = tf.create(tf.identity_providers.CreateIdentityProvider, create)
    get = identity_providers_pb2.GetIdentityProviderRequest(uid=made.uid)
    want = {"name": config.name, "description": "corporate SSO", "default_role": VIEWER, "parent": org,
            "issuer": "https://sso.example.test", "client_id": "tf-client",
            "additional_scopes": ["offline_access", "groups", "email"], "client_secret": ""}  # fmt: skip
    assert idp_state(tf.read(tf.identity_providers.GetIdentityProvider, get)) == want
    update = identity_providers_pb2.IdentityProvider()
    update.CopyFrom(config)
    update.uid, update.description, update.default_role = made.uid, "", EDITOR
    update.oidc.ClearField("additional_scopes")
    update.oidc.additional_scopes.extend(["groups", "offline_access"])
    tf.identity_providers.UpdateIdentityProvider(
        identity_providers_pb2.UpdateIdentityProviderRequest(identity_provider=update, update_mask=STAR)
    )
    want.update(description="", default_role=EDITOR, additional_scopes=["groups", "offline_access"])
    assert idp_state(tf.read(tf.identity_providers.GetIdentityProvider, get)) == want
    delete = identity_providers_pb2.DeleteIdentityProviderRequest(uid=made.uid)
    tf.delete(tf.identity_providers.DeleteIdentityProvider, delete)
    assert tf.read(tf.identity_providers.GetIdentityProvider, get) is None
    tf.delete(tf.identity_providers.DeleteIdentityProvider, delete)


# ------------------------------------------------------------------------------------------ roles and bindings


def role_state(got: roles_pb2.Role) -> dict[str, Any]:
    """What chainguard_role reads back (facts 3.4): capabilities as a set of friendly names."""
    return {"name": got.name, "description": got.description, "parent": parent_of(got.uid),
            "capabilities": capability_names(got.capabilities)}  # fmt: skip


def test_role(tf: Provider, org: str) -> None:
    """facts 3.4: capabilities sent as enum numbers parsed from friendly names, read back as a set; a role
    without description reads ""; only `uid` is taken from the create; the update's answer is read back."""
    config = roles_pb2.Role(name=unique("puller"), capabilities=capability_numbers("repo.list", "manifest.list"))
    made = tf.create(tf.roles.CreateRole, roles_pb2.CreateRoleRequest(parent=org, role=config))
    get = roles_pb2.GetRoleRequest(uid=made.uid)
    want = {"name": config.name, "description": "", "parent": org, "capabilities": {"repo.list", "manifest.list"}}
    assert role_state(tf.read(tf.roles.GetRole, get)) == want
    update = roles_pb2.Role(uid=made.uid, name=config.name, description="pulls and lists tags",
                            capabilities=capability_numbers("tag.list", "repo.list", "manifest.list"))  # fmt: skip
    answer = tf.roles.UpdateRole(roles_pb2.UpdateRoleRequest(role=update, update_mask=STAR))
    want.update(description="pulls and lists tags", capabilities={"tag.list", "repo.list", "manifest.list"})
    assert role_state(answer) == want
    assert role_state(tf.read(tf.roles.GetRole, get)) == want
    tf.delete(tf.roles.DeleteRole, roles_pb2.DeleteRoleRequest(uid=made.uid))
    assert tf.read(tf.roles.GetRole, get) is None
    tf.delete(tf.roles.DeleteRole, roles_pb2.DeleteRoleRequest(uid=made.uid))


def binding_state(got: role_bindings_pb2.RoleBinding) -> dict[str, Any]:
    """What chainguard_rolebinding reads back (facts 3.5): group = group.uid if present else the uid's parent;
    identity = identity_uid, else identity.uid; role = role_uid, else role.uid."""
    return {"group": got.group.uid if got.HasField("group") else parent_of(got.uid),
            "identity": got.identity_uid or got.identity.uid, "role": got.role_uid or got.role.uid}  # fmt: skip


def test_rolebinding(tf: Provider, org: str) -> None:
    """facts 3.5: bound at the organization, rebound to another role with ["*"] (answer read back), deleted."""
    robot = identities_pb2.Identity(name=unique("robot"))
    robot.claim_match.issuer, robot.claim_match.subject = "https://issuer.example.test", "robot"
    identity = tf.create(tf.identities.CreateIdentity, identities_pb2.CreateIdentityRequest(parent=org, identity=robot))
    config = role_bindings_pb2.RoleBinding(identity_uid=identity.uid, role_uid=VIEWER)
    made = tf.create(tf.role_bindings.CreateRoleBinding,
                     role_bindings_pb2.CreateRoleBindingRequest(parent=org, role_binding=config))  # fmt: skip
    get = role_bindings_pb2.GetRoleBindingRequest(uid=made.uid)
    assert binding_state(tf.read(tf.role_bindings.GetRoleBinding, get)) == {"group": org, "identity": identity.uid,
                                                                            "role": VIEWER}  # fmt: skip
    update = role_bindings_pb2.RoleBinding(uid=made.uid, identity_uid=identity.uid, role_uid=EDITOR)
    answer = tf.role_bindings.UpdateRoleBinding(
        role_bindings_pb2.UpdateRoleBindingRequest(role_binding=update, update_mask=STAR)
    )
    want = {"group": org, "identity": identity.uid, "role": EDITOR}
    assert binding_state(answer) == want
    assert binding_state(tf.read(tf.role_bindings.GetRoleBinding, get)) == want
    delete = role_bindings_pb2.DeleteRoleBindingRequest(uid=made.uid)
    tf.delete(tf.role_bindings.DeleteRoleBinding, delete)
    assert tf.read(tf.role_bindings.GetRoleBinding, get) is None
    tf.delete(tf.role_bindings.DeleteRoleBinding, delete)


# ------------------------------------------------------------------------------------------------------ invites


def test_group_invite(tf: Provider, org: str) -> None:
    """facts 3.6: `ttl` = the configured expiration minus now (with a sub-second part), no email; `uid` and `code`
    taken; the read only checks existence; no update (replacement); deleted."""
    expiration = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=7)
    ttl = duration_pb2.Duration()
    ttl.FromTimedelta(expiration - datetime.datetime.now(datetime.UTC))
    assert ttl.nanos
    config = group_invites_pb2.GroupInvite(role_uid=VIEWER, ttl=ttl)
    made = tf.create(tf.group_invites.CreateGroupInvite,
                     group_invites_pb2.CreateGroupInviteRequest(parent=org, group_invite=config))  # fmt: skip
    assert made.uid and made.code and parent_of(made.uid) == org
    get = group_invites_pb2.GetGroupInviteRequest(uid=made.uid)
    assert tf.read(tf.group_invites.GetGroupInvite, get) is not None
    delete = group_invites_pb2.DeleteGroupInviteRequest(uid=made.uid)
    tf.delete(tf.group_invites.DeleteGroupInvite, delete)
    assert tf.read(tf.group_invites.GetGroupInvite, get) is None
    tf.delete(tf.group_invites.DeleteGroupInvite, delete)
    # With `email` configured.
    config.email = "dev@acme.example"
    made = tf.create(tf.group_invites.CreateGroupInvite,
                     group_invites_pb2.CreateGroupInviteRequest(parent=org, group_invite=config))  # fmt: skip
    assert made.code and tf.read(tf.group_invites.GetGroupInvite, group_invites_pb2.GetGroupInviteRequest(uid=made.uid))


# --------------------------------------------------------------------------------------- account associations


def association_state(got: account_associations_pb2.AccountAssociation) -> dict[str, Any]:
    """What chainguard_account_associations reads back (facts 3.7): each block the answer holds (a block the
    configuration lacks is drift, a configured one missing is drift); github installations flattened, sorted by
    app id, in answer order within an app (an ordered list)."""
    state: dict[str, Any] = {"name": got.name, "description": got.description, "group": got.uid}
    if got.HasField("amazon"):
        state["amazon"] = got.amazon.account
    if got.HasField("google"):
        state["google"] = (got.google.project_id, got.google.project_number)
    if got.HasField("azure"):
        state["azure"] = (got.azure.tenant_id, dict(got.azure.client_ids))
    if got.HasField("github"):
        apps = got.github.app_installations
        state["github"] = [(app, i.installation_id, i.name) for app in sorted(apps) for i in apps[app].installations]
    return state


def test_account_associations(tf: Provider, org: str) -> None:
    """facts 3.7, 6.5, 6.6: the answer's uid is the group's; blocks come back as configured (none added, none
    dropped); an update (["*"], all blocks, answer ignored) that drops a block and reorders installations."""
    config = account_associations_pb2.AccountAssociation(name=unique("clouds"), description="our accounts")
    config.amazon.account = "123456789012"
    config.azure.tenant_id = "tenant-1"
    config.azure.client_ids.update({"ingester": "client-a", "canary": "client-b"})
    config.github.app_installations[20].installations.add(installation_id=7, name="b-org")
    config.github.app_installations[20].installations.add(installation_id=3, name="a-org")
    config.github.app_installations[4].installations.add(installation_id=9, name="c-org")
    made = tf.create(tf.account_associations.CreateAccountAssociation,
                     account_associations_pb2.CreateAccountAssociationRequest(parent=org,
                                                                              account_association=config))  # fmt: skip
    assert made.uid == org
    get = account_associations_pb2.GetAccountAssociationRequest(uid=made.uid)
    want = {"name": config.name, "description": "our accounts", "group": org, "amazon": "123456789012",
            "azure": ("tenant-1", {"ingester": "client-a", "canary": "client-b"}),
            "github": [(4, 9, "c-org"), (20, 7, "b-org"), (20, 3, "a-org")]}  # fmt: skip
    assert association_state(tf.read(tf.account_associations.GetAccountAssociation, get)) == want
    update = account_associations_pb2.AccountAssociation(uid=org, name=config.name, description="moved")
    update.google.project_id, update.google.project_number = "acme-prod", "1234567890"
    update.github.app_installations[20].installations.add(installation_id=3, name="a-org")
    update.github.app_installations[20].installations.add(installation_id=7, name="b-org")
    tf.account_associations.UpdateAccountAssociation(
        account_associations_pb2.UpdateAccountAssociationRequest(account_association=update, update_mask=STAR)
    )
    want = {"name": config.name, "description": "moved", "group": org, "google": ("acme-prod", "1234567890"),
            "github": [(20, 3, "a-org"), (20, 7, "b-org")]}  # fmt: skip
    assert association_state(tf.read(tf.account_associations.GetAccountAssociation, get)) == want
    delete = account_associations_pb2.DeleteAccountAssociationRequest(uid=org)
    tf.delete(tf.account_associations.DeleteAccountAssociation, delete)
    assert tf.read(tf.account_associations.GetAccountAssociation, get) is None
    tf.delete(tf.account_associations.DeleteAccountAssociation, delete)


# ------------------------------------------------------------------------------------------------ v1: registry


def repo_state(got: registry_pb2.Repo) -> dict[str, Any]:
    """What chainguard_image_repo reads back (facts 3.8): name, parent of id, create_time, the ordered lists, the
    description, readme and tier (UNKNOWN reads as unset)."""
    assert got.create_time.seconds
    return {"name": got.name, "parent": parent_of(got.id), "description": got.description, "readme": got.readme,
            "tier": registry_pb2.CatalogTier.Name(got.catalog_tier), "bundles": list(got.bundles),
            "aliases": list(got.aliases), "active_tags": list(got.active_tags)}  # fmt: skip


def test_image_repo(tf: Provider, org: str) -> None:
    """facts 3.8, 6.5, 6.6: CreateRepo without prevent_existing (readme "" when unset, tier UNKNOWN), read by
    ListRepos{id}, replaced by UpdateRepo (no mask: the lists are ordered, an emptied one is cleared), deleted
    (as its acceptance tests do); a read then finds no item (removed) and a second DeleteRepo is an error (v1)."""
    config = registry_pb2.Repo(name=unique("app"), description="the app", aliases=["app:latest", "app:1"],
                               active_tags=["latest", "1.2", "1"])  # fmt: skip
    made = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=config))
    want = {"name": config.name, "parent": org, "description": "the app", "readme": "", "tier": "UNKNOWN",
            "bundles": [], "aliases": ["app:latest", "app:1"], "active_tags": ["latest", "1.2", "1"]}  # fmt: skip
    assert repo_state(made) == want
    read = tf.read_v1(tf.registry.ListRepos, registry_pb2.RepoFilter(id=made.id))
    assert repo_state(read) == want and read.create_time == made.create_time
    # The same create again (another workspace, or a lost answer): without prevent_existing, the existing repo is
    # answered and Terraform adopts it.
    again = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=config))
    assert again.id == made.id and repo_state(again) == want
    update = registry_pb2.Repo(id=made.id, name=config.name, description="", aliases=[], active_tags=["2", "latest"])
    answer = tf.registry.UpdateRepo(update)
    want.update(description="", aliases=[], active_tags=["2", "latest"])
    assert repo_state(answer) == want
    assert repo_state(tf.read_v1(tf.registry.ListRepos, registry_pb2.RepoFilter(id=made.id))) == want
    tf.registry.DeleteRepo(registry_pb2.DeleteRepoRequest(id=made.id))
    assert tf.read_v1(tf.registry.ListRepos, registry_pb2.RepoFilter(id=made.id)) is None
    err, _ = rpc_error(tf.registry.DeleteRepo, registry_pb2.DeleteRepoRequest(id=made.id))
    assert err.code() == grpc.StatusCode.NOT_FOUND


def test_image_tag(tf: Provider, org: str) -> None:
    """facts 3.9, 6.3: CreateTag and UpdateTag without a digest (the typical update: deprecated = true), read by
    ListTags{id}; the digest stays as it was (none yet); deleted as its acceptance tests do, then removed on read,
    and a second DeleteTag is an error (v1)."""
    repo = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name="tagged")))
    made = tf.registry.CreateTag(registry_pb2.CreateTagRequest(repo_id=repo.id, tag=registry_pb2.Tag(name="v1")))
    assert (made.name, parent_of(made.id), made.digest, made.deprecated) == ("v1", repo.id, "", False)
    read = tf.read_v1(tf.registry.ListTags, registry_pb2.TagFilter(id=made.id))
    assert (read.id, read.name, parent_of(read.id), read.digest, read.deprecated, list(read.bundles)) == (
        made.id, "v1", repo.id, "", False, [])  # fmt: skip
    answer = tf.registry.UpdateTag(registry_pb2.Tag(id=made.id, name="v1", deprecated=True))
    assert (answer.id, answer.name, answer.digest, answer.deprecated) == (made.id, "v1", "", True)
    read = tf.read_v1(tf.registry.ListTags, registry_pb2.TagFilter(id=made.id))
    assert (read.name, read.digest, read.deprecated) == ("v1", "", True)
    # A push (here: a write with a digest, as other clients make it) fills the digest, which the provider reads as
    # computed; its own later UpdateTag, without digest, keeps it.
    push = registry_pb2.CreateTagRequest(repo_id=repo.id, tag=registry_pb2.Tag(name="v1", digest=DIGEST))
    pushed = tf.registry.CreateTag(push)
    assert (pushed.id, pushed.digest) == (made.id, DIGEST)
    answer = tf.registry.UpdateTag(registry_pb2.Tag(id=made.id, name="v1", deprecated=True))
    assert (answer.digest, answer.deprecated) == (DIGEST, True)
    read = tf.read_v1(tf.registry.ListTags, registry_pb2.TagFilter(id=made.id))
    assert (read.name, read.digest, read.deprecated) == ("v1", DIGEST, True)
    tf.registry.DeleteTag(registry_pb2.DeleteTagRequest(id=made.id))
    assert tf.read_v1(tf.registry.ListTags, registry_pb2.TagFilter(id=made.id)) is None
    err, _ = rpc_error(tf.registry.DeleteTag, registry_pb2.DeleteTagRequest(id=made.id))
    assert err.code() == grpc.StatusCode.NOT_FOUND


# ---------------------------------------------------------------------------------------------- v1: events


def test_subscription(tf: Provider, org: str) -> None:
    """facts 3.10: Create{parent_id, subscription{sink}} (an http sink: https is not required), read by List{id}
    (sink and parent), no update, Delete{id}; afterwards the read finds nothing and a second Delete is
    NOT_FOUND, which the provider reports as an error."""
    sink = "http://127.0.0.1:9/hook"
    made = tf.create(tf.subscriptions.Create, subscriptions_pb2.CreateSubscriptionRequest(
        parent_id=org, subscription=subscriptions_pb2.Subscription(sink=sink)))  # fmt: skip
    read = tf.read_v1(tf.subscriptions.List, subscriptions_pb2.SubscriptionFilter(id=made.id))
    assert (read.id, read.sink, parent_of(read.id)) == (made.id, sink, org)
    tf.subscriptions.Delete(subscriptions_pb2.DeleteSubscriptionRequest(id=made.id))
    assert tf.read_v1(tf.subscriptions.List, subscriptions_pb2.SubscriptionFilter(id=made.id)) is None
    err, _ = rpc_error(tf.subscriptions.Delete, subscriptions_pb2.DeleteSubscriptionRequest(id=made.id))
    assert err.code() == grpc.StatusCode.NOT_FOUND


# ------------------------------------------------------------------------------------------- product-only (v1)


def test_deployments_and_apko_builds_are_unimplemented(tf: Provider, org: str) -> None:
    """facts 3.11: chainguard_image_repo_deployment and chainguard_apko_build call the vendor's products, which
    this server does not have: each of their calls answers a structured UNIMPLEMENTED (ErrorInfo reason
    UNIMPLEMENTED), which fails the resource as any error does."""
    repo = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name="chart")))
    builds = registry_pb2.BuildReportFilter(uidp=uidp_pb2.UIDPFilter(descendants_of=repo.id))
    chart = registry_pb2.HelmChart(repo="nginx", source="oci://charts.example.test", chart="nginx")
    config = apko_pb2.ApkoConfig(cmd="/bin/sh")
    config.contents.packages.append("busybox")
    for call, request in [
        (tf.registry.CreateDeployment, registry_pb2.CreateDeploymentRequest(parent_id=repo.id, charts=[chart])),
        (tf.registry.UpdateDeployment, registry_pb2.UpdateDeploymentRequest(repo_id=repo.id, charts=[chart])),
        (tf.registry.UpdateDeployment, registry_pb2.UpdateDeploymentRequest(repo_id=repo.id)),  # its Delete
        (tf.registry.GetDeployment, registry_pb2.GetDeploymentRequest(repo_id=repo.id)),
        (tf.apko.BuildImage, apko_pb2.BuildImageRequest(config=config, repo_uidp=repo.id)),
        (tf.apko.ResolveConfig, apko_pb2.ResolveConfigRequest(config=config, repo_uidp=repo.id)),
        (tf.registry.ListBuildReports, builds),
    ]:
        err, st = rpc_error(call, request)
        assert err.code() == grpc.StatusCode.UNIMPLEMENTED, (call, err.details())
        assert error_info(st).reason == "UNIMPLEMENTED"
