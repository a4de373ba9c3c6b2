"""`platformctl` driven as a script would (`-o json`): the resource commands, names where uids are expected,
ambiguous names refused with their candidates, and the exit code of each error class."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.functional.ctl.cli import Ctl
from tests.helpers import BUILTIN_ROLE_UIDS, Server, free_port, unique

DIGEST = "sha256:" + "c" * 64


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    """gRPC against SQLite, HTTP/JSON against PostgreSQL: each transport and each backend once (the client's
    transports are the same code whatever the store; tests/functional/client covers all four)."""
    return Ctl(server, tmp_path, server.token, "grpc" if server.backend == "sqlite" else "http")


@pytest.fixture
def org(ctl: Ctl) -> str:
    """A new organization, by name; the default organization of `ctl`."""
    name = unique("org")
    assert ctl.json("iam", "groups", "create", name, "--description", "test org")["name"] == name
    assert ctl("config", "set", "org", name).code == 0
    return name


def test_groups_and_paths_of_names(ctl: Ctl, org: str) -> None:
    team = ctl.json("iam", "groups", "create", "team")  # under the default organization
    sub = ctl.json("iam", "groups", "create", "sub", "--group", f"{org}/team")  # --group: --parent's other name
    assert sub["uid"].startswith(team["uid"] + "/")
    assert ctl.json("iam", "groups", "get", f"{org}/team/sub")["uid"] == sub["uid"]
    assert ctl.json("iam", "groups", "get", sub["uid"])["name"] == "sub"
    assert [g["name"] for g in ctl.json("iam", "groups", "ls")] == ["team", "sub"]
    assert [g["name"] for g in ctl.json("iam", "groups", "ls", "--parent", org, "--children")] == ["team"]
    updated = ctl.json("iam", "groups", "update", f"{org}/team", "--description", "the team")
    assert updated["description"] == "the team"
    # A flag given empty clears the field (the mask names it).
    assert "description" not in ctl.json("iam", "groups", "update", f"{org}/team", "--description", "")
    rm = ctl("iam", "groups", "rm", f"{org}/team/sub")
    assert rm.code == 0 and sub["uid"] in rm.out
    r = ctl("iam", "groups", "get", f"{org}/team/sub")
    assert r.code == 5 and "no group named" in r.err


def test_repos_and_tags(ctl: Ctl, org: str) -> None:
    repo = ctl.json("registry", "repos", "create", "nginx", "--description", "web server", "--alias", "web:latest")
    assert repo["aliases"] == ["web:latest"] and repo["description"] == "web server"
    assert ctl.json("registry", "repos", "get", "nginx")["uid"] == repo["uid"]
    tag = ctl.json("registry", "tags", "create", "latest", "--repo", f"{org}/nginx", "--digest", DIGEST)
    assert tag["digest"] == DIGEST and tag["uid"].startswith(repo["uid"] + "/")
    assert [t["name"] for t in ctl.json("registry", "tags", "ls", "--parent", f"{org}/nginx")] == ["latest"]
    # ls takes the parent under create's name too (--repo), and its --help example names a repo, not a group.
    assert [t["name"] for t in ctl.json("registry", "tags", "ls", "--repo", f"{org}/nginx")] == ["latest"]
    example = ctl("registry", "tags", "ls", "--help").out.split("examples:", 1)[1].splitlines()[-1].split()
    assert example[:4] == ["platformctl", "registry", "tags", "ls"], example
    assert [
        t["name"] for t in ctl.json(*[a.replace("my-org", org) for a in example[1:] if a not in ("-o", "json")])
    ] == ["latest"]
    # The table says which repo each tag is in (its path); json keeps the API's record.
    rows = [line.split() for line in ctl("registry", "tags", "ls").out.splitlines()]
    assert rows[0][:3] == ["NAME", "REPO", "DIGEST"] and rows[1][:2] == ["latest", f"{org}/nginx"], rows
    assert "repo" not in ctl.json("registry", "tags", "ls")[0]
    assert ctl.json("registry", "tags", "get", f"{org}/nginx/latest")["uid"] == tag["uid"]
    assert ctl.json("registry", "repos", "update", "nginx", "--description", "proxy")["description"] == "proxy"
    # Bulk removal, by names and uids mixed; the JSON answer lists what was deleted.
    ctl.json("registry", "repos", "create", "redis")
    gone = ctl.json("registry", "repos", "rm", "nginx", ctl.json("registry", "repos", "get", "redis")["uid"])
    assert len(gone) == 2 and gone[0]["uid"] == repo["uid"]
    assert ctl.json("registry", "repos", "ls") == []


def test_an_ambiguous_name_is_refused_with_its_candidates(ctl: Ctl, org: str) -> None:
    ctl.json("iam", "groups", "create", "a")
    ctl.json("iam", "groups", "create", "b")
    one = ctl.json("registry", "repos", "create", "app", "--parent", f"{org}/a")
    two = ctl.json("registry", "repos", "create", "app", "--parent", f"{org}/b")
    r = ctl("registry", "repos", "get", "app")
    assert r.code == 7 and "ambiguous" in r.err and one["uid"] in r.err and two["uid"] in r.err
    # Each candidate by its path too, which the person can give instead.
    assert f"  {org}/a/app  {one['uid']}\n" in r.err and f"  {org}/b/app  {two['uid']}\n" in r.err, r.err
    r = ctl("registry", "repos", "rm", "app")
    assert r.code == 7
    assert len(ctl.json("registry", "repos", "ls")) == 2  # nothing was deleted on a guess
    assert ctl.json("registry", "repos", "get", f"{org}/b/app")["uid"] == two["uid"]
    # Limits of listing
    assert len(ctl.json("registry", "repos", "ls", "--limit", "1", "--page-size", "1")) == 1


def test_iam_resources_by_name(ctl: Ctl, org: str) -> None:
    ident = ctl.json("iam", "identities", "create", "ci-bot", "--issuer", "https://issuer.example",
                     "--subject", "repo:acme/app")  # fmt: skip
    assert ident["claimMatch"] == {"issuer": "https://issuer.example", "subject": "repo:acme/app"}
    assert ctl.json("iam", "identities", "update", "ci-bot", "--subject", "other")["claimMatch"]["subject"] == "other"
    role = ctl.json("iam", "roles", "create", "puller", "--capabilities", "repo.list,tag.list",
                    "--capabilities", "CAP_IAM_GROUPS_LIST")  # fmt: skip
    assert sorted(role["capabilities"]) == ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"]
    # With a default organization, `roles ls` shows the built-in roles (at the root) with the org's own.
    listed = {r["name"]: r["uid"] for r in ctl.json("iam", "roles", "ls")}
    assert {"viewer", "editor", "owner", "puller"} <= set(listed) and "/" not in listed["viewer"], listed
    assert [r["name"] for r in ctl.json("iam", "roles", "ls", "--no-builtin")] == ["puller"]
    assert [r["name"] for r in ctl.json("iam", "roles", "ls", "--name", "viewer")] == ["viewer"]
    # The built-in viewer role and the org's own role, both by name.
    viewer = ctl.json("iam", "role-bindings", "create", "--identity", "ci-bot", "--role", "viewer")
    assert viewer["role"]["name"] == "viewer" and viewer["identity"]["uid"] == ident["uid"]
    ctl.json("iam", "role-bindings", "create", "--identity", f"{org}/ci-bot", "--role", f"{org}/puller")
    bindings = ctl.json("iam", "role-bindings", "ls", "--identity", "ci-bot")
    assert sorted(b["role"]["name"] for b in bindings) == ["puller", "viewer"]
    assert [b["identity"]["name"] for b in ctl.json("iam", "role-bindings", "ls", "--role", "puller")] == ["ci-bot"]
    invite = ctl.json("iam", "invites", "create", "--role", "viewer", "--ttl", "3600s", "--single-use")
    assert invite["code"] and invite["singleUse"] is True
    assert [i["uid"] for i in ctl.json("iam", "invites", "ls")] == [invite["uid"]]
    idp = ctl.json("iam", "identity-providers", "create", "corp-sso", "--issuer", "https://idp.example.com",
                   "--client-id", "platform", "--pkce", "--default-role", "viewer")  # fmt: skip
    assert idp["oidc"]["pkceEnabled"] is True and idp["defaultRole"] == BUILTIN_ROLE_UIDS["viewer"]
    mapping = ctl.json("iam", "group-mappings", "create", "--identity-provider", f"{org}/corp-sso",
                       "--external-group", "admins", "--role", "viewer", "--scope", org)  # fmt: skip
    assert mapping["externalGroupId"] == "admins" and mapping["identityProviderUid"] == idp["uid"]
    listed = ctl.json("iam", "group-mappings", "ls", "--identity-provider-uid", "corp-sso")
    assert [m["uid"] for m in listed] == [mapping["uid"]]
    for kind, ref in (("group-mappings", mapping["uid"]), ("identity-providers", "corp-sso"),
                      ("invites", invite["uid"]), ("identities", "ci-bot"), ("roles", "puller")):  # fmt: skip
        assert ctl("iam", kind, "rm", ref).code == 0, kind


def test_events_and_advisories_lists(ctl: Ctl, org: str) -> None:
    assert ctl.json("events", "subscriptions", "ls") == []
    assert ctl.json("events", "deliveries", "ls", "--state", "failed") == []
    assert isinstance(ctl.json("advisories", "ls", "--limit", "5"), list)
    r = ctl("events", "deliveries", "redeliver", ctl.json("iam", "groups", "get", org)["uid"] + "/0123456789abcdef",
            "no-such-event")  # fmt: skip
    assert r.code == 5, r.err


def test_exit_codes(ctl: Ctl, server: Server, org: str, tmp_path: Path) -> None:
    assert ctl("registry", "repos", "get", "nope").code == 5
    assert ctl("registry", "repos", "create", "Bad Name!").code == 7
    ctl.json("registry", "repos", "create", "dup")
    r = ctl("registry", "repos", "create", "dup")
    assert r.code == 6 and "ALREADY_EXISTS" in r.err
    assert ctl("registry", "repos", "ls", "--bogus-flag").code == 2
    assert ctl("registry", "repos", "update", "dup").code == 2  # nothing to change
    assert ctl("registry").code == 2
    r = ctl("registry", "tags", "create", "latest", "--digest", DIGEST)  # a tag needs its repo
    assert r.code == 2 and "--repo is required" in r.err
    org_uid = ctl.json("iam", "groups", "get", org)["uid"]
    _, viewer = server.identity_with_role(org_uid, "viewer")
    as_viewer = Ctl(server, tmp_path / "viewer", viewer, ctl.env["PLATFORM_API_TRANSPORT"])
    assert as_viewer.json("registry", "repos", "ls", "--parent", org_uid)[0]["name"] == "dup"
    r = as_viewer("registry", "repos", "create", "nope", "--parent", org_uid)
    assert r.code == 4 and "PERMISSION_DENIED" in r.err
    anonymous = Ctl(server, tmp_path / "anon", None, ctl.env["PLATFORM_API_TRANSPORT"])
    r = anonymous("registry", "repos", "ls", "--parent", org_uid)
    assert r.code == 3 and "UNAUTHENTICATED" in r.err
    nowhere = Ctl(server, tmp_path / "down", server.token, ctl.env["PLATFORM_API_TRANSPORT"])
    port = free_port()
    nowhere.env.update({"PLATFORM_API_URL": f"http://127.0.0.1:{port}", "PLATFORM_API_GRPC": f"127.0.0.1:{port}"})
    r = nowhere("registry", "repos", "ls", "--parent", org_uid)
    assert r.code == 8 and "UNAVAILABLE" in r.err
