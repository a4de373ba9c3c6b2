"""The Python client against a real server, over both transports: CRUD, paging, typed errors carrying the
google.rpc details, and the guide's example (docs/python-client.md) run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from platform_api.client import (
    AlreadyExists,
    ApiError,
    Client,
    Group,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Repo,
    Tag,
    UIDPFilter,
    Unauthenticated,
    Unavailable,
)
from tests.helpers import Server, free_port, unique

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "python-client.md"
DIGEST = "sha256:" + "a" * 64


@pytest.fixture(params=["grpc", "http"])
def client(request: pytest.FixtureRequest, server: Server) -> Iterator[Client]:
    with Client(server.base_url, grpc=server.grpc_target, transport=request.param, token=server.token,
                use_login_cache=False) as c:  # fmt: skip
        yield c


@pytest.fixture
def org(client: Client) -> str:
    return str(client.iam.create_group("", Group(name=unique("org"))).uid)


def test_repo_and_tag_crud(client: Client, org: str) -> None:
    repo = client.registry.create_repo(org, Repo(name="nginx", description="web server"))
    assert isinstance(repo, Repo) and repo.uid.startswith(org + "/") and repo.description == "web server"
    assert client.registry.get_repo(repo.uid) == repo
    # Only the fields set are changed (the mask is inferred from the record by both transports).
    updated = client.registry.update_repo(Repo(uid=repo.uid, description="proxy"))
    assert (updated.name, updated.description) == ("nginx", "proxy")
    tag = client.registry.create_tag(repo.uid, Tag(name="latest", digest=DIGEST))
    assert [t.uid for t in client.registry.list_tags(uidp=UIDPFilter(children_of=repo.uid))] == [tag.uid]
    assert [r.name for r in client.registry.list_repos(uidp=UIDPFilter(descendants_of=org), name="nginx")] == ["nginx"]
    client.registry.delete_tag(tag.uid)
    client.registry.delete_repo(repo.uid)
    with pytest.raises(NotFound):
        client.registry.get_repo(repo.uid)


def test_the_request_record_or_its_fields(client: Client, org: str) -> None:
    from platform_api.gen.records.registry_v2 import CreateRepoRequest

    a = client.registry.create_repo(CreateRepoRequest(parent=org, repo=Repo(name="a")))
    b = client.registry.create_repo(parent=org, repo={"name": "b"})
    assert (a.name, b.name) == ("a", "b")
    with pytest.raises(TypeError, match="no field 'bogus'"):
        client.registry.create_repo(org, bogus=1)
    with pytest.raises(TypeError):
        client.registry.create_repo(org, {"name": 5})  # a wrong type is refused before anything is sent


def test_lists_follow_next_page_token(client: Client, org: str) -> None:
    names = [f"r{i}" for i in range(7)]
    for n in names:
        client.registry.create_repo(org, Repo(name=n))
    listing = client.registry.list_repos(uidp=UIDPFilter(descendants_of=org), page_size=3, order_by="name")
    assert [r.name for r in listing] == names
    pages = list(listing.pages())
    assert [len(p.repos) for p in pages] == [3, 3, 1] and pages[-1].next_page_token == ""


def test_typed_errors_carry_the_details(client: Client, server: Server, org: str) -> None:
    with pytest.raises(NotFound) as nf:
        client.registry.get_repo(org + "/0123456789abcdef")
    assert nf.value.reason == "NOT_FOUND" and nf.value.domain.startswith("registry.")
    assert nf.value.code == 5 and isinstance(nf.value, ApiError)

    with pytest.raises(InvalidArgument) as bad:
        client.registry.create_repo(org, Repo(name="Not A Valid Name!"))
    assert [v.field for v in bad.value.field_violations] == ["name"]

    client.registry.create_repo(org, Repo(name="twice"))
    with pytest.raises(AlreadyExists):
        client.registry.create_repo(org, Repo(name="twice"))

    _, viewer = server.identity_with_role(org, "viewer")
    with Client(server.base_url, grpc=server.grpc_target, transport=client.transport_name, token=viewer,
                use_login_cache=False) as as_viewer:  # fmt: skip
        assert [r.name for r in as_viewer.registry.list_repos(uidp=UIDPFilter(descendants_of=org))] == ["twice"]
        with pytest.raises(PermissionDenied) as denied:
            as_viewer.registry.create_repo(org, Repo(name="nope"))
    assert denied.value.reason

    stranger = Client(server.base_url, grpc=server.grpc_target, transport=client.transport_name,
                      token="not-a-token", use_login_cache=False, retries=0)  # fmt: skip
    with stranger, pytest.raises(Unauthenticated):
        stranger.registry.get_repo(org)


def test_unavailable_is_retried_with_backoff_then_raised() -> None:
    port = free_port()  # nothing listens there
    slept: list[float] = []
    for transport in ("grpc", "http"):
        slept.clear()
        c = Client(f"http://127.0.0.1:{port}", grpc=f"127.0.0.1:{port}", transport=transport, retries=3,
                   timeout=2, sleep=slept.append, use_login_cache=False)  # fmt: skip
        with c, pytest.raises(Unavailable):
            c.ping.ping()
        assert len(slept) == 3 and all(0 <= s <= 5 for s in slept), slept


def _guide_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert blocks, "docs/python-client.md: no python block"
    return str(blocks[0])


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_the_guide_example_runs_as_written(server: Server, transport: str, tmp_path: Path) -> None:
    client = Client(server.base_url, token=server.token, transport="http", use_login_cache=False)
    org = client.iam.create_group("", Group(name=unique("org"))).uid
    env = {**os.environ, "PLATFORM_API_URL": server.base_url, "PLATFORM_API_TOKEN": server.token, "ORG": org,
           "XDG_CONFIG_HOME": str(tmp_path), "PLATFORM_API_TRANSPORT": transport}  # fmt: skip
    env.pop("PLATFORM_API_GRPC", None)  # found from the URL (/.well-known/platform-api), as a reader's would be
    r = subprocess.run([sys.executable, "-c", _guide_example()], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["nginx", "latest", DIGEST]
    assert [x.name for x in client.registry.list_repos(uidp=UIDPFilter(children_of=org))] == ["nginx"]
    client.close()
