"""The server as the vendor's clients meet it: one port for HTTP and gRPC, issuer and audience its public URL
(README: `platform-api serve --port 8443 --public-url http://localhost:8443`), one per backend for the run, and
the provider's principals: a person signing in with a token of an issuer the operator trusts, and the clients
(a Provider logged in as that person, each test in an organization it created as the provider does)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest

from tests.functional.clients.provider import Provider, login, refuse_to_wait
from tests.helpers import (
    BACKENDS,
    OWNER,
    Server,
    Upstream,
    cli,
    free_port,
    new_database,
    ok,
    stop_server,
    unique,
    wait_ready,
)


def start_console(backend: str, tmp: Path, *extra: str) -> Server:
    """`platform-api serve --port <p> --public-url http://localhost:<p>` (the HTTP and gRPC listeners behind that
    port move to free loopback ports), bootstrapped; its clients are the bootstrap owner's, through <p>."""
    database_url = new_database(backend, tmp)
    port = free_port()
    public = f"http://localhost:{port}"
    log_path = tmp / f"console-{port}.log"
    cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--public-url", public, "--audience", public, "--database", database_url, "--no-dispatcher",
           *extra]  # fmt: skip
    with open(log_path, "wb") as log:
        env = {**os.environ, "PLATFORM_API_LOG_LEVEL": "warning"}
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    target = f"localhost:{port}"
    wait_ready(proc, public, target, log_path)
    boot = json.loads(cli(database_url, "bootstrap"))
    http = httpx.Client(base_url=public, timeout=30, headers={"authorization": f"Bearer {boot['token']}"})
    s = Server(backend, public, target, database_url, http, grpc.insecure_channel(target), proc, log_path)
    s.channel.close()  # a placeholder until the owner's token is known
    s.token, s.owner, s.owner_org = boot["token"], boot["identity"], boot["organization"]
    s.channel = s.grpc_channel(s.token)
    return s


@pytest.fixture(scope="session")
def people() -> Iterator[Upstream]:
    """The issuer of people's logins, trusted by the server (`--trusted-issuer`)."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="session")
def workloads() -> Iterator[Upstream]:
    """A CI system's issuer (not trusted): its tokens become an identity only through that identity's claimMatch."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="session")
def _consoles() -> Iterator[dict[str, Server]]:
    started: dict[str, Server] = {}
    yield started
    for s in started.values():
        stop_server(s)


@pytest.fixture(scope="module", params=BACKENDS)
def console(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _consoles: dict[str, Server],
    people: Upstream,
) -> Server:
    backend = request.param
    if backend not in _consoles:
        _consoles[backend] = start_console(backend, tmp_path_factory.mktemp(backend), "--trusted-issuer",
                                           people.issuer, "--insecure-allow-loopback")  # fmt: skip
    return _consoles[backend]


@pytest.fixture(scope="module")
def person(console: Server, people: Upstream) -> str:
    """The subject of a person at `people` who may create organizations: the bootstrap owner made the person's
    user identity (the uid lookupIdentity announces before the first login) an owner of its organization, so the
    person holds groups.create somewhere, which creating an organization needs here."""
    subject = "person-" + secrets.token_hex(4)
    user = ok(console.http.get("/iam/v2/identities:lookupIdentity",
                               params={"issuer": people.issuer, "subject": subject}))["uid"]  # fmt: skip
    ok(console.http.post(f"/iam/v2/roleBindings/{console.owner_org}", json={"identityUid": user, "roleUid": OWNER}))
    return subject


@pytest.fixture
def tf(console: Server, people: Upstream, person: str) -> Iterator[Provider]:
    """The provider (v0.4.1), signed in as `person` by an untargeted exchange."""
    p = login(console, people, person)
    yield p
    p.close()


@pytest.fixture
def org(tf: Provider) -> str:
    """An organization of this test's own, created as `chainguard_group` without `parent_id` creates one (facts
    3.1): the server's state is ready at once, so the propagation loop ends in its first round."""
    made, rounds = tf.create_organization(unique("tf-org"), sleep=refuse_to_wait)
    assert rounds == 1
    return str(made.uid)
