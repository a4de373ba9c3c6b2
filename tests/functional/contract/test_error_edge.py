"""One HTTP error edge: the same error answers the same way on an API route, the token exchange and the
fallback router (status, google.rpc.Status body, WWW-Authenticate, request id). The renderer's headers alone:
tests/unit/api/test_http_errors.py."""

from __future__ import annotations

import httpx

from tests.helpers import Server


def shape(r: httpx.Response) -> tuple[int, int, list[str], str, str]:
    body = r.json()
    assert set(body) == {"code", "message", "details"}, body
    info = body["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" and info["domain"], body
    assert r.headers["content-type"] == "application/json"
    return r.status_code, body["code"], sorted(body), info["reason"], info["domain"].split(".", 1)[1]


def test_unauthenticated_is_rendered_alike_on_api_and_token_exchange(server: Server) -> None:
    headers = {"authorization": "Bearer not-a-token"}
    with httpx.Client(base_url=server.base_url, timeout=30, headers=headers) as c:
        api = c.get(f"/iam/v2/groups/{server.owner_org}")
        sts = c.get("/sts/exchange")
        refresh = c.post("/sts/exchange_refresh_token")
    for r in (api, sts, refresh):
        assert shape(r) == shape(api) and r.status_code == 401, r.text
        message = r.json()["message"]
        assert r.headers["www-authenticate"] == f'Bearer error="invalid_token", error_description="{message}"'
    assert api.headers["x-request-id"]


def test_unknown_route_and_wrong_method_alike_on_every_router(server: Server) -> None:
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        api_404 = c.get("/no/such/route")
        doc_404 = c.get("/.well-known/no-such-document")
        api_501 = c.put("/iam/v2/groups/")
        sts_501 = c.put("/sts/exchange")
    assert shape(api_404) == shape(doc_404) == (404, 5, ["code", "details", "message"], "NOT_FOUND", shape(api_404)[4])
    assert api_404.json()["message"] == doc_404.json()["message"] == "Not Found"
    assert shape(api_501) == shape(sts_501)
    assert shape(api_501)[:2] == (501, 12) and sts_501.json()["message"] == "Method Not Allowed"
    for r in (api_404, doc_404, api_501, sts_501):
        assert "www-authenticate" not in r.headers
