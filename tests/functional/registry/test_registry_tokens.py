"""The token service of a real Distribution registry (`docker-registry`, Debian's 2.8 package) started on
loopback with the config `platform-api registry-config` writes; `skopeo` is the client. Rights come from our
roles: push needs registry.push's capabilities at the repo (or, for a new repo, its group), pull those of
registry.pull; anything else is withheld and the registry itself refuses."""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography import x509

from tests.helpers import Server, mk_group, mk_org, mk_repo
from tests.helpers.distribution import layout, needs_distribution, pull, push, registry_for

pytestmark = needs_distribution
SERVICE = "platform-api-registry"


@pytest.fixture(scope="module")
def registry(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with registry_for(server, tmp_path_factory.mktemp("registry")) as where:
        yield where


def _pull(registry: str, path: str, token: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return pull(registry, path, token, tmp_path / f"pulled-{time.monotonic_ns()}")


def _name(http: httpx.Client, uid: str) -> str:
    return str(http.get(f"/iam/v2/groups/{uid}").json()["name"])


def test_push_and_pull_follow_the_roles(server: Server, registry: str, tmp_path: Path) -> None:
    org = mk_org(server.http)
    team = mk_group(server.http, org, "team")["uid"]
    mk_repo(server.http, team, "app")
    path = f"{_name(server.http, org)}/team/app"
    source = layout(tmp_path / "layout")
    _, pusher = server.identity_with_role(team, "registry.push")
    _, puller = server.identity_with_role(team, "registry.pull")
    other_org = mk_org(server.http)
    _, stranger = server.identity_with_role(other_org, "owner")

    pushed = push(source, registry, path, pusher)
    assert pushed.returncode == 0, pushed.stderr
    assert _pull(registry, path, puller, tmp_path).returncode == 0
    refused = push(source, registry, path, puller)  # the registry refuses: we withheld push
    assert refused.returncode != 0 and ("denied" in refused.stderr or "unauthorized" in refused.stderr.lower())
    assert _pull(registry, path, stranger, tmp_path).returncode != 0
    assert push(source, registry, path, stranger).returncode != 0


def test_a_push_to_a_new_repo_needs_push_rights_at_its_group(server: Server, registry: str, tmp_path: Path) -> None:
    org = mk_org(server.http)
    _, pusher = server.identity_with_role(org, "registry.push")
    _, puller = server.identity_with_role(org, "registry.pull")
    source = layout(tmp_path / "layout")
    assert push(source, registry, f"{_name(server.http, org)}/fresh", puller).returncode != 0
    assert push(source, registry, f"{_name(server.http, org)}/fresh", pusher).returncode == 0
    # A group that does not exist is not created by a push.
    assert push(source, registry, f"{_name(server.http, org)}/nogroup/fresh", pusher).returncode != 0


def _ask(server: Server, token: str | None, *scopes: str, service: str = SERVICE) -> httpx.Response:
    headers = {} if token is None else {"authorization": "Basic " + base64.b64encode(f"_t:{token}".encode()).decode()}
    return httpx.get(server.base_url + "/registry/token", params={"service": service, "scope": list(scopes)},
                     headers=headers)  # fmt: skip


def test_the_token_answer(server: Server) -> None:
    org = mk_org(server.http)
    mk_repo(server.http, org, "app")
    name = _name(server.http, org)
    _, puller = server.identity_with_role(org, "registry.pull")
    r = _ask(server, puller, f"repository:{name}/app:pull,push", f"repository:{name}/missing:pull")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token"] == body["access_token"] and body["expires_in"] == 300
    header = jwt.get_unverified_header(body["token"])
    leaf = x509.load_der_x509_certificate(base64.b64decode(header["x5c"][0]))
    claims = jwt.decode(body["token"], leaf.public_key(), algorithms=["RS256"], audience=SERVICE)  # type: ignore[arg-type]
    assert claims["access"] == [{"type": "repository", "name": f"{name}/app", "actions": ["pull"]}]
    assert claims["exp"] - claims["iat"] == 300
    # Bearer works as Basic does.
    params = {"service": SERVICE, "scope": f"repository:{name}/app:pull"}
    r = httpx.get(server.base_url + "/registry/token", params=params, headers={"authorization": f"Bearer {puller}"})
    assert jwt.decode(r.json()["token"], options={"verify_signature": False})["access"][0]["actions"] == ["pull"]


def test_refusals(server: Server) -> None:
    org = mk_org(server.http)
    name = _name(server.http, org)
    _, puller = server.identity_with_role(org, "registry.pull")
    r = _ask(server, None, f"repository:{name}/app:pull")
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic realm=")
    assert r.json()["code"] == 16
    r = _ask(server, "not-a-token", f"repository:{name}/app:pull")
    assert r.status_code == 401
    r = _ask(server, puller, f"repository:{name}/app:pull", service="another-registry")
    assert r.status_code == 400 and r.json()["details"][1]["fieldViolations"][0]["field"] == "service"
    for bad in (
        f"repository:{name}/App:pull",
        f"repository:{name}/app:steal",
        f"repository:{name}/app:",
        "repository::pull",
    ):
        r = _ask(server, puller, bad)
        assert r.status_code == 400, (bad, r.text)
    r = _ask(server, puller, *[f"repository:{name}/r{i}:pull" for i in range(17)])
    assert r.status_code == 400
    # Other resource types are granted nothing (the catalog is not ours to list).
    r = _ask(server, puller, "registry:catalog:*")
    assert r.status_code == 200
    assert jwt.decode(r.json()["token"], options={"verify_signature": False})["access"] == []


def test_a_key_rotation_needs_no_new_bundle(server: Server, registry: str, tmp_path: Path) -> None:
    """Registry tokens carry a certificate for the signing key, issued by our registry CA (the bundle): after
    `keys rotate` the registry accepts tokens signed by the new key without a new config."""
    org = mk_org(server.http)
    rotated = json.loads(server.cli("keys", "rotate"))
    new_kid = rotated["signing"]
    _, pusher = server.identity_with_role(org, "registry.push")  # minted with the new key: the server loads it
    r = _ask(server, pusher, f"repository:{_name(server.http, org)}/app:push,pull")
    leaf = x509.load_der_x509_certificate(base64.b64decode(jwt.get_unverified_header(r.json()["token"])["x5c"][0]))
    assert leaf.subject.rfc4514_string() == f"CN={new_kid}"
    assert push(layout(tmp_path / "layout"), registry, f"{_name(server.http, org)}/app", pusher).returncode == 0
