"""PostgreSQL unreachable or a connection lost (issue 26 items 8 and 16): over both transports the answer is 503 /
UNAVAILABLE with `Retry-After`, never 500 / INTERNAL; its ErrorInfo reason says what became of the request
(NOTHING_STORED, or COMMIT_OUTCOME_UNKNOWN when the connection was lost during the COMMIT, which PostgreSQL may
have carried out); the log has one line when the outage starts and one when it ends, no traceback per request;
the Python client's retry of a create whose outcome was unknown returns the stored resource; and backends
terminated under load (`pg_terminate_backend`) are refused as 503 and never used again.

The server under test reaches PostgreSQL through a proxy on loopback (tests/helpers/pgproxy.py) that the tests
cut: the shared PostgreSQL never stops.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import asyncpg
import grpc
import httpx
import pytest

from platform_api.client import AlreadyExists, Client, Repo, Unavailable
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc
from tests.helpers import (
    BACKENDS,
    PG_ADMIN,
    TIMEOUT,
    Server,
    Upstream,
    all_items,
    error_info,
    mk_org,
    pg_database,
    pg_execute,
    rpc_error,
    start_server,
    stop_server,
)
from tests.helpers.pgproxy import PgProxy

REASONS = {"NOTHING_STORED", "COMMIT_OUTCOME_UNKNOWN"}


@pytest.fixture(scope="module")
def proxy() -> Iterator[PgProxy]:
    if "postgres" not in BACKENDS:
        pytest.skip("a PostgreSQL outage: postgres not selected")
    p = PgProxy()
    yield p
    p.close()


@pytest.fixture(scope="module")
def srv(proxy: PgProxy, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server on a database of its own, reached through the proxy; its log at INFO (the outage lines)."""
    name = pg_database("outage").rsplit("/", 1)[1]  # reached through the proxy, not at its own URL
    s = start_server("postgres", tmp_path_factory.mktemp("outage"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer, database_url=proxy.url(name))  # fmt: skip
    yield s
    stop_server(s, drop=False)
    pg_execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def repos_named(s: Server, org: str, name: str) -> list[dict[str, Any]]:
    listed, _ = all_items(s.http, "/registry/v2/repos", "repos", **{"uidp.children_of": org})
    return [r for r in listed if r["name"] == name]


def unavailable_http(r: httpx.Response) -> str:
    """The reason of a 503 answer, checked to carry Retry-After and a google.rpc.Status with code 14."""
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "1"
    body = r.json()
    assert body["code"] == 14 and body["details"][0]["metadata"] == {"retryAfterSeconds": "1"}, body
    return str(body["details"][0]["reason"])


def test_a_commit_lost_on_its_way_is_unknown_and_a_connection_lost_before_stored_nothing(
    srv: Server, proxy: PgProxy
) -> None:
    org = mk_org(srv.http)
    cut = proxy.cut_at_commit("INSERT INTO repos")
    r = srv.http.post(f"/registry/v2/repos/{org}", json={"name": "committed-unacknowledged"})
    assert cut.is_set()
    assert unavailable_http(r) == "COMMIT_OUTCOME_UNKNOWN"
    assert "may or may not be stored" in r.json()["message"]
    assert len(repos_named(srv, org, "committed-unacknowledged")) == 1  # PostgreSQL did commit it

    cut = proxy.cut_at_statement("INSERT INTO repos")
    r = srv.http.post(f"/registry/v2/repos/{org}", json={"name": "never-committed"})
    assert cut.is_set()
    assert unavailable_http(r) == "NOTHING_STORED"
    assert repos_named(srv, org, "never-committed") == []

    repos = repos_pb2_grpc.ReposServiceStub(srv.channel)
    for after, reason in ((True, "COMMIT_OUTCOME_UNKNOWN"), (False, "NOTHING_STORED")):
        (proxy.cut_at_commit if after else proxy.cut_at_statement)("INSERT INTO repos")
        request = repos_pb2.CreateRepoRequest(parent=org, repo=repos_pb2.Repo(name=f"grpc-{after!s}".lower()))
        err, st = rpc_error(repos.CreateRepo, request)
        assert err.code() == grpc.StatusCode.UNAVAILABLE
        info = error_info(st)
        assert info.reason == reason and info.metadata["retryAfterSeconds"] == "1"
        assert len(repos_named(srv, org, f"grpc-{after!s}".lower())) == (1 if after else 0)
    # Every connection that was cut has been replaced: the server answers as before.
    assert srv.http.post(f"/registry/v2/repos/{org}", json={"name": "after-the-cuts"}).status_code == 200


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_the_client_retrying_a_create_whose_commit_was_unknown_returns_the_stored_one(
    srv: Server, proxy: PgProxy, transport: str
) -> None:
    org = mk_org(srv.http)
    slept: list[float] = []
    with Client(srv.base_url, grpc=srv.grpc_target, transport=transport, token=srv.token, use_login_cache=False,
                sleep=slept.append) as c:  # fmt: skip
        cut = proxy.cut_at_commit("INSERT INTO repos")
        repo = c.registry.create_repo(org, Repo(name="retried", description="mine"))
        assert cut.is_set() and len(slept) == 1  # one 503, then ALREADY_EXISTS on the retry: the stored repo
        stored = repos_named(srv, org, "retried")
        assert [r["uid"] for r in stored] == [repo.uid] and repo.description == "mine"

        # The same name taken by a repo that is not this request's (another description): a real conflict.
        srv.http.post(f"/registry/v2/repos/{org}", json={"name": "taken", "description": "theirs"})
        proxy.cut_at_statement("INSERT INTO repos")  # nothing stored: the retry's conflict is real
        with pytest.raises(AlreadyExists):
            c.registry.create_repo(org, Repo(name="taken", description="mine"))

        # A create without a unique key (a subscription) is not sent twice after an unknown outcome.
        cut = proxy.cut_at_commit("INSERT INTO subscriptions")
        with pytest.raises(Unavailable) as unknown:
            c.events.create_subscription(org, {"sink": "http://127.0.0.1:9/sink"})
        assert cut.is_set() and unknown.value.reason == "COMMIT_OUTCOME_UNKNOWN"


class Load:
    """Clients creating and reading repos over HTTP and gRPC until stopped, recording every answer."""

    def __init__(self, srv: Server, org: str) -> None:
        self.srv, self.org = srv, org
        self.http: Counter[tuple[int, str]] = Counter()  # (status, reason)
        self.grpc: Counter[tuple[str, str]] = Counter()  # (code name, reason)
        self.acknowledged: list[str] = []
        self.missing_retry_after = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._http, args=(i,)) for i in range(3)]
        self._threads += [threading.Thread(target=self._grpc, args=(i,)) for i in range(2)]

    def __enter__(self) -> Load:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()

    def _http(self, k: int) -> None:
        with self.srv.client(self.srv.token) as c:
            for i in range(1_000_000):
                if self._stop.is_set():
                    return
                if i % 2:
                    r = c.get(f"/iam/v2/groups/{self.org}")
                else:
                    r = c.post(f"/registry/v2/repos/{self.org}", json={"name": f"h{k}-{i}"})
                reason = ""
                if r.status_code == 200 and i % 2 == 0:
                    self.acknowledged.append(r.json()["uid"])
                elif r.status_code != 200:
                    reason = r.json()["details"][0]["reason"]
                    self.missing_retry_after += "retry-after" not in r.headers
                self.http[(r.status_code, reason)] += 1

    def _grpc(self, k: int) -> None:
        repos = repos_pb2_grpc.ReposServiceStub(self.srv.channel)
        for i in range(1_000_000):
            if self._stop.is_set():
                return
            request = repos_pb2.CreateRepoRequest(parent=self.org, repo=repos_pb2.Repo(name=f"g{k}-{i}"))
            try:
                self.acknowledged.append(repos.CreateRepo(request, timeout=TIMEOUT).uid)
                self.grpc[("OK", "")] += 1
            except grpc.RpcError as e:
                raw = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin")
                reason = ""
                if raw is not None:
                    from google.rpc import error_details_pb2, status_pb2

                    st = status_pb2.Status.FromString(raw)
                    info = error_details_pb2.ErrorInfo()
                    st.details[0].Unpack(info)
                    reason = info.reason
                self.grpc[(e.code().name, reason)] += 1

    def wait_for(self, what: Callable[[], bool], seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while not what():
            assert time.monotonic() < deadline, (self.http, self.grpc)
            time.sleep(0.05)


def log_from(srv: Server, offset: int) -> str:
    """The server's log from byte `offset` on (what a test made it write)."""
    with open(srv.log_path, "rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", "replace")


def test_an_outage_under_load_answers_503_and_logs_one_line_each_way(srv: Server, proxy: PgProxy) -> None:
    org = mk_org(srv.http)
    offset = srv.log_path.stat().st_size
    with Load(srv, org) as load:
        load.wait_for(lambda: load.http[(200, "")] > 20 and load.grpc[("OK", "")] > 10)
        proxy.down()
        load.wait_for(lambda: sum(n for (status, _), n in load.http.items() if status == 503) > 20)
        load.wait_for(lambda: load.grpc[("UNAVAILABLE", "NOTHING_STORED")] > 5)
        time.sleep(2)
        proxy.up()
        ok_before = load.http[(200, "")], load.grpc[("OK", "")]
        load.wait_for(lambda: load.http[(200, "")] > ok_before[0] + 20 and load.grpc[("OK", "")] > ok_before[1] + 10)
    assert {status for status, _ in load.http} == {200, 503}, load.http
    assert {reason for status, reason in load.http if status == 503} <= REASONS, load.http
    assert load.missing_retry_after == 0
    assert {code for code, _ in load.grpc} == {"OK", "UNAVAILABLE"}, load.grpc
    assert {reason for code, reason in load.grpc if code == "UNAVAILABLE"} <= REASONS, load.grpc
    # Nothing acknowledged is lost.
    stored, _ = all_items(srv.http, "/registry/v2/repos", "repos", **{"uidp.children_of": org})
    assert set(load.acknowledged) <= {r["uid"] for r in stored}
    text = log_from(srv, offset)
    starts = [line for line in text.splitlines() if "PostgreSQL unavailable" in line]
    ends = [line for line in text.splitlines() if "PostgreSQL available again" in line]
    assert len(starts) == 1 and len(ends) == 1 and "calls refused meanwhile" in ends[0], text[-3000:]
    assert "Traceback" not in text, text[-3000:]


def test_the_token_exchange_answers_503_while_the_database_is_unreachable(
    srv: Server, proxy: PgProxy, upstream: Upstream
) -> None:
    org = mk_org(srv.http)
    claim_match = {"issuer": upstream.issuer, "subject": "outage-bot"}
    r = srv.http.post(f"/iam/v2/identities/{org}", json={"name": "bot", "claimMatch": claim_match})
    identity = r.json()["uid"]
    token = upstream.token("outage-bot", f"http://localhost:{srv.base_url.rsplit(':', 1)[1]}")
    proxy.down()
    try:
        r = httpx.get(srv.base_url + "/sts/exchange", params={"identity": identity},
                      headers={"authorization": f"Bearer {token}"}, timeout=30)  # fmt: skip
    finally:
        proxy.up()
    assert unavailable_http(r) == "NOTHING_STORED"


def backends_of(database: str) -> list[int]:
    import asyncio

    async def go() -> list[int]:
        conn = await asyncpg.connect(PG_ADMIN)
        try:
            rows = await conn.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", database
            )
            return [r["pid"] for r in rows]
        finally:
            await conn.close()

    return asyncio.run(go())


def test_backends_terminated_under_load_answer_503_never_500(srv: Server) -> None:
    """`pg_terminate_backend` of every connection of the server, again and again while creates and reads run:
    each request answers 200 or 503 (with Retry-After), and the pool never hands out a terminated connection
    again (requests succeed between the rounds)."""
    org = mk_org(srv.http)
    database = srv.database_url.rsplit("/", 1)[1].split("?")[0]
    offset = srv.log_path.stat().st_size
    with Load(srv, org) as load:
        for _ in range(8):
            ok = load.http[(200, "")] + load.grpc[("OK", "")]
            load.wait_for(lambda ok=ok: load.http[(200, "")] + load.grpc[("OK", "")] > ok + 20)  # type: ignore[misc]
            pg_execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'")
        ok = load.http[(200, "")] + load.grpc[("OK", "")]
        load.wait_for(lambda: load.http[(200, "")] + load.grpc[("OK", "")] > ok + 50)
    assert {status for status, _ in load.http} <= {200, 503}, load.http
    assert {reason for status, reason in load.http if status == 503} <= REASONS, load.http
    assert load.missing_retry_after == 0
    assert {code for code, _ in load.grpc} <= {"OK", "UNAVAILABLE"}, load.grpc
    stored, _ = all_items(srv.http, "/registry/v2/repos", "repos", **{"uidp.children_of": org})
    assert set(load.acknowledged) <= {r["uid"] for r in stored}
    assert backends_of(database)  # the pool reconnected
    assert "Traceback" not in log_from(srv, offset)
