"""`rm` of many resources by path resolves each parent once and lists its children once, instead of resolving
every path from its organization down (10 repos by path cost 40 calls: organization, group, repo, delete)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx
import pytest

from platform_api.ctl import resolve
from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, unique
from tests.helpers.counting import counted_calls
from tests.helpers.run_cli import IN_PROCESS

pytestmark = pytest.mark.skipif(not IN_PROCESS, reason="counts the client's calls in this process")


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    return Ctl(server, tmp_path, server.token, "grpc" if server.backend == "sqlite" else "http")


def test_ten_repos_by_path_cost_one_list_per_parent(
    ctl: Ctl, http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    org_name = unique("org")
    org = http.post("/iam/v2/groups/", json={"name": org_name}).json()["uid"]
    team = http.post(f"/iam/v2/groups/{org}", json={"name": "team"}).json()["uid"]
    uids = [http.post(f"/registry/v2/repos/{team}", json={"name": f"r{i}"}).json()["uid"] for i in range(10)]
    other = http.post(f"/registry/v2/repos/{org}", json={"name": "r0"}).json()["uid"]  # same name, other parent
    kept = http.post(f"/registry/v2/repos/{team}", json={"name": "kept"}).json()["uid"]
    with counted_calls(monkeypatch) as calls:
        r = ctl("registry", "repos", "rm", "--yes", *[f"{org_name}/team/r{i}" for i in range(10)], f"{org_name}/r0")
    assert r.code == 0, r.err
    assert [line.split()[-1] for line in r.out.splitlines()] == [*uids, other]
    # The organization and the group once each, one listing per parent, then the deletes.
    assert calls == Counter({"ListGroups": 2, "ListRepos": 2, "DeleteRepo": 11}), calls
    assert http.get(f"/registry/v2/repos/{kept}").status_code == 200
    assert all(http.get(f"/registry/v2/repos/{u}").status_code == 404 for u in [*uids, other])


def test_a_missing_one_deletes_none(ctl: Ctl, http: httpx.Client) -> None:
    org_name = unique("org")
    org = http.post("/iam/v2/groups/", json={"name": org_name}).json()["uid"]
    repo = http.post(f"/registry/v2/repos/{org}", json={"name": "here"}).json()["uid"]
    r = ctl("registry", "repos", "rm", "--yes", f"{org_name}/here", f"{org_name}/gone")
    assert r.code == 5 and "no repo named" in r.err and f"{org_name}/gone" in r.err, r
    assert http.get(f"/registry/v2/repos/{repo}").status_code == 200


def test_a_long_listing_is_cut_and_the_rest_looked_up(ctl: Ctl, http: httpx.Client,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    # Pages of 2: three names are read for at most three pages, then each name not reached is looked up alone.
    monkeypatch.setattr(resolve, "MAX_PAGE", 2)
    org_name = unique("org")
    org = http.post("/iam/v2/groups/", json={"name": org_name}).json()["uid"]
    uids = {f"r{i}": http.post(f"/registry/v2/repos/{org}", json={"name": f"r{i}"}).json()["uid"] for i in range(10)}
    names = ["r0", "r5", "r9"]
    with counted_calls(monkeypatch) as calls:
        r = ctl("registry", "repos", "rm", "--yes", *[f"{org_name}/{n}" for n in names])
    assert r.code == 0, r.err
    assert [line.split()[-1] for line in r.out.splitlines()] == [uids[n] for n in names]
    assert calls["ListGroups"] == 1 and calls["ListRepos"] <= 3 + 3 and calls["DeleteRepo"] == 3, calls
