"""Upgrade: a database written by a previous release, served by this checkout, answers exactly as it did.

The fixture (tests/fixtures/previous_release/, written by its make.py from the release named in expected.json)
holds a SQLite file and a PostgreSQL dump with every stored resource, and that release's HTTP answers to the
Gets and Lists of all of them. Here the database is restored, the current server started on it (pending
migrations run at start), and every answer must be the recorded one, over HTTP and, for a repo and an identity,
over gRPC; tokens the old release minted still authenticate, its role bindings still grant, its invite code
can still be redeemed and its static keys still verify; new writes work afterwards.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import jwt
import pytest
from google.protobuf import json_format

from tests.helpers import (
    BACKENDS,
    EVENT_ENV,
    Server,
    Verifier,
    pg_database,
    pg_execute,
    receiver,
    start_server,
    stop_server,
)

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "previous_release"
EXPECTED: dict[str, Any] = json.loads((FIXTURE / "expected.json").read_text())
TIMEOUT = 10
NEW_DIGEST = "sha256:" + "9" * 64

# Differences from the recorded answers that an intended API change explains: patterns over
# "<who> <path, uids named> <query as JSON>  <JSON path>" where `*` matches anything (nothing else is special),
# as the failure message prints them, e.g.
#   "owner /iam/v2/roles {}  $.roles[*].description",  # built-in role descriptions reworded (issue N)
#   "* $.*.createTime",  # ...
# Every entry needs a comment naming the change. Empty: today nothing may differ.
ALLOWED_DIFFERENCES: list[str] = [
    # Issue 9: built-in roles hold the reference's bundles in full (reference 9.2), so their capability lists
    # grow (every old capability is still there: see test_builtin_roles_only_grew) and their updateTime moves.
    "owner /iam/v2/roles {}  $.roles[*].capabilities[*]",
    "owner /iam/v2/roles {}  $.roles[*].updateTime",
    "owner /iam/v2/groupInvites*  $.*role.capabilities[*]",
]


def renamed(recorded: Any) -> Any:
    """Issue 9: messages carry the contract's names, so error texts and ResourceInfo say
    `chainguard.platform.registry.v2.Repo` where the previous release said `platform.registry.v2.Repo`."""
    if isinstance(recorded, str):
        return re.sub(r"(?<![\w.])platform\.(\w+)\.v2\.", r"chainguard.platform.\1.v2.", recorded)
    if isinstance(recorded, list):
        return [renamed(x) for x in recorded]
    if isinstance(recorded, dict):
        return {k: renamed(v) for k, v in recorded.items()}
    return recorded


# ------------------------------------------------------------------ gRPC: the only use of generated code
def grpc_get(channel: grpc.Channel, kind: str, uid: str) -> tuple[Any, Any]:
    """(the gRPC Get answer for a `repo` or an `identity`, an empty message of its type).

    The one place that names generated modules and services: when the protos are renamed or renumbered,
    update these imports and names (the rest of the file speaks HTTP/JSON only)."""
    from platform_api.gen.chainguard.platform.iam.v2 import identities_pb2, identities_pb2_grpc
    from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc

    if kind == "repo":
        repos = repos_pb2_grpc.ReposServiceStub(channel)
        return repos.GetRepo(repos_pb2.GetRepoRequest(uid=uid), timeout=TIMEOUT), repos_pb2.Repo()
    identities = identities_pb2_grpc.IdentitiesServiceStub(channel)
    got = identities.GetIdentity(identities_pb2.GetIdentityRequest(uid=uid), timeout=TIMEOUT)
    return got, identities_pb2.Identity()


# ------------------------------------------------------------------ restoring the fixture
def run_pg(database_url: str, sql: str, *args: str) -> None:
    """SQL on a PostgreSQL database (without arguments: any number of statements)."""
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(database_url)
        try:
            await conn.execute(sql, *args)
        finally:
            await conn.close()

    asyncio.run(go())


def restore(backend: str, tmp: Path) -> str:
    """A fresh copy of the previous release's database; its URL."""
    if backend == "sqlite":
        path = tmp / "previous.db"
        with gzip.open(FIXTURE / "sqlite.db.gz", "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        return f"sqlite:///{path}"
    url = pg_database("upgrade")
    # A plain pg_dump (--inserts), run without psql: only psql's own meta-commands (\restrict, \unrestrict, which
    # recent pg_dump versions write) are left out.
    dump = (FIXTURE / "postgres.sql").read_text()
    run_pg(url, re.sub(r"(?m)^\\(un)?restrict .*$", "", dump))
    return url


def execute(database_url: str, sql: str, *args: str) -> None:
    """One statement on a restored copy, before it is served (sqlite3 / asyncpg placeholders: $1...)."""
    if database_url.startswith("sqlite:"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as db:
            db.execute(sql.replace("$1", "?1").replace("$2", "?2"), args)
        db.close()
    else:
        run_pg(database_url, sql, *args)


Prepare = Callable[[str, dict[str, Any]], None]


@pytest.fixture(params=BACKENDS)
def upgraded(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., tuple[Server, dict[str, Any]]]]:
    """serve(prepare=None) -> (the current server on a restored copy, the backend's recorded facts)."""
    backend: str = request.param
    facts: dict[str, Any] = EXPECTED[backend]
    servers: list[Server] = []
    databases: list[str] = []

    def serve(prepare: Prepare | None = None) -> tuple[Server, dict[str, Any]]:
        url = restore(backend, tmp_path)
        databases.append(url)
        if prepare is not None:
            prepare(url, facts)
        s = start_server(backend, tmp_path, *EXPECTED["serve_args"], database_url=url)
        servers.append(s)
        return s, facts

    yield serve
    for s in servers:
        stop_server(s, drop=False)
    for url in databases:
        if backend == "postgres":
            pg_execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")


# ------------------------------------------------------------------ comparing answers
def differences(recorded: Any, got: Any, path: str = "$") -> list[str]:
    """JSON paths where `got` differs from `recorded` (exact: types, values, keys, list order)."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        out = []
        for k in sorted(set(recorded) | set(got)):
            if k not in got or k not in recorded:
                out.append(f"{path}.{k}")
            else:
                out += differences(recorded[k], got[k], f"{path}.{k}")
        return out
    if isinstance(recorded, list) and isinstance(got, list):
        out = [f"{path}[{i}]" for i in range(min(len(recorded), len(got)), max(len(recorded), len(got)))]
        for i, (a, b) in enumerate(zip(recorded, got, strict=False)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    return [] if type(recorded) is type(got) and recorded == got else [path]


def label(call: dict[str, Any], uids: dict[str, str]) -> str:
    """The call with uids replaced by their names (stable across backends and regenerations)."""
    text = f"{call['as']} {call['path']} {json.dumps(call['query'], sort_keys=True)}"
    for name, uid in sorted(uids.items(), key=lambda kv: -len(kv[1])):
        text = text.replace(uid, f"<{name}>")
    return text


def allowed(where: str, patterns: list[str] = ALLOWED_DIFFERENCES) -> bool:
    return any(re.fullmatch(".*".join(map(re.escape, p.split("*"))), where, re.S) for p in patterns)


def client(s: Server, facts: dict[str, Any], who: str) -> httpx.Client:
    return s.client(facts["tokens"][who] if who != "anon" else None)


def recorded_deliveries(facts: dict[str, Any], subscription: str) -> list[dict[str, Any]]:
    query = {"uidp.children_of": subscription}
    found = [c["body"] for c in facts["calls"] if c["path"] == "/events/v2/deliveries" and c["query"] == query]
    assert len(found) == 1
    return list(found[0].get("deliveries", []))


def recorded_body(facts: dict[str, Any], who: str, path: str) -> dict[str, Any]:
    found = [c["body"] for c in facts["calls"] if c["as"] == who and c["path"] == path and not c["query"]]
    assert len(found) == 1, path
    return dict(found[0])


# ------------------------------------------------------------------ the tests
def test_fixture_is_complete(tmp_path: Path) -> None:
    """The fixture covers both backends, and every table of the previous release has rows."""
    assert {"sqlite", "postgres"} <= set(EXPECTED), "regenerate with both backends"
    db = restore("sqlite", tmp_path).removeprefix("sqlite:///")
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        empty = [t for t in tables if conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] == 0]
    conn.close()
    assert len(tables) >= 20 and empty == [], empty
    dump = (FIXTURE / "postgres.sql").read_text()
    assert all(f"INSERT INTO public.{t} " in dump for t in tables), "the PostgreSQL dump lacks a table's rows"


def test_comparison_helpers() -> None:
    recorded = {"a": [1, {"b": "x"}], "c": "2026-01-01T00:00:00.000Z", "d": True}
    got = {"a": [1, {"b": "y"}, 3], "c": "2026-01-01T00:00:00Z", "d": 1, "e": None}
    assert differences(recorded, recorded) == []
    assert differences(recorded, got) == ["$.a[2]", "$.a[1].b", "$.c", "$.d", "$.e"]
    where = "owner /iam/v2/roles {}  $.roles[3].description"
    assert allowed(where, ["owner /iam/v2/roles {}  $.roles[*].description"])
    assert not allowed(where, ["owner /iam/v2/roles {}  $.roles[*].name", "* $.roles"])
    assert allowed(where, ["* $.roles*"])


def test_every_answer_is_unchanged(upgraded: Callable[..., tuple[Server, dict[str, Any]]]) -> None:
    s, facts = upgraded()
    unexpected: list[str] = []
    clients = {who: client(s, facts, who) for who in {call["as"] for call in facts["calls"]}}
    for call in facts["calls"]:
        r = clients[call["as"]].get(call["path"], params=call["query"])
        where = label(call, facts["uids"])
        if r.status_code != call["status"]:
            unexpected.append(f"{where}  status {call['status']} -> {r.status_code}: {r.text[:300]}")
            continue
        for path in differences(renamed(call["body"]), r.json()):
            if not allowed(f"{where}  {path}"):
                unexpected.append(f"{where}  {path}")
    for c in clients.values():
        c.close()
    assert unexpected == [], "answers differ from the previous release's:\n" + "\n".join(unexpected)
    assert len(facts["calls"]) > 60


def test_builtin_roles_only_grew(upgraded: Callable[..., tuple[Server, dict[str, Any]]]) -> None:
    """The one allowed change to role answers: built-in roles gained capabilities, lost none."""
    s, facts = upgraded()
    recorded = next(c["body"]["roles"] for c in facts["calls"] if c["path"] == "/iam/v2/roles" and c["as"] == "owner")
    now = {r["uid"]: r for r in s.client(facts["tokens"]["owner"]).get("/iam/v2/roles").json()["roles"]}
    assert recorded
    for role in recorded:
        assert set(role["capabilities"]) <= set(now[role["uid"]]["capabilities"]), role["name"]
        assert {k: v for k, v in role.items() if k not in ("capabilities", "updateTime")} == {
            k: v for k, v in now[role["uid"]].items() if k not in ("capabilities", "updateTime")
        }


def test_grpc_answers_match_the_recorded_http_ones(upgraded: Callable[..., tuple[Server, dict[str, Any]]]) -> None:
    s, facts = upgraded()
    channel = s.grpc_channel(facts["tokens"]["owner"])
    try:
        # (Root-level identities, the owner and the user, are NOT_FOUND to Get, over HTTP as well.)
        for kind, key in [
            ("repo", "repo"),
            ("repo", "team_repo"),
            ("identity", "robot"),
            ("identity", "pattern_robot"),
            ("identity", "static_robot"),
        ]:
            uid = facts["uids"][key]
            base = "/registry/v2/repos/" if kind == "repo" else "/iam/v2/identities/"
            got, empty = grpc_get(channel, kind, uid)
            want = json_format.ParseDict(recorded_body(facts, "owner", base + uid), empty)
            assert got == want, (kind, uid, got, want)
    finally:
        channel.close()


def test_old_credentials_still_work(upgraded: Callable[..., tuple[Server, dict[str, Any]]]) -> None:
    """The old release's access tokens, invite code and an identity's static keys."""

    def extend_invite(url: str, facts: dict[str, Any]) -> None:
        # Invites live at most 30 days; only the stored expiry column moves (the recorded answer is untouched).
        execute(
            url,
            "UPDATE group_invites SET expire_time = $2 WHERE uid = $1",
            facts["uids"]["invite"],
            "9999-12-31T23:59:59.999Z",
        )

    s, facts = upgraded(extend_invite)
    u = facts["uids"]
    # Tokens (calls above check their answers); a tampered one is refused.
    with client(s, facts, "owner") as c:
        assert c.get(f"/iam/v2/groups/{u['org']}").status_code == 200
    with s.client(facts["tokens"]["owner"][:-4] + "AAAA") as c:
        assert c.get(f"/iam/v2/groups/{u['org']}").status_code == 401
    # The invite code, by an identity created now.
    with client(s, facts, "owner") as c:
        r = c.post(
            f"/iam/v2/identities/{u['org']}",
            json={"name": "newcomer", "claimMatch": {"issuer": "https://issuer.upgrade.test", "subject": "newcomer"}},
        )
        assert r.status_code == 200, r.text
    newcomer = r.json()["uid"]
    token = s.mint(newcomer)
    with s.client(token) as c:
        assert c.get(f"/iam/v2/groups/{u['org']}").status_code == 404
        r = c.post("/auth/v1/register", json={"code": facts["invite_code"]})
        assert r.status_code == 200 and r.json() == {"identity": newcomer, "group": u["org"]}, r.text
        assert c.get(f"/iam/v2/groups/{u['org']}").status_code == 200
    # The static keys, while they are valid (at most a year after the fixture was made).
    key = facts["static_key"]
    now = int(time.time())
    claims = {"iss": key["issuer"], "sub": key["subject"], "aud": key["audience"], "iat": now, "exp": now + 300}
    upstream = jwt.encode(claims, key["private_pem"], "RS256", headers={"kid": key["kid"]})
    with httpx.Client(base_url=s.base_url, timeout=30) as c:
        bearer = {"authorization": f"Bearer {upstream}"}
        r = c.get("/sts/exchange", params={"identity": u["static_robot"]}, headers=bearer)
    if time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now + 300)) < key["expiration"]:
        assert r.status_code == 200, r.text
        with s.client(r.json()["token"]) as c:
            assert c.get(f"/iam/v2/groups/{u['team']}").status_code == 200
    else:  # the fixture's static keys have expired: regenerate it (from the release it represents)
        assert r.status_code == 401, r.text


def test_writes_after_the_upgrade(upgraded: Callable[..., tuple[Server, dict[str, Any]]]) -> None:
    s, facts = upgraded()
    u = facts["uids"]
    repo = recorded_body(facts, "owner", f"/registry/v2/repos/{u['repo']}")
    with client(s, facts, "owner") as c:
        # Migration 0013: each existing tag's history starts with its current digest; a move after it adds one.
        old = c.get(f"/registry/v2/tags/{u['tag_latest']}").json()
        first = {"updateTimestamp": old["updateTime"], "digest": old["digest"]}
        assert c.get(f"/registry/v1/tags/{u['tag_latest']}/history").json() == {"items": [first]}
        r = c.post(f"/registry/v2/tags/{u['repo']}", json={"name": old["name"], "digest": NEW_DIGEST})
        moved = {"updateTimestamp": r.json()["updateTime"], "digest": NEW_DIGEST}
        assert c.get(f"/registry/v1/tags/{u['tag_latest']}/history").json() == {"items": [first, moved]}
        r = c.post(f"/registry/v2/tags/{u['repo']}", json={"name": "after-upgrade", "digest": NEW_DIGEST})
        assert r.status_code == 200, r.text
        tag = r.json()
        assert c.get(f"/registry/v2/tags/{tag['uid']}").json() == tag
        listed = c.get("/registry/v2/tags", params={"uidp.children_of": u["repo"]}).json()
        assert [t["name"] for t in listed["tags"]].count("after-upgrade") == 1
        r = c.patch(f"/registry/v2/repos/{u['repo']}", json={"description": "after the upgrade"})
        assert r.status_code == 200, r.text
        got = c.get(f"/registry/v2/repos/{u['repo']}").json()
        assert got == r.json()
        assert got == {**repo, "description": "after the upgrade", "updateTime": got["updateTime"]}
        assert got["updateTime"] > repo["updateTime"]
        # The old release's typed subscription still matches the new release's events (the types it stores are
        # names the events must keep carrying).
        before = {d["uid"] for d in deliveries(c, u["subscription_typed"])}
        r = c.post(f"/registry/v2/tags/{u['team_repo']}", json={"name": "after-upgrade", "digest": NEW_DIGEST})
        assert r.status_code == 200, r.text
        new = [d for d in deliveries(c, u["subscription_typed"]) if d["uid"] not in before]
        assert [d["subject"] for d in new] == [r.json()["uid"]], new
        r = c.post(f"/iam/v2/groups/{u['team']}", json={"name": "after-upgrade"})
        assert r.status_code == 200, r.text
        assert c.get(f"/iam/v2/groups/{r.json()['uid']}").json() == r.json()
    # The robot's custom role (bound by the old release at the sub-group) still shows it that sub-tree's repos only.
    with client(s, facts, "robot") as c:
        names = {x["name"] for x in c.get("/registry/v2/repos").json().get("repos", [])}
        assert names == {"redis"}


def deliveries(c: httpx.Client, subscription: str) -> list[dict[str, Any]]:
    r = c.get("/events/v2/deliveries", params={"uidp.children_of": subscription, "page_size": 200})
    assert r.status_code == 200, r.text
    return list(r.json().get("deliveries", []))


def test_old_events_are_delivered(upgraded: Callable[..., tuple[Server, dict[str, Any]]], tmp_path: Path) -> None:
    """The old release's pending deliveries, sent by this release's dispatcher: its stored events (headers and
    bodies) and the subscription's stored secret, verified as a receiver would."""
    s, facts = upgraded()
    sub = facts["uids"]["subscription_typed"]
    recorded = recorded_deliveries(facts, sub)
    assert len(recorded) >= 5 and {d["state"] for d in recorded} == {"STATE_PENDING"}
    with receiver() as rec:
        with client(s, facts, "owner") as c:
            r = c.patch(f"/events/v2/subscriptions/{sub}", json={"sink": rec.url("/upgrade")})
            assert r.status_code == 200, r.text
        env = {**os.environ, **EVENT_ENV, "PLATFORM_API_LOG_LEVEL": "warning"}
        cmd = [sys.executable, "-m", "platform_api.cli", "dispatch", "--database", s.database_url,
               "--public-url", EXPECTED["public_url"], "--insecure-allow-loopback"]  # fmt: skip
        with open(tmp_path / "dispatch.log", "wb") as log:
            dispatcher = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            got = rec.wait("/upgrade", len(recorded), timeout=60)
        finally:
            dispatcher.terminate()
            dispatcher.wait(timeout=20)
    verifier = Verifier(s.base_url)
    by_id = {d["eventId"]: d for d in recorded}
    assert sorted(g.ce("id") for g in got) == sorted(by_id)
    for g in got:
        d = by_id[g.ce("id")]
        assert (g.ce("type"), g.ce("subject")) == (d["eventType"], d["subject"])
        verifier.verify(g, facts["uids"]["org"], facts["subscription_secrets"]["subscription_typed"])
        assert set(g.json) == {"actor", "body"} and g.json["body"], g.body


def test_refresh_tokens_of_the_previous_release_are_revoked(
    upgraded: Callable[..., tuple[Server, dict[str, Any]]],
) -> None:
    """Issue 26 (1): a refresh token the previous release issued may have come through an organization's identity
    provider as another organization's person; migration 0018 revokes them all (people sign in once more)."""
    spent = "pat_rt_" + secrets.token_urlsafe(32)

    def plant(url: str, facts: dict[str, Any]) -> None:
        execute(url, "INSERT INTO refresh_tokens (token_hash, family, identity_uid, claims, create_time, expire_time)"
                " VALUES ($1, 'f', $2, '{\"aud\": \"\", \"scopes\": [], \"cap_limit\": [], \"act\": {}}',"
                " '2026-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')",
                hashlib.sha256(spent.encode()).hexdigest(), facts["uids"]["owner"])  # fmt: skip

    s, _ = upgraded(plant)
    r = httpx.post(s.base_url + "/sts/exchange_refresh_token", headers={"authorization": f"Bearer {spent}"})
    assert r.status_code == 401, r.text
