"""gRPC transport (same contract, same data, same errors as HTTP), health and reflection, on both backends."""

from __future__ import annotations

import time
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import field_mask_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from platform_api.gen.chainguard.platform.ping.v2 import ping_pb2, ping_pb2_grpc
from platform_api.gen.chainguard.platform.registry.v1 import vulnerabilities_pb2, vulnerabilities_pb2_grpc
from platform_api.gen.chainguard.platform.registry.v2 import (
    repos_pb2,
    repos_pb2_grpc,
    tags_pb2,
    tags_pb2_grpc,
)
from tests.helpers import TIMEOUT, Server, error_info, rpc_error, stamp, unpack

DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64


@pytest.fixture
def repos(server: Server) -> repos_pb2_grpc.ReposServiceStub:
    return repos_pb2_grpc.ReposServiceStub(server.channel)


@pytest.fixture
def tags(server: Server) -> tags_pb2_grpc.TagsServiceStub:
    return tags_pb2_grpc.TagsServiceStub(server.channel)


@pytest.fixture
def groups(server: Server) -> groups_pb2_grpc.GroupsServiceStub:
    return groups_pb2_grpc.GroupsServiceStub(server.channel)


def mk_repo(repos: repos_pb2_grpc.ReposServiceStub, parent: str, name: str, **fields: Any) -> repos_pb2.Repo:
    req = repos_pb2.CreateRepoRequest(parent=parent, repo=repos_pb2.Repo(name=name, **fields))
    out: repos_pb2.Repo = repos.CreateRepo(req, timeout=TIMEOUT)
    return out


def http_names(http: httpx.Client, **params: Any) -> tuple[list[str], dict[str, Any]]:
    r = http.get("/registry/v2/repos", params=params)
    assert r.status_code == 200, r.text
    body = r.json()
    return [x["name"] for x in body.get("repos", [])], body


# ---------------------------------------------------------------------------------------- basic plumbing


def test_ping(server: Server) -> None:
    out = ping_pb2_grpc.PingServiceStub(server.channel).Ping(ping_pb2.PingRequest(), timeout=TIMEOUT)
    assert out.response
    assert server.http.get("/ping/v2/ping").json() == {"response": out.response}


def test_health_check(server: Server) -> None:
    stub = health_pb2_grpc.HealthStub(server.channel)
    out = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
    assert out.status == health_pb2.HealthCheckResponse.SERVING
    named = stub.Check(
        health_pb2.HealthCheckRequest(service="chainguard.platform.registry.v2.ReposService"), timeout=TIMEOUT
    )
    assert named.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as e:
        stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_services(server: Server) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(server.channel)
    responses = list(
        stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=TIMEOUT)
    )
    services = {s.name for s in responses[0].list_services_response.service}
    assert {
        "chainguard.platform.registry.v2.ReposService",
        "chainguard.platform.registry.v2.TagsService",
        "chainguard.platform.iam.v2.GroupsService",
        "chainguard.platform.ping.v2.PingService",
        "grpc.health.v1.Health",
    } <= services
    # The descriptors are served too.
    req = reflection_pb2.ServerReflectionRequest(file_containing_symbol="chainguard.platform.registry.v2.ReposService")
    files = list(stub.ServerReflectionInfo(iter([req]), timeout=TIMEOUT))
    assert files[0].file_descriptor_response.file_descriptor_proto


def test_unimplemented_over_grpc(server: Server, org: str) -> None:
    # A declared method that is not served (v1 Vulnerabilities.ListCumulativeVulnCountReports: README "Wire
    # contract").
    stub = vulnerabilities_pb2_grpc.VulnerabilitiesStub(server.channel)
    err, st = rpc_error(stub.ListCumulativeVulnCountReports, vulnerabilities_pb2.VulnCountReportFilter(repo="nginx"))
    assert err.code() == grpc.StatusCode.UNIMPLEMENTED
    assert error_info(st).reason == "UNIMPLEMENTED"


def test_unknown_method_is_unimplemented(server: Server) -> None:
    call = server.channel.unary_unary("/chainguard.platform.registry.v2.ReposService/Nope")
    with pytest.raises(grpc.RpcError) as e:
        call(b"", timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


# ------------------------------------------------------------------------------------ same data, both ways


def test_http_created_repo_visible_over_grpc(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    made = server.http.post(f"/registry/v2/repos/{org}", json={"name": "nginx", "description": "web",
                                                               "activeTags": ["1.27"]}).json()  # fmt: skip
    got = repos.GetRepo(repos_pb2.GetRepoRequest(uid=made["uid"]), timeout=TIMEOUT)
    assert (got.uid, got.name, got.description, list(got.active_tags)) == (made["uid"], "nginx", "web", ["1.27"])
    assert got.create_time == stamp(made["createTime"])
    assert got.update_time == stamp(made["updateTime"])


def test_grpc_created_repo_visible_over_http(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    made = mk_repo(repos, org, "redis", description="cache", aliases=["redis:7"])
    assert made.uid.startswith(org + "/") and made.create_time.seconds > 0
    assert made.create_time == made.update_time
    r = server.http.get(f"/registry/v2/repos/{made.uid}")
    assert r.status_code == 200, r.text
    seen = r.json()
    assert (stamp(seen.pop("createTime")), stamp(seen.pop("updateTime"))) == (made.create_time, made.update_time)
    assert seen == {"uid": made.uid, "name": "redis", "description": "cache", "aliases": ["redis:7"]}


def test_groups_over_grpc(server: Server, groups: groups_pb2_grpc.GroupsServiceStub) -> None:
    root = groups.CreateGroup(groups_pb2.CreateGroupRequest(parent="", group=groups_pb2.Group(name="grpc-org")),
                              timeout=TIMEOUT)  # fmt: skip
    assert len(root.uid) == 40
    team = groups.CreateGroup(groups_pb2.CreateGroupRequest(parent=root.uid, group=groups_pb2.Group(name="team")),
                              timeout=TIMEOUT)  # fmt: skip
    listed = groups.ListGroups(
        groups_pb2.ListGroupsRequest(uidp=uidp_pb2.UIDPFilter(descendants_of=root.uid)), timeout=TIMEOUT
    )
    assert [g.uid for g in listed.groups] == [team.uid] and listed.total_count == 1
    assert listed.HasField("total_count") and listed.skipped == 0  # skipped is a plain int32 in the contract
    assert server.http.get(f"/iam/v2/groups/{team.uid}").json()["name"] == "team"
    assert groups.GetGroup(groups_pb2.GetGroupRequest(uid=root.uid), timeout=TIMEOUT).name == "grpc-org"
    err, _ = rpc_error(groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=root.uid))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    groups.DeleteGroup(groups_pb2.DeleteGroupRequest(uid=team.uid), timeout=TIMEOUT)
    groups.DeleteGroup(groups_pb2.DeleteGroupRequest(uid=root.uid), timeout=TIMEOUT)
    assert server.http.get(f"/iam/v2/groups/{root.uid}").status_code == 404


def test_list_repos_matches_http(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    all_names = [
        "redis",
        "apko",
        "nginx",
        "static",
        "go",
        "python",
        "busybox",
        "ruby",
        "jdk",
        "postgres",
        "node",
        "php",
    ]
    for n in all_names:
        mk_repo(repos, org, n)
    scope = uidp_pb2.UIDPFilter(descendants_of=org)
    for order in ["name", "name desc", "created_at desc", "uid", ""]:
        seen: list[str] = []
        token = ""
        http_token = None
        while True:
            req = repos_pb2.ListReposRequest(uidp=scope, page_size=5, order_by=order, page_token=token)
            page = repos.ListRepos(req, timeout=TIMEOUT)
            params: dict[str, Any] = {"uidp.descendants_of": org, "page_size": 5, "order_by": order}
            if http_token:
                params["page_token"] = http_token
            http_page, body = http_names(server.http, **params)
            assert [r.name for r in page.repos] == http_page, order
            assert page.total_count == 12 and body["totalCount"] == "12"
            seen += http_page
            token, http_token = page.next_page_token, body.get("nextPageToken")
            assert bool(token) == bool(http_token)
            if not token:
                break
        assert sorted(seen) == sorted(all_names)
    skipped = repos.ListRepos(
        repos_pb2.ListReposRequest(uidp=scope, page_size=5, order_by="name", skip=10), timeout=TIMEOUT
    )
    assert [r.name for r in skipped.repos] == ["ruby", "static"] and skipped.skipped == 10
    assert not skipped.next_page_token
    exact = repos.ListRepos(repos_pb2.ListReposRequest(uidp=scope, name="nginx"), timeout=TIMEOUT)
    assert [r.name for r in exact.repos] == ["nginx"] and exact.total_count == 1


def test_empty_list_over_grpc(org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    out = repos.ListRepos(repos_pb2.ListReposRequest(uidp=uidp_pb2.UIDPFilter(descendants_of=org)), timeout=TIMEOUT)
    assert not out.repos and out.HasField("total_count") and out.total_count == 0 and out.skipped == 0


def test_tags_over_grpc(
    server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub, tags: tags_pb2_grpc.TagsServiceStub
) -> None:
    repo = mk_repo(repos, org, "nginx")
    first = tags.CreateTag(tags_pb2.CreateTagRequest(parent=repo.uid, tag=tags_pb2.Tag(name="latest", digest=DIGEST_A)),
                           timeout=TIMEOUT)  # fmt: skip
    again = tags.CreateTag(
        tags_pb2.CreateTagRequest(parent=repo.uid, tag=tags_pb2.Tag(name="latest", digest=DIGEST_B, deprecated=True)),
        timeout=TIMEOUT,
    )
    assert again.uid == first.uid and again.digest == DIGEST_B and again.deprecated
    tags.CreateTag(tags_pb2.CreateTagRequest(parent=repo.uid, tag=tags_pb2.Tag(name="sha256-abc", digest=DIGEST_A)),
                   timeout=TIMEOUT)  # fmt: skip
    scope = uidp_pb2.UIDPFilter(children_of=repo.uid)
    assert [t.name for t in tags.ListTags(tags_pb2.ListTagsRequest(uidp=scope), timeout=TIMEOUT).tags] == ["latest"]
    with_refs = tags.ListTags(tags_pb2.ListTagsRequest(uidp=scope, include_referrers=True), timeout=TIMEOUT)
    assert sorted(t.name for t in with_refs.tags) == ["latest", "sha256-abc"]
    http_tag = server.http.get(f"/registry/v2/tags/{first.uid}").json()
    assert (http_tag["digest"], http_tag["deprecated"]) == (DIGEST_B, True)
    tags.DeleteTag(tags_pb2.DeleteTagRequest(uid=first.uid), timeout=TIMEOUT)
    err, st = rpc_error(tags.GetTag, tags_pb2.GetTagRequest(uid=first.uid))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    err, st = rpc_error(
        tags.CreateTag, tags_pb2.CreateTagRequest(parent=repo.uid, tag=tags_pb2.Tag(name="x", digest="md5:1"))
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["digest"]


def test_readme_over_grpc(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    repo = mk_repo(repos, org, "nginx")
    assert repos.GetRepoReadme(repos_pb2.GetRepoReadmeRequest(uid=repo.uid), timeout=TIMEOUT).content == ""
    out = repos.UpdateRepoReadme(
        repos_pb2.UpdateRepoReadmeRequest(repo_readme=repos_pb2.RepoReadme(uid=repo.uid, content="# Hello")),
        timeout=TIMEOUT,
    )
    assert (out.uid, out.content) == (repo.uid, "# Hello")
    assert server.http.get(f"/registry/v2/repos/{repo.uid}/readme").json() == {"uid": repo.uid, "content": "# Hello"}
    bad = repos_pb2.UpdateRepoReadmeRequest(
        repo_readme=repos_pb2.RepoReadme(uid=repo.uid, content="<script>x</script>")
    )
    err, _ = rpc_error(repos.UpdateRepoReadme, bad)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT


# ------------------------------------------------------------------------------------------------ updates


def test_update_without_mask_changes_only_set_fields(
    server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub
) -> None:
    repo = mk_repo(repos, org, "nginx", description="old", aliases=["nginx:1"])
    time.sleep(0.003)
    out = repos.UpdateRepo(
        repos_pb2.UpdateRepoRequest(repo=repos_pb2.Repo(uid=repo.uid, description="new")), timeout=TIMEOUT
    )
    assert (out.name, out.description, list(out.aliases)) == ("nginx", "new", ["nginx:1"])
    assert out.update_time.ToNanoseconds() > repo.update_time.ToNanoseconds()
    assert out.create_time == repo.create_time
    http_view = server.http.get(f"/registry/v2/repos/{repo.uid}").json()
    assert (http_view["name"], http_view["description"], http_view["aliases"]) == ("nginx", "new", ["nginx:1"])


def test_update_with_mask(org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    repo = mk_repo(repos, org, "nginx", description="old")
    req = repos_pb2.UpdateRepoRequest(
        repo=repos_pb2.Repo(uid=repo.uid, name="ignored", description="new"),
        update_mask=field_mask_pb2.FieldMask(paths=["description"]),
    )
    out = repos.UpdateRepo(req, timeout=TIMEOUT)
    assert (out.name, out.description) == ("nginx", "new")
    clear = repos_pb2.UpdateRepoRequest(
        repo=repos_pb2.Repo(uid=repo.uid), update_mask=field_mask_pb2.FieldMask(paths=["description"])
    )
    assert repos.UpdateRepo(clear, timeout=TIMEOUT).description == ""
    bad = repos_pb2.UpdateRepoRequest(
        repo=repos_pb2.Repo(uid=repo.uid), update_mask=field_mask_pb2.FieldMask(paths=["colour"])
    )
    err, st = rpc_error(repos.UpdateRepo, bad)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["update_mask"]


# ------------------------------------------------------------------------------------------------- errors


def test_not_found_details(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    missing = f"{org}/{'0' * 16}"
    err, st = rpc_error(repos.GetRepo, repos_pb2.GetRepoRequest(uid=missing))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    info = error_info(st)
    assert info.reason == "NOT_FOUND" and info.domain
    res = unpack(st, error_details_pb2.ResourceInfo)
    assert res.resource_name == missing and res.resource_type
    # Same code, message and details as HTTP.
    body = server.http.get(f"/registry/v2/repos/{missing}").json()
    assert body["code"] == st.code and body["message"] == st.message
    assert body["details"][0]["domain"] == info.domain
    assert body["details"][1]["resourceType"] == res.resource_type


def test_invalid_argument_details(server: Server, org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    err, st = rpc_error(repos.CreateRepo, repos_pb2.CreateRepoRequest(parent=org, repo=repos_pb2.Repo()))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(st).reason == "INVALID_ARGUMENT" and st.message.startswith("Invalid argument")
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["name"]
    body = server.http.post(f"/registry/v2/repos/{org}", json={}).json()
    assert body["message"] == st.message and body["details"][0]["domain"] == error_info(st).domain
    err, _ = rpc_error(repos.GetRepo, repos_pb2.GetRepoRequest(uid="xyz"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    err, _ = rpc_error(repos.ListRepos, repos_pb2.ListReposRequest(page_size=-1))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    err, _ = rpc_error(repos.ListRepos, repos_pb2.ListReposRequest(order_by="createTime"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    err, _ = rpc_error(repos.ListRepos, repos_pb2.ListReposRequest(page_token="forged"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_failed_precondition_details(
    org: str, repos: repos_pb2_grpc.ReposServiceStub, groups: groups_pb2_grpc.GroupsServiceStub
) -> None:
    mk_repo(repos, org, "nginx")
    err, st = rpc_error(groups.DeleteGroup, groups_pb2.DeleteGroupRequest(uid=org))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(st).reason == "FAILED_PRECONDITION" and st.message.startswith("Precondition failed")
    violations = unpack(st, error_details_pb2.PreconditionFailure).violations
    assert [v.type for v in violations] == ["RESOURCE_NOT_EMPTY"]


def test_already_exists(org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    mk_repo(repos, org, "nginx")
    err, st = rpc_error(repos.CreateRepo, repos_pb2.CreateRepoRequest(parent=org, repo=repos_pb2.Repo(name="nginx")))
    assert err.code() == grpc.StatusCode.ALREADY_EXISTS and error_info(st).reason == "ALREADY_EXISTS"


def test_missing_parent(org: str, repos: repos_pb2_grpc.ReposServiceStub) -> None:
    err, st = rpc_error(repos.CreateRepo, repos_pb2.CreateRepoRequest(parent="0" * 40, repo=repos_pb2.Repo(name="x")))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert unpack(st, error_details_pb2.ResourceInfo).resource_name == "0" * 40
