"""Helpers of the over-the-wire HTTP tests: the built-in role uids, the structured-error assertions every
domain's tests share, the IAM resource makers (organizations, groups, roles, identity providers), listing and
stored-state reads."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from google.rpc import code_pb2

from platform_api.iam import identity_providers
from platform_api.store import db
from tests.helpers.server import BUILTIN_ROLE_UIDS, Server

T = TypeVar("T")
OWNER = BUILTIN_ROLE_UIDS["owner"]
EDITOR = BUILTIN_ROLE_UIDS["editor"]
VIEWER = BUILTIN_ROLE_UIDS["viewer"]


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


def detail(body: dict[str, Any], kind: str) -> dict[str, Any]:
    found = [d for d in body["details"] if d["@type"] == f"type.googleapis.com/google.rpc.{kind}"]
    assert len(found) == 1, body
    return dict(found[0])


def assert_error(r: httpx.Response, status: int, code: int, field: str | None = None) -> dict[str, Any]:
    """A structured google.rpc.Status error over HTTP: JSON {code, message, details} and nothing else, ErrorInfo
    first (reason = the code's name, a domain), and when `field` is given the message of an INVALID_ARGUMENT
    and a BadRequest naming that one field, with a description."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = dict(r.json())
    assert set(body) == {"code", "message", "details"}, body
    assert body["code"] == code and isinstance(body["message"], str) and body["message"], body
    info = body["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo", body
    assert info["reason"] == code_pb2.Code.Name(code) and info["domain"], body
    if field is not None:
        assert body["message"].startswith("Invalid argument"), body
        violations = detail(body, "BadRequest")["fieldViolations"]
        assert [v["field"] for v in violations] == [field], body
        assert all(v["description"] for v in violations), body
    return body


def assert_not_found(r: httpx.Response, name: str, resource_type: str | None = None) -> None:
    body = assert_error(r, 404, 5)
    info = detail(body, "ResourceInfo")
    assert info["resourceName"] == name, body
    if resource_type is not None:
        assert info["resourceType"] == f"chainguard.platform.iam.v2.{resource_type}", body


def assert_denied(r: httpx.Response) -> None:
    assert_error(r, 403, 7)


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def mk_org(http: httpx.Client) -> str:
    return str(ok(http.post("/iam/v2/groups/", json={"name": unique("org")}))["uid"])


def mk_group(http: httpx.Client, parent: str, name: str | None = None, **fields: Any) -> dict[str, Any]:
    """A group under `parent` ('' for an organization) with `fields`: the group as created."""
    return ok(http.post(f"/iam/v2/groups/{parent}", json={"name": name or unique("team"), **fields}))


def mk_idp(http: httpx.Client, parent: str, **fields: Any) -> dict[str, Any]:
    """An identity provider under `parent`: by default an OIDC one with PKCE and no client secret whose logins
    get the viewer role; `fields` replace parts of that body. The provider as created."""
    body = {"name": unique("sso"), "defaultRole": VIEWER,
            "oidc": {"issuer": "https://idp.example.com", "clientId": "c", "pkceEnabled": True}}  # fmt: skip
    return ok(http.post(f"/iam/v2/identityProviders/{parent}", json={**body, **fields}))


def mk_role(http: httpx.Client, parent: str, *capabilities: str, name: str | None = None) -> str:
    body = {"name": name or unique("role"), "capabilities": list(capabilities)}
    return str(ok(http.post(f"/iam/v2/roles/{parent}", json=body))["uid"])


def all_items(http: httpx.Client, path: str, key: str, **params: Any) -> tuple[list[dict[str, Any]], int]:
    """Every item of a listing (following nextPageToken) and its totalCount."""
    out: list[dict[str, Any]] = []
    token = None
    while True:
        body = ok(http.get(path, params={**params, **({"page_token": token} if token else {})}))
        out += body.get(key, [])
        total = int(body["totalCount"])
        token = body.get("nextPageToken")
        if not token:
            return out, total


def run_db(server: Server | str, fn: Callable[[Any], Awaitable[T]]) -> T:
    """Run `fn(database)` against the server's database, or the one at this URL (to check what is stored, to
    play a login, or for an in-process test on a scratch database)."""

    async def go() -> T:
        database = await db.connect(server if isinstance(server, str) else server.database_url)
        try:
            return await fn(database)
        finally:
            await database.close()

    return asyncio.run(go())


def never_shows(responses: list[httpx.Response], *secrets_: str) -> None:
    for r in responses:
        for s in secrets_:
            assert s not in r.text, (r.request.method, r.request.url, r.text)


def stored_secret(server: Server, uid: str) -> str:
    async def go(database: Any) -> str:
        idp = await identity_providers.fetch(database, uid)
        assert idp.oidc is not None
        return idp.oidc.client_secret

    return run_db(server, go)
