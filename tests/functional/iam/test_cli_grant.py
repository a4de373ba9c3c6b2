"""`platform-api grant`: the operator binds an identity to a role of capabilities no caller can pass on
(advisory authoring), with the database; what it refuses, and that a running server honours the grant."""

from __future__ import annotations

import json
import subprocess

import httpx

from tests.helpers import Server, mk_group, ok, run_cli, unique


def grant(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("grant", *args, "--database", server.database_url)


def test_grant_binds_a_role_a_caller_could_not(server: Server, http: httpx.Client, org: str) -> None:
    group = mk_group(http, org, unique("g"))["uid"]
    ident, token = server.identity_with_role(group, "viewer")
    # The owner cannot create such a role (it does not hold advisories.create).
    r = http.post(f"/iam/v2/roles/{group}", json={"name": "x", "capabilities": ["CAP_ADVISORIES_CREATE"]})
    assert r.status_code == 403, r.text
    done = grant(server, "--group", group, "--identity", ident, "--role-name", "authors", "advisories.create",
                 "CAP_ADVISORIES_LIST")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["createdRole"] is True
    role = ok(http.get(f"/iam/v2/roles/{out['role']}"))
    assert role["name"] == "authors" and role["capabilities"] == ["CAP_ADVISORIES_CREATE", "CAP_ADVISORIES_LIST"]
    binding = ok(http.get(f"/iam/v2/roleBindings/{out['binding']}"))
    assert binding["identity"]["uid"] == ident and binding["role"]["uid"] == out["role"]
    # The running server honours it on the identity's next request (a v1 advisory create needs it).
    with server.client(token) as author:
        r = author.post("/vulnerabilities/v1/advisories", json={"parentId": group, "artifactName": "pkg"})
        assert r.status_code != 403, r.text
    # Again, for another identity: the same role is reused; a role of that name with other capabilities is not.
    other, _ = server.identity_with_role(group, "viewer")
    again = json.loads(grant(server, "--group", group, "--identity", other, "--role-name", "authors",
                             "CAP_ADVISORIES_LIST", "advisories.create").stdout)  # fmt: skip
    assert again["role"] == out["role"] and again["createdRole"] is False
    clash = grant(server, "--group", group, "--identity", other, "--role-name", "authors", "advisories.list")
    assert clash.returncode != 0 and "other capabilities" in clash.stderr
    assert "Traceback" not in clash.stderr


def test_grant_refusals_are_one_line(server: Server, http: httpx.Client, org: str) -> None:
    ident, _ = server.identity_with_role(org, "viewer")
    cases = [
        (["--group", org, "--identity", ident, "--role-name", "r", "advisories.nope"], "unknown capabilities"),
        (["--group", org, "--identity", org + "/" + "0" * 16, "--role-name", "r", "advisories.list"], "not found"),
        (["--group", org + "/" + "0" * 16, "--identity", ident, "--role-name", "r", "advisories.list"], "not found"),
        (["--group", org, "--identity", ident, "--role-name", "r", "UNKNOWN"], "UNKNOWN"),
    ]
    for args, said in cases:
        done = grant(server, *args)
        assert done.returncode != 0, args
        assert said in done.stderr.lower() or said in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_grant_refuses_a_built_in_role_name(server: Server, http: httpx.Client, org: str) -> None:
    """Issue 26 (info): a custom role named `viewer` would read as the built-in one wherever it is bound."""
    ident, _ = server.identity_with_role(org, "viewer")
    unknown = grant(server, "--group", org, "--identity", ident, "--role-name", "r", "advisories.nope")
    for name in ("viewer", "owner", "registry.pull", " Viewer", "EDITOR"):
        done = grant(server, "--group", org, "--identity", ident, "--role-name", name, "advisories.list")
        assert done.returncode == unknown.returncode != 0, (name, done.stderr)
        assert "built-in role" in done.stderr, (name, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    listed = ok(http.get("/iam/v2/roles", params={"uidp.children_of": org}))
    assert listed.get("roles", []) == []
