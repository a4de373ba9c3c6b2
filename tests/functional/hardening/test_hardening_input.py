"""Hostile input at the edges, on both backends and both transports: bodies past their limit (declared or
chunked) on every route, undecodable JSON and protobuf, NUL characters, timestamps outside the usual years
and duplicated credentials all answer structured 4xx errors, never a 500 or a Python class name.
"""

from __future__ import annotations

import json
import secrets
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import grpc
import httpx
import jwt
import pytest
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2, status_pb2

from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc, identity_providers_pb2
from tests.helpers import Server, assert_error, error_info, mk_idp, mk_repo, ok, rpc_error

MIB = 1 << 20
FORM = 64 * 1024
GROUPS = groups_pb2.DESCRIPTOR.services_by_name["GroupsService"].full_name
IDPS = identity_providers_pb2.DESCRIPTOR.services_by_name["IdentityProvidersService"].full_name
DIGEST = "sha256:" + "d" * 64


def structured(body: dict[str, Any], code: int) -> None:
    assert set(body) == {"code", "message", "details"} and body["code"] == code, body
    assert body["details"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo", body
    assert "Error" not in body["message"] and "Traceback" not in body["message"], body


def healthy(server: Server) -> None:
    assert server.process.poll() is None
    assert server.http.get("/healthz").status_code == 200
    assert server.http.get("/ping/v2/ping").status_code == 200


def raw_http(server: Server, head: str, parts: list[bytes]) -> tuple[int, dict[str, Any]]:
    """Send a request head and some body bytes, never the end of the body: the answer must come anyway
    (a server reading to the end would make this time out)."""
    url = urlsplit(server.base_url)
    with socket.create_connection((url.hostname, url.port), timeout=20) as s:
        s.sendall(head.replace("\n", "\r\n").encode())
        for part in parts:
            s.sendall(part)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        top, _, rest = data.partition(b"\r\n\r\n")
        lines = top.decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:])
        length = int(headers["content-length"])
        while len(rest) < length:
            chunk = s.recv(65536)
            assert chunk, rest
            rest += chunk
        return int(lines[0].split()[1]), json.loads(rest[:length])


def chunked(total: int, size: int = 16 * 1024) -> list[bytes]:
    """`total` bytes of chunked transfer encoding, without the final empty chunk."""
    out = []
    while total > 0:
        n = min(size, total)
        out.append(f"{n:x}\r\n".encode() + b"a" * n + b"\r\n")
        total -= n
    return out


def head(method: str, path: str, content_type: str, framing: str, token: str = "") -> str:
    auth = f"authorization: Bearer {token}\n" if token else ""
    return f"{method} {path} HTTP/1.1\nhost: test\ncontent-type: {content_type}\n{auth}{framing}\n"


# ------------------------------------------------------------------------------------------ body limits

LIMITED = [  # (method, path, content type, limit); API paths are filled in with the owner's organization
    ("POST", "/sts/exchange", "application/x-www-form-urlencoded", FORM),
    ("POST", "/sts/exchange_refresh_token", "application/x-www-form-urlencoded", FORM),
    ("POST", "/auth/v1/register", "application/json", FORM),
    ("POST", "/iam/v2/groups/{org}", "application/json", MIB),
]


@pytest.mark.parametrize(("method", "path", "content_type", "limit"), LIMITED)
def test_chunked_body_stops_at_the_limit(server: Server, method: str, path: str, content_type: str, limit: int) -> None:
    path = path.format(org=server.owner_org)
    framing = "transfer-encoding: chunked\n"
    status, body = raw_http(server, head(method, path, content_type, framing, server.token), chunked(limit + 1))
    assert status == 413, body
    structured(body, 8)
    assert body["details"][0]["reason"] == "RESOURCE_EXHAUSTED"
    healthy(server)


@pytest.mark.parametrize(("method", "path", "content_type", "limit"), LIMITED)
def test_declared_length_over_the_limit(server: Server, method: str, path: str, content_type: str, limit: int) -> None:
    path = path.format(org=server.owner_org)
    framing = f"content-length: {200 * MIB}\n"
    # No body bytes at all: left unread, they could turn the server's close into a reset that loses the answer.
    status, body = raw_http(server, head(method, path, content_type, framing, server.token), [])
    assert status == 413, body
    structured(body, 8)
    healthy(server)


def test_fallback_route_answers_without_the_body(server: Server) -> None:
    # A route that takes no body never waits for one, however large it claims to be.
    status, body = raw_http(server, head("POST", "/healthz", "text/plain", f"content-length: {200 * MIB}\n"), [])
    assert status == 501, body
    structured(body, 12)
    healthy(server)


def test_oversized_bodies_over_httpx(server: Server) -> None:
    def stream(total: int) -> Iterator[bytes]:  # no content-length: chunked
        for _ in range(total // (16 * 1024)):
            yield b"a" * (16 * 1024)

    form = {"content-type": "application/x-www-form-urlencoded", "authorization": "Bearer x"}
    requests = [
        ("/sts/exchange", stream(2 * FORM), form),
        ("/sts/exchange", b"a=" + b"b" * FORM, form),
        ("/auth/v1/register", b'{"code": "' + b"c" * FORM + b'"}', {"authorization": "Bearer x"}),
    ]
    for path, content, headers in requests:
        # One connection each: the server may close a connection whose body it did not read to the end.
        r = httpx.post(server.base_url + path, content=content, headers=headers, timeout=30)
        assert r.status_code == 413, r.text
        structured(r.json(), 8)
    healthy(server)


def test_register_body_under_the_limit_is_read(server: Server) -> None:
    r = server.http.post("/auth/v1/register", content=b'{"code": ""}' + b" " * (FORM - 100))
    assert r.status_code == 200, r.text
    assert r.json()["identity"] == server.owner


# ------------------------------------------------------------------------------------------ JSON decoding

BAD_JSON = {
    "invalid-utf8": b'{"name": "\xff\xfe"}',
    "deep-arrays": b'{"name": "x", "description": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    "deep-objects": b'{"a": ' * 5000 + b"1" + b"}" * 5000,
}


@pytest.mark.parametrize("raw", BAD_JSON.values(), ids=BAD_JSON.keys())
def test_undecodable_json_is_invalid_argument(server: Server, anon: httpx.Client, raw: bytes) -> None:
    json_type = {"content-type": "application/json"}
    for client in (server.http, anon):  # refused before authentication too
        assert_error(client.post(f"/iam/v2/groups/{server.owner_org}", content=raw, headers=json_type), 400, 3, "body")
    assert_error(server.http.post("/auth/v1/register", content=raw, headers=json_type), 400, 3, "body")
    healthy(server)


# ------------------------------------------------------------------------------------------ NUL characters


@pytest.mark.parametrize("field", ["subject", "issuer"])
def test_nul_in_claim_match_is_refused_and_never_stored(server: Server, org: str, field: str) -> None:
    claim_match = {"issuer": "https://issuer.example", "subject": "s-" + secrets.token_hex(4)}
    claim_match[field] = claim_match[field] + "\x00x"
    r = server.http.post(f"/iam/v2/identities/{org}", json={"name": "nul", "claimMatch": claim_match})
    assert_error(r, 400, 3, f"claim_match.{field}")
    listed = ok(server.http.get("/iam/v2/identities", params={"uidp.children_of": org}))
    assert listed["totalCount"] == "0"


@pytest.mark.parametrize(
    ("path", "param"),
    [("/iam/v2/groups", "name"), ("/iam/v2/identities", "name"), ("/iam/v2/roleBindings", "identity"),
     ("/events/v2/deliveries", "event_id"), ("/registry/v2/repos", "name")],
)  # fmt: skip
def test_nul_in_list_filters(server: Server, path: str, param: str) -> None:
    r = server.http.get(path, params={param: "a\x00b", "uidp.descendants_of": server.owner_org})
    assert_error(r, 400, 3, param)


def test_nul_in_a_path_variable(server: Server) -> None:
    assert_error(server.http.get(f"/iam/v2/groups/{server.owner_org}%00"), 400, 3, "uid")


def unsigned_token(**claims: Any) -> str:
    """A token nobody can verify: the exchange must refuse it from its unverified claims alone."""
    payload = {"iss": "https://issuer.example", "sub": "s", "aud": "x", "exp": int(time.time()) + 600, **claims}
    return jwt.encode(payload, "k" * 32, algorithm="HS256")


@pytest.mark.parametrize("claims", [{"sub": "a\x00b"}, {"iss": "https://issuer.example/\x00"}, {"email": "\x00@x.io"}])
def test_nul_in_unverified_token_claims_is_refused(server: Server, claims: dict[str, str]) -> None:
    with server.client(unsigned_token(**claims)) as c:
        for r in [c.get("/sts/exchange"), c.post("/sts/exchange", data={"scope": server.owner_org})]:
            assert r.status_code == 401, r.text
            assert r.json()["message"] == "Unauthenticated: token exchange refused"
        assert_error(c.post("/auth/v1/register", json={}), 401, 16)


# ------------------------------------------------------------------------------------------ timestamps


@pytest.mark.parametrize("expire", ["0642-01-17T00:00:00Z", "9999-12-31T23:59:59-05:00", "9999-12-31T00:00:00Z"])
def test_scim_token_expiry_outside_the_usual_years(server: Server, org: str, expire: str) -> None:
    idp = mk_idp(server.http, org)["uid"]
    for verb in ("generateScimToken", "regenerateScimToken"):
        r = server.http.post(f"/iam/v2/identityProviders/{idp}:{verb}", json={"expireTime": expire, "etag": "x"})
        assert_error(r, 400, 3, "expire_time")


def test_tags_updated_since_an_early_year(server: Server, org: str) -> None:
    repo = mk_repo(server.http, org, "early")["uid"]
    ok(server.http.post(f"/registry/v2/tags/{repo}", json={"name": "v1", "digest": DIGEST}))
    for since, count in [("0642-01-17T00:00:00Z", 1), ("9999-01-01T00:00:00Z", 0)]:
        listed = ok(server.http.get("/registry/v2/tags", params={"uidp.children_of": repo, "updatedSince": since}))
        assert [t["name"] for t in listed.get("tags", [])] == ["v1"] * count, since


# ------------------------------------------------------------------------------------------ gRPC input


def grpc_failure(call: Any, request: Any, metadata: Any = None) -> tuple[grpc.RpcError, status_pb2.Status]:
    """A structured gRPC failure whose message names no Python exception, its ErrorInfo reason the code's name."""
    err, st = rpc_error(call, request, metadata)
    assert "Error" not in st.message, st.message
    assert error_info(st).reason == err.code().name, st
    return err, st


def raw_call(server: Server, path: str) -> Any:
    return server.channel.unary_unary(path, request_serializer=None, response_deserializer=None)


def utf8_broken(message: Any, text: str) -> bytes:
    """The message's bytes with the UTF-8 of `text` (two bytes) replaced by bytes that are not UTF-8."""
    data = message.SerializeToString()
    encoded = text.encode()
    assert len(encoded) == 2 and data.count(encoded) == 1
    return data.replace(encoded, b"\xff\xfe")


@pytest.mark.parametrize(
    "data",
    [b"\xff\xff\xff", b"\x0a\x05ab", utf8_broken(groups_pb2.ListGroupsRequest(name="é"), "é")],
    ids=["garbage", "truncated", "invalid-utf8-string"],
)
def test_grpc_undecodable_request_is_invalid_argument(server: Server, data: bytes) -> None:
    err, _ = grpc_failure(raw_call(server, f"/{GROUPS}/ListGroups"), data)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    healthy(server)


def test_grpc_nul_in_a_string_field(server: Server) -> None:
    stub = groups_pb2_grpc.GroupsServiceStub(server.channel)
    err, st = grpc_failure(stub.ListGroups, groups_pb2.ListGroupsRequest(name="a\x00b"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert any(d.Is(error_details_pb2.BadRequest.DESCRIPTOR) for d in st.details)


def test_grpc_timestamp_outside_the_years_is_invalid_argument(server: Server, org: str) -> None:
    idp = mk_idp(server.http, org)["uid"]
    request = identity_providers_pb2.GenerateScimTokenRequest(
        identity_provider_uid=idp, expire_time=timestamp_pb2.Timestamp(seconds=-62135596801)
    )
    err, _ = grpc_failure(raw_call(server, f"/{IDPS}/GenerateScimToken"), request.SerializeToString())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT


# ------------------------------------------------------------------------------------------ duplicated credentials


def test_two_authorization_headers(server: Server) -> None:
    both = [("authorization", f"Bearer {server.token}"), ("authorization", f"Bearer {server.token}")]
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        assert_error(c.get(f"/iam/v2/groups/{server.owner_org}", headers=both), 400, 3, "authorization")
        assert_error(c.get("/sts/exchange", headers=both), 400, 3, "authorization")
        assert_error(c.post("/sts/exchange_refresh_token", headers=both), 400, 3, "authorization")
        assert_error(c.post("/auth/v1/register", json={}, headers=both), 400, 3, "authorization")
        assert ok(c.get(f"/iam/v2/groups/{server.owner_org}", headers=both[:1]))["uid"] == server.owner_org


def test_two_authorization_metadata_entries(server: Server) -> None:
    stub = groups_pb2_grpc.GroupsServiceStub(server.channel)  # the channel adds the owner's token already
    request = groups_pb2.ListGroupsRequest()
    err, _ = grpc_failure(stub.ListGroups, request, metadata=[("authorization", f"Bearer {server.token}")])
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert stub.ListGroups(request, timeout=10).total_count >= 1
