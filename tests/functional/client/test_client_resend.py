"""What the client sends again (client/retries.py), against loopback servers that count the requests they
receive: one that stalls after reading a request, one that drops the connection after reading it, and no
server at all. A request that may have been carried out is sent again only when that cannot do anything twice
(a read, a create whose key the server keeps unique); one that never left is sent again whatever it is."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import pytest

from platform_api.client import Client, DeadlineExceeded, Identity, Repo, Unavailable, errors
from platform_api.client.transport import HttpTransport, never_sent
from tests.helpers import free_port

REPO = "a" * 40 + "/" + "b" * 16
RETRIES = 2
# Each call below: (what it is, the method's python path, its arguments).
UPDATE = ("update", "registry.update_repo", (Repo(uid=REPO, description="x"), "description"))
DELETE = ("delete", "registry.delete_repo", (REPO,))
ONCE_CREATE = ("create without a unique key", "iam.create_identity", ("a" * 40, Identity(name="bot")))
UNIQUE_CREATE = ("create of a unique name", "registry.create_repo", ("a" * 40, Repo(name="nginx")))
READ = ("read", "registry.get_repo", (REPO,))
NOT_AGAIN = [UPDATE, DELETE, ONCE_CREATE]
AGAIN = [READ, UNIQUE_CREATE]


@dataclass
class Counting:
    """A loopback server, HTTP or gRPC, that reads each request, counts it, then stalls or drops it."""

    port: int
    stall: bool
    received: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def answer(self, what: str) -> None:
        self.received.append(what)
        if self.stall:
            self.release.wait(30)


class _HttpHandler(socketserver.StreamRequestHandler):
    server: _HttpServer

    def handle(self) -> None:
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            line = self.rfile.readline(65536)
            if not line:
                return
            head += line
        first, *lines = head.decode("latin-1").split("\r\n")
        length = next((int(v) for k, _, v in (x.partition(":") for x in lines) if k.lower() == "content-length"), 0)
        self.rfile.read(length)
        self.server.counting.answer(first)
        # Stalled or not, no answer: the connection closes with the request read and unanswered.


class _HttpServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    counting: Counting


def _http(stall: bool) -> Iterator[Counting]:
    server = _HttpServer(("127.0.0.1", free_port()), _HttpHandler)
    server.counting = Counting(server.server_address[1], stall)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.counting
    server.counting.release.set()
    server.shutdown()
    server.server_close()


class _GrpcHandler(grpc.GenericRpcHandler):
    def __init__(self, counting: Counting) -> None:
        self.counting = counting

    def service(self, details: Any) -> Any:
        def handle(request: bytes, context: grpc.ServicerContext) -> bytes:
            self.counting.answer(details.method)
            # grpc's own UNAVAILABLE with no status details of ours: as a connection lost after the request.
            context.abort(grpc.StatusCode.UNAVAILABLE, "the connection was lost")
            return b""

        return grpc.unary_unary_rpc_method_handler(handle)


def _grpc(stall: bool) -> Iterator[Counting]:
    server = grpc.server(futures.ThreadPoolExecutor(4), options=[("grpc.so_reuseport", 0)])
    counting = Counting(free_port(), stall)
    server.add_generic_rpc_handlers([_GrpcHandler(counting)])
    server.add_insecure_port(f"127.0.0.1:{counting.port}")
    server.start()
    yield counting
    counting.release.set()
    server.stop(0)


@pytest.fixture(params=["grpc", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["stalls", "drops"])
def server(request: pytest.FixtureRequest, transport: str) -> Iterator[Counting]:
    yield from (_grpc if transport == "grpc" else _http)(request.param == "stalls")


def _client(port: int, transport: str, slept: list[float]) -> Client:
    url = f"http://127.0.0.1:{port}"
    return Client(url, grpc=f"127.0.0.1:{port}", transport=transport, token="t", timeout=0.5, retries=RETRIES,
                  sleep=slept.append, use_login_cache=False)  # fmt: skip


def _call(c: Client, path: str, args: tuple[Any, ...]) -> Any:
    area, method = path.split(".")
    return getattr(getattr(c, area), method)(*args)


@pytest.mark.parametrize(("what", "path", "args"), NOT_AGAIN, ids=[x[0] for x in NOT_AGAIN])
def test_a_request_that_may_have_been_carried_out_is_not_sent_again(
    server: Counting, transport: str, what: str, path: str, args: tuple[Any, ...]
) -> None:
    slept: list[float] = []
    with _client(server.port, transport, slept) as c, pytest.raises((Unavailable, DeadlineExceeded)) as e:
        _call(c, path, args)
    assert len(server.received) == 1, server.received
    assert slept == []
    assert e.value.request_sent


@pytest.mark.parametrize(("what", "path", "args"), AGAIN, ids=[x[0] for x in AGAIN])
def test_a_read_or_a_unique_create_is_sent_again(
    server: Counting, transport: str, what: str, path: str, args: tuple[Any, ...]
) -> None:
    slept: list[float] = []
    with _client(server.port, transport, slept) as c, pytest.raises((Unavailable, DeadlineExceeded)) as e:
        _call(c, path, args)
    if isinstance(e.value, DeadlineExceeded):
        # A gRPC call past its deadline is not tried again (the caller's timeout is the whole call's).
        assert transport == "grpc" and server.stall and len(server.received) == 1
    else:
        assert len(server.received) == RETRIES + 1, server.received
        assert len(slept) == RETRIES


@pytest.mark.parametrize(("what", "path", "args"), NOT_AGAIN + AGAIN, ids=[x[0] for x in NOT_AGAIN + AGAIN])
def test_a_request_that_never_left_is_sent_again(transport: str, what: str, path: str, args: tuple[Any, ...]) -> None:
    slept: list[float] = []
    with _client(free_port(), transport, slept) as c, pytest.raises(Unavailable) as e:  # nothing listens there
        _call(c, path, args)
    assert not e.value.request_sent
    assert len(slept) == RETRIES


def test_grpcs_words_for_a_call_never_sent() -> None:
    # As grpc 1.85 words them (seen against a closed port, a peer resetting the handshake, an unknown name).
    assert never_sent(
        "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: "
        "Failed to connect to remote host: Connection refused"
    )
    assert never_sent("failed to connect to all addresses; last error: UNAVAILABLE: ipv4:127.0.0.1:2: Socket closed")
    assert never_sent("errors resolving nope.invalid:9090: [field:hostname lookup error:address lookup failed]")
    assert never_sent("DNS resolution failed for nope.invalid:9090")
    assert not never_sent("Cancelling all calls")  # the server went away with the call on it
    assert not never_sent("Socket closed")


def test_a_server_answer_that_did_nothing_is_sent_again() -> None:
    """A 503 whose reason says nothing was done is tried again whatever the method; COMMIT_OUTCOME_UNKNOWN is
    not, except for a read or a unique create (httpx's mock transport: no socket)."""
    for reason, again in (("NOTHING_STORED", True), ("UNAVAILABLE", True), ("COMMIT_OUTCOME_UNKNOWN", False)):
        answers: list[str] = []

        def handler(request: httpx.Request, reason: str = reason, answers: list[str] = answers) -> httpx.Response:
            answers.append(request.method)
            info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "x"}
            return httpx.Response(503, json={"code": 14, "message": "down", "details": [info]})

        c = Client("http://api.test", transport="http", token="t", retries=RETRIES, sleep=lambda s: None,
                   use_login_cache=False)  # fmt: skip
        assert isinstance(c.transport, HttpTransport)
        c.transport.http = httpx.Client(base_url="http://api.test", transport=httpx.MockTransport(handler))
        with c, pytest.raises(errors.Unavailable):
            c.registry.update_repo(Repo(uid=REPO, description="x"), "description")
        assert len(answers) == (RETRIES + 1 if again else 1), (reason, answers)
