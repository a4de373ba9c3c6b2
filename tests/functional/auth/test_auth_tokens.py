"""Access tokens of our issuer (spec 5, DESIGN 4): every kind of bad token is UNAUTHENTICATED with ErrorInfo
and WWW-Authenticate over HTTP, and UNAUTHENTICATED over gRPC; discovery, JWKS and key rotation.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from typing import Any

import grpc
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from google.rpc import error_details_pb2, status_pb2

from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from tests.helpers import Server, new_key


def signing_key(server: Server) -> tuple[str, Any]:
    """(kid, private key) of the server's current signing key, read from its database."""
    from platform_api.store import db

    async def go() -> tuple[str, Any]:
        database = await db.connect(server.database_url)
        try:
            row = await database.fetchrow(
                "SELECT kid, private_pem FROM signing_keys WHERE retire_time = '' ORDER BY create_time DESC LIMIT 1"
            )
            assert row is not None
            return row[0], serialization.load_pem_private_key(row[1].encode(), password=None)
        finally:
            await database.close()

    return asyncio.run(go())


def issuer(server: Server) -> str:
    return str(httpx.get(server.base_url + "/.well-known/openid-configuration").json()["issuer"])


def forge(server: Server, **overrides: Any) -> str:
    kid, key = signing_key(server)
    now = int(time.time())
    claims = {"iss": issuer(server), "aud": issuer(server), "sub": server.owner, "iat": now, "nbf": now,
              "exp": now + 300}  # fmt: skip
    headers = {"kid": overrides.pop("_kid", kid)}
    key = overrides.pop("_key", key)
    claims.update(overrides)
    for k in [k for k, v in claims.items() if v is None]:
        del claims[k]
    return jwt.encode(claims, key, algorithm="RS256", headers=headers)


def b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def hmac_with_public_key(server: Server) -> str:
    kid, key = signing_key(server)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    head = b64(json.dumps({"alg": "HS256", "kid": kid, "typ": "JWT"}).encode())
    now = int(time.time())
    body = b64(json.dumps({"iss": issuer(server), "aud": issuer(server), "sub": server.owner, "iat": now,
                           "exp": now + 300}).encode())  # fmt: skip
    return (head + b"." + body + b"." + b64(hmac.new(pem, head + b"." + body, hashlib.sha256).digest())).decode()


def alg_none(server: Server) -> str:
    now = int(time.time())
    head = b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    body = b64(json.dumps({"iss": issuer(server), "aud": issuer(server), "sub": server.owner, "iat": now,
                           "exp": now + 300}).encode())  # fmt: skip
    return (head + b"." + body + b".").decode()


def bad_tokens(server: Server) -> dict[str, str | None]:
    other_key, _ = new_key()
    now = int(time.time())
    good = forge(server)
    return {
        "missing": None,
        "malformed": "not.a.jwt",
        "garbage": "x" * 40,
        "expired": forge(server, iat=now - 7200, nbf=now - 7200, exp=now - 3600),
        "not yet valid": forge(server, nbf=now + 3600),
        "wrong issuer": forge(server, iss="https://evil.example"),
        "wrong audience": forge(server, aud="https://other-api.example"),
        "no subject": forge(server, sub=None),
        "unknown kid": forge(server, _kid="0123456789abcdef"),
        "bad signature": forge(server, _key=other_key),
        "tampered payload": good.split(".")[0]
        + "."
        + b64(json.dumps({"sub": "x"}).encode()).decode()
        + "."
        + good.split(".")[2],
        "alg none": alg_none(server),
        "hmac with public key": hmac_with_public_key(server),
        "unknown identity": forge(server, sub="ffffffffffffffffffffffffffffffffffffffff"),
    }


@pytest.fixture(scope="module")
def tokens(server: Server) -> dict[str, str | None]:
    return bad_tokens(server)


CASES = [
    "missing", "malformed", "garbage", "expired", "not yet valid", "wrong issuer", "wrong audience", "no subject",
    "unknown kid", "bad signature", "tampered payload", "alg none", "hmac with public key", "unknown identity",
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_bad_token_over_http(server: Server, tokens: dict[str, str | None], case: str) -> None:
    with server.client(tokens[case]) as c:
        r = c.get(f"/iam/v2/groups/{server.owner_org}")
    assert r.status_code == 401, (case, r.text)
    body = r.json()
    assert body["code"] == 16 and body["message"].startswith("Unauthenticated"), body
    assert body["details"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert body["details"][0]["reason"] == "UNAUTHENTICATED"
    assert r.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("case", ["missing", "expired", "alg none", "hmac with public key", "bad signature"])
def test_bad_token_over_grpc(server: Server, tokens: dict[str, str | None], case: str) -> None:
    channel = server.grpc_channel(tokens[case])
    stub = groups_pb2_grpc.GroupsServiceStub(channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.GetGroup(groups_pb2.GetGroupRequest(uid=server.owner_org))
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    md = dict(e.value.trailing_metadata() or ())
    st = status_pb2.Status.FromString(md["grpc-status-details-bin"])
    info = error_details_pb2.ErrorInfo()
    st.details[0].Unpack(info)
    assert info.reason == "UNAUTHENTICATED"
    channel.close()


def test_wrong_scheme(server: Server) -> None:
    r = httpx.get(f"{server.base_url}/iam/v2/groups/{server.owner_org}", headers={"authorization": "Basic dXNlcg=="})
    assert r.status_code == 401


def test_routes_without_auth(anon: httpx.Client) -> None:
    assert anon.get("/ping/v2/ping").status_code == 200
    assert anon.get("/.well-known/openid-configuration").status_code == 200
    assert anon.get("/.well-known/jwks.json").status_code == 200
    # Every other route wants a token, even an unimplemented one: nothing is revealed to anonymous callers.
    assert anon.get("/registry/v2/repos").status_code == 401
    assert anon.get("/vulnerabilities/v2/advisories").status_code == 401


def test_discovery_and_jwks_verify_our_tokens(server: Server) -> None:
    config = httpx.get(server.base_url + "/.well-known/openid-configuration").json()
    assert config["jwks_uri"].endswith("/.well-known/jwks.json")
    jwks = httpx.get(server.base_url + "/.well-known/jwks.json").json()
    assert all("d" not in k and k["kty"] == "RSA" for k in jwks["keys"])
    header = jwt.get_unverified_header(server.token)
    key = jwt.PyJWKSet.from_dict(jwks)[header["kid"]]
    claims = jwt.decode(server.token, key, algorithms=["RS256"], audience=config["issuer"], issuer=config["issuer"])
    assert claims["sub"] == server.owner and claims["exp"] - claims["iat"] == 3600


def test_key_rotation_keeps_old_tokens_valid(server: Server) -> None:
    old = server.mint(server.owner)
    old_kid = jwt.get_unverified_header(old)["kid"]
    new_kid = json.loads(server.cli("keys", "rotate"))["signing"]
    new = server.mint(server.owner)
    assert jwt.get_unverified_header(new)["kid"] == new_kid != old_kid
    for token in (old, new):  # the server learns the new kid on first sight
        with server.client(token) as c:
            assert c.get(f"/iam/v2/groups/{server.owner_org}").status_code == 200
    kids = {k["kid"] for k in httpx.get(server.base_url + "/.well-known/jwks.json").json()["keys"]}
    assert {old_kid, new_kid} <= kids
    listed = json.loads(server.cli("keys", "list"))
    assert [k["kid"] for k in listed if not k["retireTime"]] == [new_kid]


def test_bootstrap_is_idempotent(server: Server) -> None:
    again = json.loads(server.cli("bootstrap"))
    assert set(again) == {"organization", "identity", "token"}
    assert (again["organization"], again["identity"]) == (server.owner_org, server.owner)
    with server.client(again["token"]) as c:
        assert c.get(f"/iam/v2/groups/{server.owner_org}").status_code == 200
