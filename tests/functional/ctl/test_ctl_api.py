"""`platformctl api`, as `gh api`: any route over HTTP/JSON and any gRPC method of the contract (v1 included) with
the user's token, -f parameters, --paginate, -o yaml, and the API's errors as one line with their exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, unique

LIST_GROUPS = "chainguard.platform.iam.v2.GroupsService/ListGroups"
RESOLVED = "chainguard.platform.advisory.v2.SecurityAdvisoryService/ListResolvedVulnsReports"


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    """The configured transport does not decide how `api` calls (HTTP for a path, gRPC for `grpc`): both backends,
    each with a different configured transport to show it."""
    return Ctl(server, tmp_path, server.token, "grpc" if server.backend == "sqlite" else "http")


def test_get_with_query_fields_and_post_with_body_fields(ctl: Ctl, org: str) -> None:
    repo = ctl.json("api", "POST", f"/registry/v2/repos/{org}", "-f", "name=nginx", "-f", "description=web server")
    assert repo["name"] == "nginx" and repo["description"] == "web server" and repo["uid"].startswith(org + "/")
    # Dotted keys nest (the mask of a PATCH as a query parameter, the body from -d).
    patched = ctl.json("api", "PATCH", f"/registry/v2/repos/{repo['uid']}?updateMask=description",
                       "-d", '{"description": "proxy"}')  # fmt: skip
    assert patched["description"] == "proxy"
    listed = ctl.json("api", "/registry/v2/repos", "-f", f"uidp.childrenOf={org}")  # GET by default
    assert [r["uid"] for r in listed["repos"]] == [repo["uid"]]
    # A body given on its own makes a POST; -F sends typed values.
    tag = ctl.json("api", f"/registry/v2/tags/{repo['uid']}", "-d",
                   json.dumps({"name": "latest", "digest": "sha256:" + "a" * 64}))  # fmt: skip
    assert tag["name"] == "latest"
    team = ctl.json("api", "POST", f"/iam/v2/groups/{org}", "-f", "name=team", "-F", "verified=false")
    assert team["name"] == "team"
    # The body from a file or standard input, and -o yaml.
    r = ctl("api", "POST", f"/iam/v2/groups/{org}", "--input", "-", "-o", "yaml", stdin='{"name": "ops"}')
    assert r.code == 0 and yaml.safe_load(r.out)["name"] == "ops"
    assert ctl.json("api", "DELETE", f"/registry/v2/repos/{repo['uid']}") == {}


def test_paginate_merges_the_pages(ctl: Ctl, org: str) -> None:
    for i in range(5):
        ctl.json("api", "POST", f"/iam/v2/groups/{org}", "-f", f"name=g{i}")
    one = ctl.json("api", "/iam/v2/groups", "-f", f"uidp.childrenOf={org}", "-f", "pageSize=2")
    assert len(one["groups"]) == 2 and one["nextPageToken"]
    every = ctl.json("api", "/iam/v2/groups", "-f", f"uidp.childrenOf={org}", "-f", "pageSize=2", "--paginate")
    assert sorted(g["name"] for g in every["groups"]) == [f"g{i}" for i in range(5)]
    assert "nextPageToken" not in every
    # Bounded: stopped with the token to go on from, and said so.
    r = ctl("api", "/iam/v2/groups", "-f", f"uidp.childrenOf={org}", "-f", "pageSize=2", "--paginate",
            "--max-pages", "2", "-o", "json")  # fmt: skip
    assert r.code == 0 and "--max-pages" in r.err
    assert len(json.loads(r.out)["groups"]) == 4 and json.loads(r.out)["nextPageToken"]
    # The same over gRPC, from a JSON request with -f added to it.
    grpc = ctl.json("api", "grpc", LIST_GROUPS, "-d", json.dumps({"uidp": {"childrenOf": org}}),
                    "-F", "pageSize=2", "--paginate")  # fmt: skip
    assert sorted(g["name"] for g in grpc["groups"]) == [f"g{i}" for i in range(5)]


def test_v1_route_and_v1_grpc_method(ctl: Ctl, org: str) -> None:
    ctl.json("api", "POST", f"/registry/v1/repos/{org}", "-f", "name=alpine")
    v1 = ctl.json("api", "GET", "/registry/v1/repos", "-f", f"uidp.childrenOf={org}")
    assert [r["name"] for r in v1["items"]] == ["alpine"]
    ctl.json("api", "POST", f"/iam/v2/groups/{org}", "-f", "name=team")
    # Both spellings of a method's name.
    for name in ("chainguard.platform.iam.Groups/List", "chainguard.platform.iam.Groups.List"):
        groups = ctl.json("api", "grpc", name, "-f", f"uidp.childrenOf={org}")
        assert [g["name"] for g in groups["items"]] == ["team"]


def test_grpc_v2_call(ctl: Ctl, org: str) -> None:
    created = ctl.json("api", "grpc", "chainguard.platform.registry.v2.ReposService/CreateRepo",
                       "-d", json.dumps({"parent": org, "repo": {"name": "redis"}}))  # fmt: skip
    assert created["name"] == "redis"
    got = ctl.json(
        "api", "grpc", "/chainguard.platform.registry.v2.ReposService/GetRepo", "-f", f"uid={created['uid']}"
    )
    assert got == created
    # The README's gRPC-only call (image_refs cannot be sent in a query string).
    name = unique("app")
    ctl.json("api", "POST", f"/registry/v2/repos/{org}", "-f", f"name={name}")
    request = {"imageRefs": [{"repo": name, "tags": ["latest"]}], "startTime": "2026-11-01T00:00:00Z",
               "endTime": "2026-11-03T00:00:00Z"}  # fmt: skip
    reports = ctl.json("api", "grpc", RESOLVED, "-d", json.dumps(request))
    assert [r["date"][:10] for r in reports["resolvedVulnsReports"]] == ["2026-11-01", "2026-11-02", "2026-11-03"]


def test_errors_are_one_line_with_their_exit_code(ctl: Ctl, org: str) -> None:
    missing = f"{org}/" + "0" * 16
    get_repo = "chainguard.platform.registry.v2.ReposService/GetRepo"
    for args in (("api", f"/registry/v2/repos/{missing}"), ("api", "grpc", get_repo, "-f", f"uid={missing}")):
        r = ctl(*args)
        assert r.code == 5, r
        assert r.out == "" and r.err.count("\n") == 1 and "NOT_FOUND" in r.err and "Traceback" not in r.err
    assert ctl("api", "POST", f"/iam/v2/groups/{org}", "-d", '{"name": "team"}').code == 0
    r = ctl("api", "POST", f"/iam/v2/groups/{org}", "-d", '{"name": "team"}')
    assert r.code == 6 and "ALREADY_EXISTS" in r.err


def test_usage_errors(ctl: Ctl) -> None:
    r = ctl("api", "grpc", "chainguard.platform.iam.v2.GroupService/ListGroup")
    assert r.code == 2 and "did you mean" in r.err and LIST_GROUPS in r.err and "Traceback" not in r.err
    r = ctl("api", "grpc", "chainguard.platform.iam.v2.GroupsService/ListGroupz")
    assert r.code == 2 and "ListGroups" in r.err
    r = ctl("api", "grpc", LIST_GROUPS, "-d", '{"pageSize": "many"}')
    assert r.code == 2 and "pageSize" in r.err and r.err.count("\n") == 1
    r = ctl("api", "grpc", LIST_GROUPS, "-d", '{"noSuchField": 1}')
    assert r.code == 2 and "noSuchField" in r.err
    assert ctl("api", "FETCH", "/iam/v2/groups").code == 2
    assert ctl("api", "/iam/v2/groups", "-f", "novalue").code == 2
    r = ctl("api", "POST", "/iam/v2/groups/x", "-d", "{not json")
    assert r.code == 2 and "not JSON" in r.err
