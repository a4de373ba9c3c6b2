"""Where the client dials gRPC when no address is set (client/discovery.py) and what the server publishes for it
(api/well_known.py): the document's shapes, and the fallbacks for servers without it or that do not answer."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from platform_api.api import well_known
from platform_api.client import contract, discovery, errors
from platform_api.core.settings import Settings


@pytest.fixture(autouse=True)
def _fresh() -> None:
    discovery.forget()


def test_the_server_publishes_its_grpc_port() -> None:
    assert well_known.document(Settings(http_port=19080, grpc_port=19090)) == {"grpc": {"port": 19090}}
    # `serve --port`: gRPC is on the port the client reached, whatever a port mapping made of its number.
    assert well_known.document(Settings(port=19000, grpc_port=41234)) == {
        "grpc": {"port": 19000, "sharesHttpPort": True}
    }
    assert well_known.document(Settings(grpc_enabled=False)) == {"grpc": None}
    assert well_known.PATH == discovery.PATH


def test_the_client_keeps_the_host_it_was_given() -> None:
    assert discovery.from_document("http://10.0.0.5:19080", {"grpc": {"port": 19090}}).target == "10.0.0.5:19090"  # type: ignore[union-attr]
    assert discovery.from_document("http://[::1]:19080", {"grpc": {"port": 9}}).target == "[::1]:9"  # type: ignore[union-attr]
    shared = discovery.from_document("http://nat.example:7000", {"grpc": {"port": 19000, "sharesHttpPort": True}})
    assert shared is not None and shared.target == "nat.example:7000"
    assert discovery.from_document("http://h", {"grpc": {"port": 1}}).target == "h:1"  # type: ignore[union-attr]
    off = discovery.from_document("http://h:1", {"grpc": None})
    assert off is not None and off.target == ""
    for bad in ([], {}, {"grpc": 5}, {"grpc": {"port": "9090"}}, {"grpc": {"port": 0}}, {"grpc": {"port": True}}):
        assert discovery.from_document("http://h:1", bad) is None, bad


def _http(handler: Callable[[httpx.Request], httpx.Response], seen: list[str]) -> httpx.Client:
    def counted(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return handler(request)

    return httpx.Client(transport=httpx.MockTransport(counted))


def test_the_document_is_read_once_per_url() -> None:
    seen: list[str] = []
    http = _http(lambda r: httpx.Response(200, json={"grpc": {"port": 19090}}), seen)
    for _ in range(3):
        found = discovery.grpc_address("http://h:19080", http)
        assert found.target == "h:19090" and found.source == "published by http://h:19080/.well-known/platform-api"
    assert seen == ["http://h:19080/.well-known/platform-api"]


def test_an_older_server_keeps_the_old_rule() -> None:
    seen: list[str] = []
    http = _http(lambda r: httpx.Response(404, json={"code": 5, "message": "not found"}), seen)
    assert discovery.grpc_address("http://h:8080", http).target == "h:9090"
    assert discovery.grpc_address("http://h:8080", http).final and len(seen) == 1


def test_a_server_that_does_not_answer_is_asked_again() -> None:
    seen: list[str] = []

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("Connection refused", request=request)

    http = _http(refused, seen)
    found = discovery.grpc_address("http://h:19080", http)
    assert found.target == "h:19080" and not found.final
    assert "whose /.well-known/platform-api did not answer: ConnectError: Connection refused" in found.source
    limited = _http(lambda r: httpx.Response(429, json={"code": 8, "message": "slow down"}), seen)
    assert not discovery.grpc_address("http://h:19080", limited).final
    assert len(seen) == 2


def test_an_https_url_is_not_asked() -> None:
    seen: list[str] = []
    found = discovery.grpc_address("https://api.example.com", _http(lambda r: httpx.Response(500), seen))
    assert (found.target, found.tls, seen) == ("api.example.com:443", True, [])


def test_a_server_without_grpc_is_named() -> None:
    http = _http(lambda r: httpx.Response(200, json={"grpc": None}), [])
    transport = discovery.DiscoveredGrpc("http://h:19080", http, "test")
    with pytest.raises(errors.Unimplemented, match=r"the server at http://h:19080 serves no gRPC .*--no-grpc"):
        transport.call(contract.methods()["chainguard.platform.ping.v2.PingService.Ping"], None, None, 1.0)
    transport.close()
