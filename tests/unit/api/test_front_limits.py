"""The front's connection limits (api/front.py) and the descriptor budget (api/fd_budget.py), in-process:
what the per-client cap counts, the cap at accept, the idle sweep, each listener's share of a limit, and
back pressure from a client that does not read."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from platform_api.api import fd_budget
from platform_api.api import front as fr
from platform_api.core.settings import Settings

TIMEOUT = 15


def test_client_key_counts_ipv4_hosts_and_ipv6_64s() -> None:
    assert fr.client_key("10.1.2.3") == "10.1.2.3"
    same = {fr.client_key(h) for h in ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::9", "2001:DB8:1:2:ffff::1")}
    assert same == {"2001:db8:1:2::/64"}
    assert fr.client_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert fr.client_key("::ffff:10.1.2.3") == "10.1.2.3"  # a dual-stack listener's IPv4 client
    assert fr.client_key("fe80::1%eth0") == "fe80::/64"
    assert fr.client_key("") == ""


def test_budget_keeps_a_reserve_and_splits_the_rest() -> None:
    s = Settings()
    b = fd_budget.split(10000, s)
    assert b.reserve == fd_budget.RESERVE_PROCESS + fd_budget.RESERVE_DATABASE + s.delivery_concurrency
    assert b.http == fd_budget.HTTP_MAX and b.reserve + b.http + b.grpc == 10000
    small = fd_budget.split(512, Settings(dispatcher=False))
    assert small.reserve == 144 and small.http == small.grpc == 184  # no webhooks to keep room for
    assert fd_budget.split(512, Settings(grpc_enabled=False)).grpc == 0
    tiny = fd_budget.split(50, s)
    assert tiny.http >= 1 and tiny.grpc >= 1
    assert "HTTP 1024, gRPC" in b.describe()
    assert fd_budget.split(1 << 20, s).grpc == fd_budget.GRPC_MAX  # a huge limit is not a huge gRPC share


def test_front_connections_fit_its_descriptors() -> None:
    s = Settings()
    assert fd_budget.front_max_connections(20000, s) == 9968  # two descriptors per connection, 64 kept
    assert fd_budget.front_max_connections(20000, Settings(front_max_connections=300)) == 300
    assert fd_budget.front_max_connections(10, s) == 1


async def _is_closed(reader: asyncio.StreamReader) -> bool:
    """Whether the front closed the connection (EOF or reset) within TIMEOUT."""
    try:
        return await asyncio.wait_for(reader.read(), TIMEOUT) == b""
    except ConnectionResetError:
        return True


def test_connections_over_a_clients_cap_are_refused_at_accept() -> None:
    async def go() -> None:
        async def backend(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.read()
            w.close()

        upstream = await asyncio.start_server(backend, "127.0.0.1", 0)
        f = fr.Front(fr.Backend("127.0.0.1", upstream.sockets[0].getsockname()[1]), None, max_per_client=2)
        public = await asyncio.get_running_loop().create_server(f.protocol, "127.0.0.1", 0)
        address = public.sockets[0].getsockname()[:2]
        held = [await asyncio.open_connection(*address) for _ in range(2)]
        for _, w in held:
            w.write(b"GET / HTTP/1.1\r\n")  # decided and spliced
        r3, w3 = await asyncio.open_connection(*address)
        assert await _is_closed(r3)  # the third from the same address
        assert f.refused_per_client == 1 and f.per_client == {"127.0.0.1": 2}
        held[0][1].close()
        while f.per_client.get("127.0.0.1") != 1:
            await asyncio.sleep(0.01)
        _, w4 = await asyncio.open_connection(*address)  # room again
        w4.write(b"GET / HTTP/1.1\r\n")
        await asyncio.sleep(0.2)
        assert f.per_client == {"127.0.0.1": 2} and f.refused_per_client == 1
        for w in (held[1][1], w3, w4):
            w.close()
        while f.clients:
            await asyncio.sleep(0.01)
        assert f.per_client == {}  # nothing left counted
        public.close()
        upstream.close()

    asyncio.run(go())


def test_idle_spliced_connection_is_closed_on_both_sides() -> None:
    """The backend accepts and never answers: after the idle timeout the front closes both sides."""

    async def go() -> None:
        backend_saw_eof = asyncio.Event()

        async def backend(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.read()  # until the front closes its side
            backend_saw_eof.set()
            w.close()

        upstream = await asyncio.start_server(backend, "127.0.0.1", 0)
        f = fr.Front(fr.Backend("127.0.0.1", upstream.sockets[0].getsockname()[1]), None, idle_timeout=0.5)
        public = await asyncio.get_running_loop().create_server(f.protocol, "127.0.0.1", 0)
        r, w = await asyncio.open_connection(*public.sockets[0].getsockname()[:2])
        w.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert await _is_closed(r)
        await asyncio.wait_for(backend_saw_eof.wait(), TIMEOUT)
        assert f.idle_closed == 1
        w.close()
        public.close()
        upstream.close()

    asyncio.run(go())


class _Transport:
    def __init__(self, buffered: int = 0) -> None:
        self.buffered = buffered
        self.how = ""

    def is_closing(self) -> bool:
        return bool(self.how)

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def close(self) -> None:
        self.how = "close"

    def abort(self) -> None:
        self.how = "abort"


def test_sweep_closes_only_what_carried_no_byte_for_the_timeout() -> None:
    """The sweep's rule, at given times: bytes either way since the last sweep keep a connection; silence for
    the timeout closes it (at once where a reader stalled with bytes waiting); undecided ones are left to the
    sniff timeout."""

    async def go() -> dict[str, Any]:
        f = fr.Front(fr.Backend("127.0.0.1", 1), None, idle_timeout=10)
        conns: dict[str, fr._Client] = {}
        for name in ("quiet", "client_talks", "backend_talks", "stalled_reader", "undecided"):
            c = fr._Client(f)
            c.transport = _Transport(buffered=100 if name == "stalled_reader" else 0)  # type: ignore[assignment]
            c.peer = fr._Pipe(c)
            c.peer.transport = _Transport()  # type: ignore[assignment]
            c.deciding = name == "undecided"
            c.last_active = 1000.0
            f.clients.add(c)
            conns[name] = c
        conns["client_talks"].seen = True
        f.sweep(1009.0)
        assert not any(c.transport.is_closing() for c in conns.values())  # type: ignore[union-attr]
        assert conns["backend_talks"].peer is not None
        conns["backend_talks"].peer.seen = True
        f.sweep(1011.0)  # 11 s after the last bytes of all but client_talks (2 s) and backend_talks (now)
        return {name: c.transport.how for name, c in conns.items()}  # type: ignore[union-attr]

    closed = asyncio.run(go())
    assert closed == {"quiet": "close", "client_talks": "", "backend_talks": "", "stalled_reader": "abort",
                      "undecided": ""}  # fmt: skip


def test_back_pressure_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """api/front.py alone: a backend writing 20 MB to a client that does not read for a second makes the
    front stop reading the backend (pause/resume), and every byte arrives."""
    calls = {"pause": 0, "resume": 0}
    pause, resume = fr._Pipe.pause_writing, fr._Pipe.resume_writing

    def counted_pause(self: fr._Pipe) -> None:
        calls["pause"] += 1
        pause(self)

    def counted_resume(self: fr._Pipe) -> None:
        calls["resume"] += 1
        resume(self)

    monkeypatch.setattr(fr._Pipe, "pause_writing", counted_pause)
    monkeypatch.setattr(fr._Pipe, "resume_writing", counted_resume)
    payload = os.urandom(1 << 20) * 20

    async def go() -> bytes:
        async def backend(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.readuntil(b"\r\n\r\n")
            w.write(payload)
            await w.drain()
            w.close()

        upstream = await asyncio.start_server(backend, "127.0.0.1", 0)
        f = fr.Front(fr.Backend("127.0.0.1", upstream.sockets[0].getsockname()[1]), None, sniff_timeout=5)
        public = await asyncio.get_running_loop().create_server(f.protocol, "127.0.0.1", 0)
        r, w = await asyncio.open_connection(*public.sockets[0].getsockname()[:2])
        w.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await asyncio.sleep(1)
        data = await asyncio.wait_for(r.read(), TIMEOUT)
        w.close()
        public.close()
        upstream.close()
        return data

    assert asyncio.run(go()) == payload
    assert calls["pause"] >= 1 and calls["resume"] >= 1
