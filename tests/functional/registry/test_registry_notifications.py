"""Pushes and pulls through a real Distribution registry reach the API: its notifications (sent to our
`/registry/notifications` by the config `registry-config` writes) become repos, tags, image facts and events,
read back from the registry itself."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc, tags_pb2, tags_pb2_grpc
from platform_api.registry.dataplane import notifications
from platform_api.service import runtime
from tests.helpers import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    Receiver,
    Server,
    Upstream,
    mk_group,
    mk_org,
    mk_repo,
    run_db,
    stop_server,
)
from tests.helpers.distribution import layout, manifest_of, needs_distribution, pull, push, registry_for, skopeo
from tests.helpers.registry import image_architectures, image_size
from tests.helpers.webhooks import start_events_server

pytestmark = needs_distribution
PREFIX = "local.platform-api."


@pytest.fixture(scope="module", params=BACKENDS)
def es(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_events_server(request.param, tmp_path_factory.mktemp("registry-events-" + request.param))
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def registry_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("registry")


@pytest.fixture(scope="module")
def registry(es: Server, registry_dir: Path) -> Iterator[str]:
    with registry_for(es, registry_dir) as where:
        yield where


def _eventually(check: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("not reached in time")
        time.sleep(0.1)


def _tags(http: httpx.Client, repo: str) -> dict[str, str]:
    r = http.get("/registry/v2/tags", params={"uidp.children_of": repo})
    assert r.status_code == 200, r.text
    return {t["name"]: t["digest"] for t in r.json().get("tags", [])}


def _repo(http: httpx.Client, group: str, name: str) -> str | None:
    r = http.get("/registry/v2/repos", params={"uidp.children_of": group, "name": name})
    found = r.json().get("repos", [])
    return found[0]["uid"] if found else None


def _pushed(registry: str, path: str, token: str) -> tuple[str, int]:
    """The digest the registry holds for `path:latest`, and that image's size (config + layers)."""
    digest, doc = manifest_of(registry, path, token)
    config, layers = doc["config"], doc["layers"]
    assert isinstance(config, dict) and isinstance(layers, list)
    return digest, int(config["size"]) + sum(int(layer["size"]) for layer in layers)


def _org_path(http: httpx.Client) -> tuple[str, str]:
    org = mk_org(http)
    return org, http.get(f"/iam/v2/groups/{org}").json()["name"]


def test_a_push_fills_the_repo_the_tag_and_the_image_facts(es: Server, registry: str, tmp_path: Path) -> None:
    org, name = _org_path(es.http)
    _, pusher = es.identity_with_role(org, "registry.push")
    source = layout(tmp_path / "a", "arm64")
    assert push(source, registry, f"{name}/app", pusher).returncode == 0
    repo = _eventually(lambda: _repo(es.http, org, "app"))
    digest, expected_size = _pushed(registry, f"{name}/app", pusher)
    assert _eventually(lambda: _tags(es.http, repo)) == {"latest": digest}
    archs = image_architectures(es.http, repo, digest)
    assert archs.status_code == 200 and archs.json() == {"architectures": ["arm64"]}, archs.text
    size = image_size(es.http, repo, digest)
    assert size.status_code == 200 and int(size.json()["size"]) == expected_size, size.text
    stub = tags_pb2_grpc.TagsServiceStub(es.channel)
    listed = stub.ListTags(tags_pb2.ListTagsRequest(uidp=uidp_pb2.UIDPFilter(children_of=repo)))
    assert [(t.name, t.digest) for t in listed.tags] == [("latest", digest)]


def test_a_second_push_moves_the_tag_and_a_delete_removes_it(es: Server, registry: str, tmp_path: Path) -> None:
    org, name = _org_path(es.http)
    _, pusher = es.identity_with_role(org, "registry.push")
    first, second = layout(tmp_path / "a"), layout(tmp_path / "b")
    assert push(first, registry, f"{name}/moving", pusher).returncode == 0
    repo = _eventually(lambda: _repo(es.http, org, "moving"))
    one = _pushed(registry, f"{name}/moving", pusher)[0]
    _eventually(lambda: _tags(es.http, repo) == {"latest": one})
    assert push(second, registry, f"{name}/moving", pusher).returncode == 0
    two = _pushed(registry, f"{name}/moving", pusher)[0]
    assert two != one
    _eventually(lambda: _tags(es.http, repo) == {"latest": two})
    gone = skopeo("delete", "--tls-verify=false", "--creds", f"_token:{pusher}",
                  f"docker://{registry}/{name}/moving@{two}")  # fmt: skip
    assert gone.returncode == 0, gone.stderr
    _eventually(lambda: _tags(es.http, repo) == {})


def test_subscriptions_receive_push_and_pull_events(es: Server, registry: str, rx: Receiver, tmp_path: Path) -> None:
    org, name = _org_path(es.http)
    team = mk_group(es.http, org, "team")["uid"]
    mk_repo(es.http, team, "web")
    hook = "/hook/" + org[:8]
    assert es.http.post(f"/events/v2/subscriptions/{org}", json={"sink": rx.url(hook)}).status_code == 200
    pusher_uid, pusher = es.identity_with_role(team, "registry.push")
    source = layout(tmp_path / "a")
    assert push(source, registry, f"{name}/team/web", pusher).returncode == 0
    assert pull(registry, f"{name}/team/web", pusher, tmp_path / "pulled").returncode == 0
    digest = _pushed(registry, f"{name}/team/web", pusher)[0]
    _eventually(lambda: rx.at(hook) and any(r.ce("type") == PREFIX + "registry.pull.v1" for r in rx.at(hook)))
    pushed = [r for r in rx.at(hook) if r.ce("type") == PREFIX + "registry.push.v1"]
    assert len(pushed) == 1
    body = pushed[0].json
    repo = _repo(es.http, team, "web")
    assert body["actor"]["subject"] == pusher_uid
    assert body["body"]["repository"] == f"{name}/team/web" and body["body"]["repo_id"] == repo
    assert body["body"]["tag"] == "latest" and body["body"]["digest"] == digest
    assert pushed[0].ce("subject") == repo and pushed[0].ce("group") == org
    pulled = [r.json["body"] for r in rx.at(hook) if r.ce("type") == PREFIX + "registry.pull.v1"]
    assert {p["type"] for p in pulled} >= {"manifest"} and all(p["repo_id"] == repo for p in pulled)
    assert any(r.ce("type") == PREFIX + "api.platform.registry.tag.created.v1" for r in rx.at(hook))


def test_a_push_gives_no_pull_event_and_a_pull_gives_one(
    es: Server, registry: str, rx: Receiver, tmp_path: Path
) -> None:
    """The server reads a pushed image back from the registry (HEAD and GET of the manifest, GET of the config
    blob): those reads are its own, not a user's pull, and subscribers never see them."""
    org, name = _org_path(es.http)
    hook = "/hook/p" + org[:8]
    typed = {"sink": rx.url(hook), "types": [PREFIX + "registry.push.v1", PREFIX + "registry.pull.v1"]}
    assert es.http.post(f"/events/v2/subscriptions/{org}", json=typed).status_code == 200
    puller_uid, puller = es.identity_with_role(org, "registry.push")
    assert push(layout(tmp_path / "a"), registry, f"{name}/quiet", puller).returncode == 0
    rx.wait(hook, 1)  # the push
    time.sleep(1.5)  # the read-back's notifications arrive after the push's
    types = [r.ce("type") for r in rx.at(hook)]
    assert PREFIX + "registry.push.v1" in types
    assert PREFIX + "registry.pull.v1" not in types, [r.json["body"] for r in rx.at(hook)]
    assert pull(registry, f"{name}/quiet", puller, tmp_path / "pulled").returncode == 0
    _eventually(lambda: any(r.ce("type") == PREFIX + "registry.pull.v1" for r in rx.at(hook)))
    time.sleep(1.0)
    pulled = [r.json for r in rx.at(hook) if r.ce("type") == PREFIX + "registry.pull.v1"]
    assert pulled and all(p["actor"]["subject"] == puller_uid for p in pulled), pulled
    assert all("python-httpx" not in p["body"]["user_agent"] for p in pulled), pulled


def _secret(es: Server) -> str:
    return run_db(es, lambda db: runtime.service_secret(db, notifications.SECRET)).hex()


def _envelope(repository: str, digest: str, event_id: str) -> dict[str, Any]:
    return {"events": [{
        "id": event_id, "timestamp": "2026-11-28T00:00:00Z", "action": "push",
        "target": {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest,
                   "repository": repository, "tag": "latest"},
        "request": {"addr": "127.0.0.1:1", "method": "PUT", "useragent": "test"},
        "actor": {"name": ""}, "source": {"addr": "registry:5000", "instanceID": "i-1"},
    }]}  # fmt: skip


def test_redelivered_notifications_change_nothing_and_a_bad_secret_is_refused(
    es: Server, registry: str, rx: Receiver, tmp_path: Path
) -> None:
    org, name = _org_path(es.http)
    hook = "/hook/r" + org[:8]
    assert es.http.post(f"/events/v2/subscriptions/{org}", json={"sink": rx.url(hook)}).status_code == 200
    _, pusher = es.identity_with_role(org, "registry.push")
    source = layout(tmp_path / "a")
    assert push(source, registry, f"{name}/again", pusher).returncode == 0
    repo = _eventually(lambda: _repo(es.http, org, "again"))
    _eventually(lambda: _tags(es.http, repo))
    rx.wait(hook, 3)  # repo created, tag created, push
    url = es.base_url + "/registry/notifications"
    headers = {"authorization": "Bearer " + _secret(es), "content-type": "application/json"}
    digest = _pushed(registry, f"{name}/again", pusher)[0]
    envelope = _envelope(f"{name}/again", digest, "redelivered-1")
    for _ in range(3):
        r = httpx.post(url, json=envelope, headers=headers)
        assert r.status_code == 200 and r.json() == {"pushed": 1}, r.text
    time.sleep(1.5)
    pushes = [r for r in rx.at(hook) if r.ce("type") == PREFIX + "registry.push.v1"]
    assert len(pushes) == 2  # the registry's own, and one for the three deliveries of ours
    assert len([r for r in rx.at(hook) if "tag." in r.ce("type")]) == 1  # the tag did not change again
    # The envelope's digest is not believed: the tag stays where the registry has it.
    forged = _envelope(f"{name}/again", "sha256:" + "f" * 64, "forged-1")
    assert httpx.post(url, json=forged, headers=headers).status_code == 200
    assert _tags(es.http, repo) == {"latest": digest}
    # Names and digests that are not the registry's grammar never reach a URL of ours or an event.
    for i, (repository, odd_digest) in enumerate(
        ((f"{name}/../again", digest), (f"{name}/again?x=1", digest), (f"{name}/again", "sha256:zz"))
    ):
        odd = httpx.post(url, json=_envelope(repository, odd_digest, f"odd-{i}"), headers=headers)
        assert odd.status_code == 200 and odd.json() == {"refused": 1}, odd.text
    bad = httpx.post(url, json=envelope, headers={"authorization": "Bearer " + "0" * 64})
    assert bad.status_code == 401 and bad.json()["code"] == 16
    assert httpx.post(url, json=envelope).status_code == 401
    assert httpx.post(url, content=b"not json", headers=headers).status_code == 400


def test_the_registry_log_never_shows_the_notification_secret(
    es: Server, registry: str, registry_dir: Path, tmp_path: Path
) -> None:
    """Distribution prints its endpoints' headers at `info`: the config we write logs at `warn`."""
    org, name = _org_path(es.http)
    _, pusher = es.identity_with_role(org, "registry.push")
    assert push(layout(tmp_path / "a"), registry, f"{name}/logged", pusher).returncode == 0
    repo = _eventually(lambda: _repo(es.http, org, "logged"))
    _eventually(lambda: _tags(es.http, repo))
    logged = (registry_dir / "registry.log").read_text()
    assert _secret(es) not in logged and "configuring endpoint" not in logged, logged[:2000]


def test_grpc_sees_the_pushed_tag(es: Server, registry: str, tmp_path: Path) -> None:
    org, name = _org_path(es.http)
    _, pusher = es.identity_with_role(org, "registry.push")
    source = layout(tmp_path / "a")
    assert push(source, registry, f"{name}/viagrpc", pusher).returncode == 0
    repo = _eventually(lambda: _repo(es.http, org, "viagrpc"))
    _eventually(lambda: _tags(es.http, repo))
    got = repos_pb2_grpc.ReposServiceStub(es.channel).GetRepo(repos_pb2.GetRepoRequest(uid=repo))
    assert got.name == "viagrpc"


def test_a_token_narrowed_by_the_exchange_is_narrowed_at_the_registry(es: Server, upstream: Upstream) -> None:
    """The token exchange's `scopes` and `cap` narrow what the registry's token grants, as they narrow API calls."""
    org, name = _org_path(es.http)
    team, other = mk_group(es.http, org, "team")["uid"], mk_group(es.http, org, "other")["uid"]
    mk_repo(es.http, team, "app")
    sub = secrets.token_hex(6)
    match = {"issuer": upstream.issuer, "subject": sub}
    made = es.http.post(f"/iam/v2/identities/{org}", json={"name": "ci-" + sub, "claimMatch": match})
    assert made.status_code == 200, made.text
    uid = made.json()["uid"]
    bound = es.http.post(
        f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS["registry.push"]}
    )
    assert bound.status_code == 200, bound.text

    def granted(**narrowing: Any) -> list[str]:
        r = httpx.get(es.base_url + "/sts/exchange", params={"identity": uid, **narrowing},
                      headers={"authorization": "Bearer " + upstream.token(sub, "localhost")})  # fmt: skip
        assert r.status_code == 200, r.text
        asked = {"service": "platform-api-registry", "scope": f"repository:{name}/team/app:pull,push"}
        t = httpx.get(
            es.base_url + "/registry/token", params=asked, headers={"authorization": "Bearer " + r.json()["token"]}
        )
        access = jwt.decode(t.json()["token"], options={"verify_signature": False})["access"]
        return [a for entry in access for a in entry["actions"]]

    assert granted() == ["pull", "push"]
    assert granted(scopes=team) == ["pull", "push"]
    assert granted(scopes=other) == []
    pull_caps = ["repo.list", "manifest.list", "tag.list", "repo.blobs.get", "groups.list", "record_signatures.list",
                 "sboms.list", "vuln_reports.list", "manifest.metadata.list", "referrers.list"]  # fmt: skip
    assert granted(cap=pull_caps) == ["pull"]
    assert granted(cap=["repo.list"]) == []
