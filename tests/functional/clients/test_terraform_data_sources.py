"""The Terraform provider's data sources (facts 4), each read as the provider reads it: by id, or by a v2beta1 list
(`uidp` set, `{children_of}` or empty `{}`) paged by the SDK's ListAll (page_size 50 until next_page_token is
empty), then filtered and checked as the provider does; the v1 calls of the identity, image repo and versions
data sources. One port, the generated stubs, both backends."""

from __future__ import annotations

import secrets
from typing import Any

import grpc
import pytest
from google.protobuf import field_mask_pb2

from platform_api.gen.chainguard.platform.iam.v1 import identity_pb2 as v1_identity
from platform_api.gen.chainguard.platform.iam.v2beta1 import groups_pb2, roles_pb2
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2
from platform_api.gen.chainguard.platform.registry.v2beta1 import repos_pb2
from tests.functional.clients.provider import (
    PAGE_SIZE,
    Provider,
    capability_names,
    capability_numbers,
    claims_of,
    parent_of,
    uidp,
)
from tests.functional.registry.test_v1_versions import CYCLES, provider_read
from tests.helpers import VIEWER, Server, Upstream, unique


class NotFound(Exception):
    """The data source's "not found" (0 items), or "more than one"."""


def group_data_source(tf: Provider, id: str = "", name: str = "", parent_id: str = "") -> dict[str, Any]:
    """data.chainguard_group (facts 4): GetGroup by id; else ListGroups{uidp ({children_of} or {} for no parent or
    `/`), name} paged, `/` keeping root-level uids only; several by name: the verified win (none are here)."""
    if id:
        found = [tf.groups.GetGroup(groups_pb2.GetGroupRequest(uid=id))]
    else:
        children_of = "" if parent_id in ("", "/") else parent_id
        request = groups_pb2.ListGroupsRequest(uidp=uidp(children_of), name=name)
        found = list(tf.list_all(tf.groups.ListGroups, request, "groups"))
        if parent_id == "/":
            found = [g for g in found if parent_of(g.uid) is None]
    if len(found) != 1:
        raise NotFound(f"{len(found)} groups")
    g = found[0]
    return {"id": g.uid, "name": g.name, "description": g.description, "parent_id": parent_of(g.uid)}


def role_data_source(tf: Provider, id: str = "", name: str = "", parent_id: str = "") -> list[dict[str, Any]]:
    """data.chainguard_role (facts 4): GetRole by id; else ListRoles{uidp ({children_of} or {}), name} paged."""
    if id:
        found = [tf.roles.GetRole(roles_pb2.GetRoleRequest(uid=id))]
    else:
        request = roles_pb2.ListRolesRequest(uidp=uidp(parent_id), name=name)
        found = list(tf.list_all(tf.roles.ListRoles, request, "roles"))
    if not found:
        raise NotFound("no role")
    return [{"id": r.uid, "name": r.name, "capabilities": capability_names(r.capabilities)} for r in found]


def image_repos_data_source(tf: Provider, id: str = "", name: str = "", parent_id: str = "") -> list[dict[str, Any]]:
    """data.chainguard_image_repo(s) (facts 4): v2beta1 GetRepo by id, else ListRepos{name (only when configured),
    uidp.children_of (when a parent is set)} paged; then, per repo, v1 ListRepos{id} for its readme. The tier
    reads "UNKNOWN" for UNSPECIFIED; bundles, tier and sync_config come from the v2 repo (ours has none of them)."""
    if id:
        found = [tf.repos.GetRepo(repos_pb2.GetRepoRequest(uid=id))]
    else:
        request = repos_pb2.ListReposRequest(uidp=uidp(parent_id)) if parent_id else repos_pb2.ListReposRequest()
        if name:
            request.name = name
        found = list(tf.list_all(tf.repos.ListRepos, request, "repos"))
    items = []
    for repo in found:
        assert not {"bundles", "catalog_tier", "sync_config"} & {f.name for f in repo.DESCRIPTOR.fields}
        v1 = tf.read_v1(tf.registry.ListRepos, registry_pb2.RepoFilter(id=repo.uid))
        assert v1 is not None, repo.uid
        items.append({"id": repo.uid, "name": repo.name, "aliases": list(repo.aliases), "bundles": [],
                      "active_tags": list(repo.active_tags), "tier": "UNKNOWN", "readme": v1.readme})  # fmt: skip
    return items


def test_group(tf: Provider, org: str) -> None:
    """facts 4 `chainguard_group`: by id (any error fails), by name under a parent, by name at `/` (an empty
    `uidp: {}`, then root-level uids only: the organization), and "not found"."""
    team = tf.groups.CreateGroup(groups_pb2.CreateGroupRequest(
        parent=org, group=groups_pb2.Group(name=unique("team"), description="the team")))  # fmt: skip
    want = {"id": team.uid, "name": team.name, "description": "the team", "parent_id": org}
    assert group_data_source(tf, id=team.uid) == want
    assert group_data_source(tf, name=team.name, parent_id=org) == want
    assert group_data_source(tf, name=team.name) == want
    top = tf.groups.GetGroup(groups_pb2.GetGroupRequest(uid=org))
    assert group_data_source(tf, name=top.name, parent_id="/") == {"id": org, "name": top.name, "description": "",
                                                                    "parent_id": None}  # fmt: skip
    for missing in [{"name": unique("nothing"), "parent_id": org}, {"name": team.name, "parent_id": "/"}]:
        with pytest.raises(NotFound):
            group_data_source(tf, **missing)


def test_role(tf: Provider, org: str) -> None:
    """facts 4 `chainguard_role`: by id, by name under a parent, and a built-in role by name with `uidp: {}`."""
    role = tf.roles.CreateRole(roles_pb2.CreateRoleRequest(parent=org, role=roles_pb2.Role(
        name=unique("lister"), capabilities=capability_numbers("repo.list", "tag.list"))))  # fmt: skip
    want = [{"id": role.uid, "name": role.name, "capabilities": {"repo.list", "tag.list"}}]
    assert role_data_source(tf, id=role.uid) == want
    assert role_data_source(tf, name=role.name, parent_id=org) == want
    viewer = role_data_source(tf, name="viewer")
    assert [(r["id"], r["name"]) for r in viewer] == [(VIEWER, "viewer")]
    assert {"repo.list", "groups.list"} <= viewer[0]["capabilities"]


def test_paging(tf: Provider, org: str) -> None:
    """facts 4, paging: ListAll with page_size 50 follows next_page_token until it is empty: 55 groups arrive in
    two pages, each once."""
    made = {tf.groups.CreateGroup(groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(
        name=f"g{i:02}"))).uid for i in range(PAGE_SIZE + 5)}  # fmt: skip
    before = len(tf.kit.attempts)
    listed = [g.uid for g in tf.list_all(tf.groups.ListGroups, groups_pb2.ListGroupsRequest(uidp=uidp(org)), "groups")]
    assert sorted(listed) == sorted(made)
    pages = [a for a in tf.kit.attempts[before:] if a.method.endswith("/ListGroups")]
    assert len(pages) == 2


def test_identity(tf: Provider, people: Upstream, person: str) -> None:
    """facts 4 `chainguard_identity`: v1 Identities/Lookup{issuer, subject} answers the id of the person's user
    identity, the one their token exchange yields. (It never answers NOT_FOUND here: the uid of a user who has not
    signed in yet is announced all the same, so that roles can be bound before the first login.)"""
    found = tf.v1_identities.Lookup(v1_identity.LookupRequest(issuer=people.issuer, subject=person))
    assert found.id == claims_of(tf.tokens.get())["sub"]
    stranger = tf.v1_identities.Lookup(v1_identity.LookupRequest(issuer=people.issuer, subject="nobody-yet"))
    assert len(stranger.id) == 40 and stranger.id != found.id


def test_image_repo_and_repos(tf: Provider, org: str) -> None:
    """facts 4 `chainguard_image_repo(s)`: by id and by name (v2beta1), then v1 ListRepos{id} per repo for its
    readme; the lists ordered as written; image_repos lists a parent's repos, and 0 items is fine."""
    a = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(
        name=unique("a"), aliases=["a:latest", "a:1"], active_tags=["latest", "1"])))  # fmt: skip
    b = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name=unique("b"))))
    want_a = {"id": a.id, "name": a.name, "aliases": ["a:latest", "a:1"], "bundles": [],
              "active_tags": ["latest", "1"], "tier": "UNKNOWN", "readme": ""}  # fmt: skip
    want_b = {"id": b.id, "name": b.name, "aliases": [], "bundles": [], "active_tags": [], "tier": "UNKNOWN",
              "readme": ""}  # fmt: skip
    assert image_repos_data_source(tf, id=a.id) == [want_a]
    assert image_repos_data_source(tf, name=a.name, parent_id=org) == [want_a]
    assert image_repos_data_source(tf, name=b.name) == [want_b]
    assert sorted(image_repos_data_source(tf, parent_id=org), key=lambda r: r["id"]) == sorted(
        [want_a, want_b], key=lambda r: r["id"])  # fmt: skip
    empty = tf.groups.CreateGroup(groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(name="empty")))
    assert image_repos_data_source(tf, parent_id=empty.uid) == []
    # `/` is passed as is here (unlike the group and role data sources): repos live in groups, so it is refused.
    with pytest.raises(grpc.RpcError) as refused:
        image_repos_data_source(tf, parent_id="/")
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "uidp.children_of" in refused.value.details()
    # A rename through v2beta1 (as another client might) shows in both calls the data source makes.
    renamed = unique("a")
    tf.repos.UpdateRepo(repos_pb2.UpdateRepoRequest(repo=repos_pb2.Repo(uid=a.id, name=renamed),
                                                    update_mask=field_mask_pb2.FieldMask(paths=["name"])))  # fmt: skip
    assert image_repos_data_source(tf, name=renamed, parent_id=org) == [{**want_a, "name": renamed}]


def test_versions(tf: Provider, console: Server, org: str) -> None:
    """facts 4 `chainguard_versions`: v1 GetPackageVersionMetadata{package} after `platform-api import eol`
    (tests/data/eol/python.json): newest first, so the first usable entry is the latest; an unknown package is
    NOT_FOUND, which the provider turns into its default answer."""
    repo = tf.registry.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name="py")))
    package = "python-" + secrets.token_hex(4)
    console.cli("import", "eol", repo.id, package, str(CYCLES))
    read = provider_read(tf.registry, package)
    assert read["version_map"] == {f"{package}-3.13": {"is_latest": True, "eol": False},
                                   f"{package}-3.12": {"is_latest": False, "eol": False}}  # fmt: skip
    assert read["ordered_keys"] == [f"{package}-3.12", f"{package}-3.13"]
    unknown = "nothing-" + secrets.token_hex(4)
    assert provider_read(tf.registry, unknown)["ordered_keys"] == [unknown]
    with pytest.raises(grpc.RpcError) as refused:
        tf.registry.GetPackageVersionMetadata(registry_pb2.PackageVersionMetadataRequest(package=unknown))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
