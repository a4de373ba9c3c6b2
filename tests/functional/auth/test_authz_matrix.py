"""The authorization matrix (reference 9.2 and 11): each built-in role x each IAM and registry RPC x a place
inside the caller's subtree, outside it (a sibling group, and the organization above it), and in another
organization.

The caller is an identity that lives in org/sub and is bound there, so it is confined to that subtree
(spec 2.3). Expectations come from the table of capabilities below, written from the reference's role
bundles, not from the server's code:
- scoped RPCs: holding the capabilities -> success; inside without them -> 403 PERMISSION_DENIED;
  anywhere outside the subtree -> 404 NOT_FOUND (nothing reveals what exists there);
- Lists: with the capability, inside shows the rows; otherwise, and outside, nothing (totalCount "0").
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.helpers import BUILTIN_ROLE_UIDS, Server

DIGEST = "sha256:" + "a" * 64

# Capabilities (friendly names) of the built-in roles that the RPCs below need (reference 9.2).
ROLE_CAPS: dict[str, set[str]] = {
    "owner": {
        "groups.create", "groups.update", "groups.list", "groups.delete", "identity.create", "identity.update",
        "identity.list", "identity.delete", "roles.create", "roles.update", "roles.list", "roles.delete",
        "role_bindings.create", "role_bindings.list", "role_bindings.delete", "repo.create", "repo.update",
        "repo.list", "repo.delete", "tag.create", "tag.list", "tag.delete",
    },
    "editor": {"groups.list", "identity.list", "roles.list", "role_bindings.list", "repo.create", "repo.update",
               "repo.list", "repo.delete", "tag.list"},
    "viewer": {"groups.list", "identity.list", "roles.list", "role_bindings.list", "repo.list", "tag.list"},
    "registry.pull": {"groups.list", "repo.list", "tag.list"},
    "registry.push": {"groups.create", "groups.list", "repo.create", "repo.update", "repo.list", "repo.delete",
                      "tag.create", "tag.list", "tag.delete"},
    "registry.pull_token_creator": {"groups.list", "roles.list", "role_bindings.create", "identity.create",
                                    "repo.list", "tag.list"},
}  # fmt: skip
ROLES = list(ROLE_CAPS)
PLACES = ["inside", "sibling", "above", "other org"]


@dataclass
class Place:
    group: str
    child: str = ""  # a sub-group
    identity: str = ""
    role: str = ""  # a custom role
    binding: str = ""
    repo: str = ""
    tag: str = ""


@dataclass
class World:
    owner: httpx.Client
    places: dict[str, Place] = field(default_factory=dict)
    callers: dict[str, httpx.Client] = field(default_factory=dict)

    def make(self, path: str, body: dict[str, Any]) -> str:
        r = self.owner.post(path, json=body)
        assert r.status_code == 200, r.text
        return str(r.json()["uid"])

    def group(self, parent: str) -> str:
        return self.make(f"/iam/v2/groups/{parent}", {"name": "g-" + secrets.token_hex(4)})

    def identity(self, parent: str) -> str:
        subject = secrets.token_hex(6)
        claim = {"issuer": "https://issuer.example", "subject": subject}
        return self.make(f"/iam/v2/identities/{parent}", {"name": "i-" + subject, "claimMatch": claim})

    def role(self, parent: str) -> str:
        return self.make(
            f"/iam/v2/roles/{parent}", {"name": "r-" + secrets.token_hex(4), "capabilities": ["CAP_REPO_LIST"]}
        )

    def binding(self, parent: str) -> str:
        body = {"identityUid": self.identity(parent), "roleUid": BUILTIN_ROLE_UIDS["registry.pull"]}
        return self.make(f"/iam/v2/roleBindings/{parent}", body)

    def repo(self, parent: str) -> str:
        return self.make(f"/registry/v2/repos/{parent}", {"name": "repo-" + secrets.token_hex(4)})

    def repo_name(self, uid: str) -> str:
        return str(self.owner.get(f"/registry/v2/repos/{uid}").json()["name"])

    def tag(self, repo: str) -> str:
        return self.make(f"/registry/v2/tags/{repo}", {"name": "t" + secrets.token_hex(3), "digest": DIGEST})

    def furnish(self, group: str) -> Place:
        p = Place(group, child=self.group(group), identity=self.identity(group), role=self.role(group),
                  binding=self.binding(group), repo=self.repo(group))  # fmt: skip
        p.tag = self.tag(p.repo)
        return p


@pytest.fixture(scope="module")
def world(server: Server) -> Iterator[World]:
    w = World(server.http)
    org = w.make("/iam/v2/groups/", {"name": "matrix-" + secrets.token_hex(4)})
    other = w.make("/iam/v2/groups/", {"name": "matrix-other-" + secrets.token_hex(4)})
    sub, sibling = w.group(org), w.group(org)
    w.places = {"inside": w.furnish(sub), "sibling": w.furnish(sibling), "above": w.furnish(org),
                "other org": w.furnish(other)}  # fmt: skip
    for role in ROLES:
        _, token = server.identity_with_role(sub, role)
        w.callers[role] = server.client(token)
    yield w
    for c in w.callers.values():
        c.close()


@dataclass(frozen=True)
class Case:
    name: str
    needs: tuple[str, ...]
    # (world, place) -> (method, path, body)
    request: Callable[[World, Place], tuple[str, str, dict[str, Any] | None]]


SCOPED = [
    Case("GetGroup", ("groups.list",), lambda w, p: ("GET", f"/iam/v2/groups/{p.group}", None)),
    Case("CreateGroup", ("groups.create",), lambda w, p: ("POST", f"/iam/v2/groups/{p.group}", {"name": "new-" + secrets.token_hex(3)})),
    Case("UpdateGroup", ("groups.update",), lambda w, p: ("PATCH", f"/iam/v2/groups/{w.group(p.group)}", {"description": "d"})),
    Case("DeleteGroup", ("groups.delete",), lambda w, p: ("DELETE", f"/iam/v2/groups/{w.group(p.group)}", None)),
    Case("CreateIdentity", ("identity.create",), lambda w, p: ("POST", f"/iam/v2/identities/{p.group}", {
        "name": "n" + secrets.token_hex(3), "claimMatch": {"issuer": "https://i.example", "subject": secrets.token_hex(4)}})),
    Case("GetIdentity", ("identity.list",), lambda w, p: ("GET", f"/iam/v2/identities/{p.identity}", None)),
    Case("UpdateIdentity", ("identity.update",), lambda w, p: ("PATCH", f"/iam/v2/identities/{p.identity}", {"description": "d"})),
    Case("DeleteIdentity", ("identity.delete",), lambda w, p: ("DELETE", f"/iam/v2/identities/{w.identity(p.group)}", None)),
    Case("CreateRole", ("roles.create",), lambda w, p: ("POST", f"/iam/v2/roles/{p.group}", {
        "name": "r" + secrets.token_hex(3), "capabilities": ["CAP_REPO_LIST"]})),
    Case("GetRole", ("roles.list",), lambda w, p: ("GET", f"/iam/v2/roles/{p.role}", None)),
    Case("UpdateRole", ("roles.update",), lambda w, p: ("PATCH", f"/iam/v2/roles/{w.role(p.group)}", {"description": "d"})),
    Case("DeleteRole", ("roles.delete",), lambda w, p: ("DELETE", f"/iam/v2/roles/{w.role(p.group)}", None)),
    Case("CreateRoleBinding", ("role_bindings.create",), lambda w, p: ("POST", f"/iam/v2/roleBindings/{p.group}", {
        "identityUid": w.identity(p.group), "roleUid": BUILTIN_ROLE_UIDS["registry.pull"]})),
    Case("GetRoleBinding", ("role_bindings.list",), lambda w, p: ("GET", f"/iam/v2/roleBindings/{p.binding}", None)),
    Case("DeleteRoleBinding", ("role_bindings.delete",), lambda w, p: ("DELETE", f"/iam/v2/roleBindings/{w.binding(p.group)}", None)),
    Case("CreateRepo", ("repo.create",), lambda w, p: ("POST", f"/registry/v2/repos/{p.group}", {"name": "n" + secrets.token_hex(3)})),
    Case("GetRepo", ("repo.list",), lambda w, p: ("GET", f"/registry/v2/repos/{p.repo}", None)),
    Case("GetRepoReadme", ("repo.list",), lambda w, p: ("GET", f"/registry/v2/repos/{p.repo}/readme", None)),
    Case("UpdateRepo", ("repo.update",), lambda w, p: ("PATCH", f"/registry/v2/repos/{p.repo}", {"description": "d"})),
    Case("DeleteRepo", ("repo.delete",), lambda w, p: ("DELETE", f"/registry/v2/repos/{w.repo(p.group)}", None)),
    Case("CreateTag", ("tag.create",), lambda w, p: ("POST", f"/registry/v2/tags/{p.repo}", {"name": "x" + secrets.token_hex(3), "digest": DIGEST})),
    Case("GetTag", ("tag.list",), lambda w, p: ("GET", f"/registry/v2/tags/{p.tag}", None)),
    Case("DeleteTag", ("tag.delete",), lambda w, p: ("DELETE", f"/registry/v2/tags/{w.tag(p.repo)}", None)),
]  # fmt: skip

LISTS = [
    Case("ListGroups", ("groups.list",), lambda w, p: ("GET", f"/iam/v2/groups?uidp.children_of={p.group}", None)),
    Case("ListIdentities", ("identity.list",), lambda w, p: ("GET", f"/iam/v2/identities?uidp.descendants_of={p.group}", None)),
    Case("ListRoles", ("roles.list",), lambda w, p: ("GET", f"/iam/v2/roles?uidp.descendants_of={p.group}", None)),
    Case("ListRoleBindings", ("role_bindings.list",), lambda w, p: ("GET", f"/iam/v2/roleBindings?uidp.descendants_of={p.group}", None)),
    Case("ListRepos", ("repo.list",), lambda w, p: ("GET", f"/registry/v2/repos?uidp.descendants_of={p.group}", None)),
    Case("ListTags", ("tag.list",), lambda w, p: ("GET", f"/registry/v2/tags?uidp.children_of={p.repo}", None)),
]  # fmt: skip


# The same operations over v1 (spec 9.5: the same authorization): Update is PUT, Get is a List filtered by id.
SCOPED_V1 = [
    Case("v1 Groups.Create", ("groups.create",), lambda w, p: ("POST", f"/iam/v1/groups/{p.group}", {"name": "new-" + secrets.token_hex(3)})),
    Case("v1 Groups.Update", ("groups.update",), lambda w, p: ("PUT", f"/iam/v1/groups/{w.group(p.group)}", {"name": "n" + secrets.token_hex(3)})),
    Case("v1 Groups.Delete", ("groups.delete",), lambda w, p: ("DELETE", f"/iam/v1/groups/{w.group(p.group)}", None)),
    Case("v1 Identities.Create", ("identity.create",), lambda w, p: ("POST", f"/iam/v1/identities/{p.group}", {
        "name": "n" + secrets.token_hex(3), "claimMatch": {"issuer": "https://i.example", "subject": secrets.token_hex(4)}})),
    Case("v1 Identities.Update", ("identity.update",), lambda w, p: ("PUT", f"/iam/v1/identities/{p.identity}", {
        "name": "n" + secrets.token_hex(3), "claimMatch": {"issuer": "https://i.example", "subject": secrets.token_hex(4)}})),
    Case("v1 Identities.Delete", ("identity.delete",), lambda w, p: ("DELETE", f"/iam/v1/identities/{w.identity(p.group)}", None)),
    Case("v1 Roles.Create", ("roles.create",), lambda w, p: ("POST", f"/iam/v1/roles/{p.group}", {
        "name": "r" + secrets.token_hex(3), "capabilities": ["CAP_REPO_LIST"]})),
    Case("v1 Roles.Update", ("roles.update",), lambda w, p: ("PUT", f"/iam/v1/roles/{w.role(p.group)}", {
        "name": "r" + secrets.token_hex(3), "capabilities": ["CAP_REPO_LIST"]})),
    Case("v1 Roles.Delete", ("roles.delete",), lambda w, p: ("DELETE", f"/iam/v1/roles/{w.role(p.group)}", None)),
    Case("v1 RoleBindings.Create", ("role_bindings.create",), lambda w, p: ("POST", f"/iam/v1/rolebindings/{p.group}", {
        "identity": w.identity(p.group), "role": BUILTIN_ROLE_UIDS["registry.pull"]})),
    Case("v1 RoleBindings.Delete", ("role_bindings.delete",), lambda w, p: ("DELETE", f"/iam/v1/rolebindings/{w.binding(p.group)}", None)),
    Case("v1 Registry.CreateRepo", ("repo.create",), lambda w, p: ("POST", f"/registry/v1/repos/{p.group}", {"name": "n" + secrets.token_hex(3)})),
    Case("v1 Registry.UpdateRepo", ("repo.update",), lambda w, p: ("PUT", f"/registry/v1/repos/{p.repo}", {"name": w.repo_name(p.repo), "description": "d"})),
    Case("v1 Registry.DeleteRepo", ("repo.delete",), lambda w, p: ("DELETE", f"/registry/v1/repos/{w.repo(p.group)}", None)),
    Case("v1 Registry.CreateTag", ("tag.create",), lambda w, p: ("POST", f"/registry/v1/tags/{p.repo}", {"name": "x" + secrets.token_hex(3), "digest": DIGEST})),
    Case("v1 Registry.DeleteTag", ("tag.delete",), lambda w, p: ("DELETE", f"/registry/v1/tags/{w.tag(p.repo)}", None)),
]  # fmt: skip

LISTS_V1 = [
    Case("v1 Groups.List", ("groups.list",), lambda w, p: ("GET", f"/iam/v1/groups?uidp.childrenOf={p.group}", None)),
    Case("v1 Groups.List by id", ("groups.list",), lambda w, p: ("GET", f"/iam/v1/groups?id={p.child}", None)),
    Case("v1 Identities.List", ("identity.list",), lambda w, p: ("GET", f"/iam/v1/identities?uidp.descendantsOf={p.group}", None)),
    Case("v1 Roles.List", ("roles.list",), lambda w, p: ("GET", f"/iam/v1/roles?uidp.descendantsOf={p.group}", None)),
    Case("v1 RoleBindings.List", ("role_bindings.list",), lambda w, p: ("GET", f"/iam/v1/rolebindings?uidp.descendantsOf={p.group}", None)),
    Case("v1 Registry.ListRepos", ("repo.list",), lambda w, p: ("GET", f"/registry/v1/repos?uidp.descendantsOf={p.group}", None)),
    Case("v1 Registry.ListTags", ("tag.list",), lambda w, p: ("GET", f"/registry/v1/tags?uidp.childrenOf={p.repo}", None)),
]  # fmt: skip


def call(client: httpx.Client, method: str, path: str, body: dict[str, Any] | None) -> httpx.Response:
    return client.request(method, path, json=body)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", SCOPED + SCOPED_V1, ids=lambda c: c.name)
def test_scoped(world: World, role: str, case: Case) -> None:
    allowed = set(case.needs) <= ROLE_CAPS[role]
    for place in PLACES:
        method, path, body = case.request(world, world.places[place])
        r = call(world.callers[role], method, path, body)
        expected = 404 if place != "inside" else 200 if allowed else 403
        assert r.status_code == expected, (role, case.name, place, r.text)
        if expected != 200:
            reason = {403: "PERMISSION_DENIED", 404: "NOT_FOUND"}[expected]
            assert r.json()["details"][0]["reason"] == reason, r.text


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", LISTS, ids=lambda c: c.name)
def test_lists(world: World, role: str, case: Case) -> None:
    allowed = set(case.needs) <= ROLE_CAPS[role]
    for place in ("inside", "sibling", "other org"):
        method, path, body = case.request(world, world.places[place])
        r = call(world.callers[role], method, path, body)
        assert r.status_code == 200, r.text
        listed = r.json()
        items = next((v for k, v in listed.items() if isinstance(v, list)), [])
        if place == "inside" and allowed:
            assert int(listed["totalCount"]) >= 1 and len(items) == int(listed["totalCount"]), (role, case.name)
        else:
            assert listed["totalCount"] == "0" and items == [], (role, case.name, place, listed)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", LISTS_V1, ids=lambda c: c.name)
def test_lists_v1(world: World, role: str, case: Case) -> None:
    """v1 lists answer the full set the v2 twin would show: empty (`{}`) outside, or without the capability."""
    allowed = set(case.needs) <= ROLE_CAPS[role]
    for place in ("inside", "sibling", "other org"):
        method, path, body = case.request(world, world.places[place])
        r = call(world.callers[role], method, path, body)
        assert r.status_code == 200, r.text
        items = r.json().get("items", [])
        if place == "inside" and allowed:
            assert len(items) >= 1, (role, case.name)
        else:
            assert r.json() == {}, (role, case.name, place, r.json())


def test_built_in_roles_are_listed_for_everyone(world: World) -> None:
    for role, client in world.callers.items():
        names = {r["name"] for r in client.get("/iam/v2/roles", params={"page_size": 200}).json()["roles"]}
        assert {"owner", "viewer", "editor"} <= names, role
        viewer = client.get(f"/iam/v2/roles/{BUILTIN_ROLE_UIDS['viewer']}")
        assert viewer.status_code == 200 and viewer.json()["description"] == "Viewer Role (built-in)"


def test_unscoped_lists_show_only_the_callers_subtree(world: World) -> None:
    listed = world.callers["viewer"].get("/registry/v2/repos", params={"page_size": 200}).json()
    inside = world.places["inside"]
    uids = [r["uid"] for r in listed["repos"]]
    assert inside.repo in uids and all(u.startswith(inside.group + "/") for u in uids)
    assert listed["totalCount"] == str(len(uids))
