"""v1 Ping (`/ping/v1/ping`, chainguard.platform.ping.PingService) over the v2 implementation: public (no
token), the v2 answer's text, over HTTP and over gRPC with the contract's messages."""

from __future__ import annotations

import grpc
import httpx

from platform_api.gen.chainguard.platform.ping.v1 import ping_pb2, ping_pb2_grpc
from tests.helpers import TIMEOUT, Server, ok


def test_ping_needs_no_token_and_answers_as_v2(anon: httpx.Client, http: httpx.Client) -> None:
    v2 = ok(anon.get("/ping/v2/ping"))
    assert ok(anon.get("/ping/v1/ping")) == v2 == {"response": "pong"}
    assert ok(http.get("/ping/v1/ping")) == v2  # a token changes nothing


def test_ping_over_grpc(server: Server) -> None:
    with grpc.insecure_channel(server.grpc_target) as channel:
        answer = ping_pb2_grpc.PingServiceStub(channel).Ping(ping_pb2.PingRequest(), timeout=TIMEOUT)
    assert answer.response == "pong"
