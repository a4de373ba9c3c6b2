"""Deleting a group, across every kind of thing kept under it (the cascades each owner declares and the app
collects: service.cascade), on both backends: a child resource of any kind keeps the group (RESOURCE_NOT_EMPTY
naming it), what belongs to the group goes with it, and the same holds for a role still named somewhere and
an identity's bindings. The server runs with loopback sinks allowed (a subscription is one of the kinds)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator

import httpx
import pytest

from platform_api import app
from tests.helpers import (
    BACKENDS,
    VIEWER,
    Receiver,
    Server,
    assert_error,
    detail,
    mk_group,
    mk_idp,
    mk_repo,
    mk_role,
    ok,
    receiver,
    start_events_server,
    stop_server,
)


@pytest.fixture(scope="module", params=BACKENDS)
def srv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_events_server(request.param, tmp_path_factory.mktemp("cascades-" + request.param))
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def rx() -> Iterator[Receiver]:
    with receiver() as r:
        yield r


def _identity(http: httpx.Client, group: str) -> str:
    body = {"name": "robot", "claimMatch": {"issuer": "https://issuer.example", "subject": secrets.token_hex(6)}}
    return str(ok(http.post(f"/iam/v2/identities/{group}", json=body))["uid"])


CHILDREN: dict[str, Callable[[httpx.Client, str, Receiver], tuple[str, str]]] = {
    # kind -> make one under the group: (its path for DELETE, the word the refusal names)
    "groups": lambda http, g, rx: ("/iam/v2/groups/" + mk_group(http, g)["uid"], "groups"),
    "identities": lambda http, g, rx: ("/iam/v2/identities/" + _identity(http, g), "identities"),
    "roles": lambda http, g, rx: ("/iam/v2/roles/" + mk_role(http, g, "CAP_REPO_LIST"), "roles"),
    "identity providers": lambda http, g, rx: (
        "/iam/v2/identityProviders/" + mk_idp(http, g)["uid"],
        "identity providers",
    ),
    "repos": lambda http, g, rx: ("/registry/v2/repos/" + mk_repo(http, g, "nginx")["uid"], "repos"),
    "subscriptions": lambda http, g, rx: (
        "/events/v2/subscriptions/"
        + ok(http.post(f"/events/v2/subscriptions/{g}", json={"sink": rx.url("/hook")}))["uid"],
        "subscriptions",
    ),
}


def test_the_app_collects_every_kind() -> None:
    """Whichever modules a process imported first, the app's cascades come from its one list of domains."""
    blocks = [c.label for c in app.CASCADES if c.of == "group" and c.blocks]
    assert blocks == ["identities", "roles", "identity providers", "repos", "subscriptions"]
    assert {c.label for c in app.CASCADES if c.of == "group" and not c.blocks} >= {"role bindings", "advisories"}


@pytest.mark.parametrize("kind", list(CHILDREN))
def test_a_child_of_any_kind_keeps_the_group(srv: Server, rx: Receiver, kind: str) -> None:
    http = srv.http
    group = mk_group(http, srv.owner_org)["uid"]
    path, word = CHILDREN[kind](http, group, rx)
    r = http.delete(f"/iam/v2/groups/{group}")
    body = assert_error(r, 400, 9)
    [violation] = detail(body, "PreconditionFailure")["violations"]
    assert violation["type"] == "RESOURCE_NOT_EMPTY" and body["message"].endswith(f"child {word}"), body
    assert ok(http.delete(path)) == {}
    assert ok(http.delete(f"/iam/v2/groups/{group}")) == {}


def test_what_belongs_to_the_group_goes_with_it(srv: Server) -> None:
    http = srv.http
    group = mk_group(http, srv.owner_org)["uid"]
    who = _identity(http, srv.owner_org)
    binding = ok(http.post(f"/iam/v2/roleBindings/{group}", json={"identityUid": who, "roleUid": VIEWER}))["uid"]
    invite = ok(http.post(f"/iam/v2/groupInvites/{group}", json={"roleUid": VIEWER, "ttl": "3600s"}))["uid"]
    ok(http.post(f"/iam/v2/terms/{group}", json={"documentIds": ["tos.v1"]}))
    assert ok(http.delete(f"/iam/v2/groups/{group}")) == {}
    assert_error(http.get(f"/iam/v2/roleBindings/{binding}"), 404, 5)
    assert_error(http.get(f"/iam/v2/groupInvites/{invite}"), 404, 5)
    # The identity (outside the group) stays; its binding in the deleted group is gone.
    assert ok(http.get(f"/iam/v2/identities/{who}"))["uid"] == who


def test_a_role_still_named_is_kept_and_an_identity_takes_its_bindings(srv: Server) -> None:
    http = srv.http
    org = srv.owner_org
    role = mk_role(http, org, "CAP_REPO_LIST")
    who = _identity(http, org)
    binding = ok(http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": who, "roleUid": role}))["uid"]
    body = assert_error(http.delete(f"/iam/v2/roles/{role}"), 400, 9)
    assert "role_bindings" in body["message"], body
    assert ok(http.delete(f"/iam/v2/identities/{who}")) == {}
    assert_error(http.get(f"/iam/v2/roleBindings/{binding}"), 404, 5)
    assert ok(http.delete(f"/iam/v2/roles/{role}")) == {}
