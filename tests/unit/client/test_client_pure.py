"""The client's pure parts: requests under the HTTP rules, errors from HTTP answers, the gRPC address, the
retry policy."""

from __future__ import annotations

import json

import httpx
import pytest

from platform_api.client import Client, Repo, UIDPFilter, contract, errors
from platform_api.client.client import build_request
from platform_api.client.transport import MAX_ANSWER, HttpTransport, derive_grpc_target, http_request

ORG = "a" * 40
REPO = ORG + "/" + "b" * 16


def m(name: str) -> contract.Method:
    return contract.area_methods("registry")[name]


def test_http_requests_follow_the_rules() -> None:
    get = m("get_repo")
    assert http_request(get, build_request(get, (REPO,), {})) == ("GET", f"/registry/v2/repos/{REPO}", [], None)
    update = m("update_repo")
    req = build_request(update, (Repo(uid=REPO, description="x y"),), {"update_mask": "description"})
    assert http_request(update, req) == (
        "PATCH", f"/registry/v2/repos/{REPO}", [("updateMask", "description")], {"description": "x y"}
    )  # fmt: skip
    ls = m("list_repos")
    req = build_request(ls, (), {"uidp": UIDPFilter(descendants_of=ORG), "page_size": 5, "name": ""})
    assert http_request(ls, req) == (
        "GET", "/registry/v2/repos", [("uidp.descendantsOf", ORG), ("name", ""), ("pageSize", "5")], None
    )  # fmt: skip
    create = m("create_repo")
    verb, path, query, body = http_request(create, build_request(create, ("", {"name": "n"}), {}))
    assert (verb, path, query, body) == ("POST", "/registry/v2/repos/", [], {"name": "n"})
    # Path values are escaped (but a greedy variable keeps its slashes).
    assert http_request(get, build_request(get, ("a b?c/d",), {}))[1] == "/registry/v2/repos/a%20b%3Fc/d"


def test_request_arguments() -> None:
    create = m("create_repo")
    assert build_request(create, (ORG,), {"repo": {"name": "x"}}).repo == Repo(name="x")
    with pytest.raises(TypeError, match="twice"):
        build_request(create, (ORG,), {"parent": ORG})
    with pytest.raises(TypeError, match="at most 2"):
        build_request(create, (ORG, Repo(), 3), {})
    with pytest.raises(TypeError):
        build_request(create, (ORG, {"name": ["not", "a", "string"]}), {})
    assert build_request(create, (ORG, None), {}).repo is None  # None: not set
    c = Client("http://127.0.0.1:1", transport="http", use_login_cache=False)
    with pytest.raises(AttributeError, match="no method 'create_repository'"):
        c.registry.create_repository  # noqa: B018
    with pytest.raises(ValueError, match="transport"):
        Client("http://127.0.0.1:1", transport="carrier-pigeon")
    c.close()


def test_errors_from_http_answers() -> None:
    body = {"code": 3, "message": "Invalid argument: name: bad", "details": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_ARGUMENT", "domain": "registry.x"},
        {"@type": "type.googleapis.com/google.rpc.BadRequest",
         "fieldViolations": [{"field": "name", "description": "bad"}]},
        {"@type": "type.googleapis.com/some.Unknown", "x": 1}]}  # fmt: skip
    e = errors.from_http(400, json.dumps(body).encode())
    assert isinstance(e, errors.InvalidArgument) and e.reason == "INVALID_ARGUMENT" and e.domain == "registry.x"
    assert e.field_violations == [errors.FieldViolation("name", "bad")]
    limited = errors.from_http(429, b'{"code": 8, "message": "slow down"}', "3")
    assert isinstance(limited, errors.ResourceExhausted) and limited.retry_delay == 3.0
    retry_info = {"code": 8, "message": "m", "details": [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}]}  # fmt: skip
    assert errors.from_http(429, json.dumps(retry_info).encode(), "9").retry_delay == 1.5
    proxy = errors.from_http(502, b"<html>bad gateway</html>")
    assert isinstance(proxy, errors.Unavailable) and "bad gateway" in proxy.message
    assert isinstance(errors.from_http(404, b""), errors.NotFound)
    assert isinstance(errors.from_http(418, b'{"code": true}'), errors.ApiError)


def test_grpc_address_from_the_url() -> None:
    assert derive_grpc_target("http://localhost:8080") == ("localhost:9090", False)
    assert derive_grpc_target("http://h:8443") == ("h:8443", False)
    assert derive_grpc_target("https://api.example.com") == ("api.example.com:443", True)
    assert derive_grpc_target("http://[::1]:8080") == ("[::1]:9090", False)


def test_retry_policy() -> None:
    c = Client("http://127.0.0.1:1", transport="http", retries=2, use_login_cache=False)
    cap = errors.ResourceExhausted("too many items")  # a cap, not a rate: no delay named
    assert c._retry_delay(cap, 0) is None
    limited = errors.ResourceExhausted("slow down", http_retry_after=2)
    delay = c._retry_delay(limited, 0)
    assert delay is not None and 2 <= delay <= 2.3
    assert c._retry_delay(errors.ResourceExhausted("later", http_retry_after=60), 0) is None  # > max_retry_wait
    assert c._retry_delay(errors.Unavailable("down"), 1) is not None
    assert c._retry_delay(errors.Unavailable("down"), 2) is None  # retries spent
    c.close()


def _over(handler: object) -> Client:
    """An HTTP client whose server is `handler` (httpx's mock transport: no socket)."""
    c = Client("http://api.test", transport="http", use_login_cache=False, token="t", sleep=lambda s: None)
    assert isinstance(c.transport, HttpTransport)
    c.transport.http = httpx.Client(base_url="http://api.test", transport=httpx.MockTransport(handler))  # type: ignore[arg-type]
    return c


def test_an_oversized_answer_is_refused() -> None:
    big = b'{"response": "' + b"x" * (MAX_ANSWER + 10) + b'"}'
    with _over(lambda request: httpx.Response(200, content=big)) as c, pytest.raises(errors.Internal, match="larger"):
        c.ping.ping()


def test_a_rate_limited_answer_is_retried_after_its_delay() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        if len(seen) == 1:
            return httpx.Response(429, headers={"retry-after": "0.01"}, json={"code": 8, "message": "slow down"})
        return httpx.Response(200, json={"response": "pong"})

    with _over(handler) as c:
        assert c.ping.ping().response == "pong"
    assert seen == ["Bearer t", "Bearer t"]
