"""`platformctl registry images architectures|size|history` against an imported image, and `platformctl iam
join` for a user whose verified e-mail domain an organization verified (and one whose is not)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, Upstream, mk_org, start_server, stop_server
from tests.helpers.registry import image


@pytest.fixture
def ctl(server: Server, tmp_path: Path) -> Ctl:
    return Ctl(server, tmp_path, server.token, "grpc" if server.backend == "sqlite" else "http")


def test_image_facts_by_tag_and_by_digest(ctl: Ctl, server: Server, http: httpx.Client, org: str,
                                          tmp_path: Path) -> None:  # fmt: skip
    repo, name, digest = image(server, http, org, tmp_path, ("latest",))
    org_name = http.get(f"/iam/v2/groups/{org}").json()["name"]
    by_tag, by_digest = f"{org_name}/{name}:latest", f"{repo}@{digest}"
    for ref in (by_tag, by_digest):
        assert ctl.json("registry", "images", "architectures", ref) == {"architectures": ["amd64"]}
        size = ctl.json("registry", "images", "size", ref)
        assert size["architecture"] == "amd64" and int(size["size"]) > 1000
    table = ctl("registry", "images", "size", by_tag)
    assert table.code == 0 and "amd64" in table.out and "KiB" in table.out and size["size"] in table.out, table
    r = ctl("registry", "images", "size", by_tag, "--architecture", "arm64")
    assert r.code == 5, r.err
    assert ctl("registry", "images", "architectures", f"{org_name}/{name}").code == 2  # neither tag nor digest
    r = ctl("registry", "images", "architectures", f"{org_name}/{name}:nope")
    assert r.code == 5 and "no tag 'nope'" in r.err, r.err


def test_a_tags_history(ctl: Ctl, http: httpx.Client, org: str) -> None:
    repo = http.post(f"/registry/v2/repos/{org}", json={"name": "hist"}).json()["uid"]
    first, second = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    tag = http.post(f"/registry/v2/tags/{repo}", json={"name": "latest", "digest": first}).json()
    moved = http.put(f"/registry/v1/tags/{tag['uid']}", json={"name": "latest", "digest": second})  # v1 UpdateTag
    assert moved.status_code == 200, moved.text
    got = ctl.json("registry", "images", "history", f"{repo}:latest")
    assert [h["digest"] for h in got] == [first, second]
    table = ctl("registry", "images", "history", f"{repo}:latest")
    assert table.code == 0 and table.out.splitlines()[0].split() == ["UPDATED", "DIGEST"], table
    assert ctl("registry", "images", "history", f"{repo}:latest", "--since", "soon").code == 2


# ------------------------------------------------------------------------------------------------- joining


@pytest.fixture(scope="module")
def joining_server(tmp_path_factory: pytest.TempPathFactory, upstream: Upstream) -> Iterator[Server]:
    # Loopback allowed: the upstream issuer (its JWKS) listens there.
    s = start_server(
        "sqlite", tmp_path_factory.mktemp("join"), "--insecure-allow-loopback", "--trusted-issuer", upstream.issuer
    )
    yield s
    stop_server(s)


def _user(srv: Server, upstream: Upstream, email: str) -> str:
    """Our token for a user of the trusted issuer with this verified e-mail."""
    upstream_token = upstream.token("user-" + secrets.token_hex(4), "localhost", email=email, email_verified=True)
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        r = c.get("/sts/exchange", headers={"authorization": f"Bearer {upstream_token}"})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_join_the_organization_of_your_domain(joining_server: Server, upstream: Upstream, tmp_path: Path,
                                              transport: str) -> None:  # fmt: skip
    srv = joining_server
    dom = f"corp-{secrets.token_hex(4)}.example"
    org = mk_org(srv.http)
    assert json.loads(srv.cli("domains", "verify", "--group", org, "--domain", dom))["state"] == "VERIFIED"
    ctl = Ctl(srv, tmp_path, _user(srv, upstream, f"jane@{dom}"), transport)
    checked = ctl.json("iam", "join", "--check")
    assert checked["group"]["uid"] == org and checked["requested"] is False
    r = ctl("iam", "join")
    assert r.code == 0 and "asked to join" in r.out and org in r.out, r
    again = ctl("iam", "join")  # the cool-down: the server's RESOURCE_EXHAUSTED, its exit code
    assert again.code == 8 and "requested recently" in again.err, again

    stranger = Ctl(srv, tmp_path / "stranger", _user(srv, upstream, f"joe@other-{secrets.token_hex(3)}.example"),
                   transport)  # fmt: skip
    r = stranger("iam", "join")
    assert r.code == 5 and "no organization takes your e-mail's domain" in r.err and "invite" in r.err, r
