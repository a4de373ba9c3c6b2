"""The one public port (`platform-api serve --port P`): HTTP/1.1 and gRPC on the same listener.

Each accepted connection is read until its first bytes decide, then spliced byte for byte, both ways, to
one backend for its whole life:

- a connection that starts with the HTTP/2 prior-knowledge preface (`PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n`,
  what grpcio clients and Go's gRPC send on plaintext) goes to the grpc.aio listener;
- anything else (HTTP/1.1) goes to Granian.

Nothing is parsed after the decision: HTTP/2 flow control, keep-alive pings and GOAWAY stay end to end
between the client and grpcio, and the splice adds only TCP back-pressure (a side whose peer's write buffer
is full stops being read). At most 23 bytes are held while deciding; a connection that has not decided
within `front_sniff_timeout` seconds (nothing sent, or a prefix of the preface) is closed.

Limits, so that no client can hold every connection: at accept, a connection is closed at once (reset) when
`front_max_connections` are open, or when its client address (an IPv6 client: its /64, which one host
usually holds whole) has `front_max_connections_per_client` open; a spliced connection that carries no byte
either way for `idle_timeout` seconds is closed (gRPC clients reconnect by themselves). Idleness is swept a
few times per timeout rather than timed per connection, so the splice's hot path only sets a flag.

The backends see the front as their TCP peer. So that per-client-address logic in the app (the token
routes' rate limit) still tells clients apart, the front connects to a loopback backend from a source
address `127.x.y.z` derived from the client's address by a keyed hash (a fresh key per start): one client
address always maps to the same source, different ones collide with probability about 1 in 16 million.
The backends never learn the real address. (Linux only: elsewhere the backends see 127.0.0.1 for all.)

It runs as its own process (`python -m platform_api.api.front`), started by `serve` with the listening
socket already bound (so a busy port fails `serve` itself), started again when it dies, stopped by `serve` at
exit, and gone with it if `serve` dies (Linux parent-death signal): api/front_process.py. See `bench/oneport/`
for the measurements behind this design.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import hashlib
import ipaddress
import logging
import secrets
import signal
import socket
import sys
import time
from dataclasses import dataclass

from platform_api.api import fd_budget
from platform_api.core import logs, parent
from platform_api.core.settings import Settings

log = logging.getLogger(__name__)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)  # Linux; constant since 4.2
# Only Linux routes all of 127.0.0.0/8 to the loopback interface (elsewhere only 127.0.0.1 is configured).
_SOURCE_PER_CLIENT = sys.platform == "linux"
_CONNECT_RETRY = 5.0  # seconds a refused backend connection is retried (backends starting or restarting)
_GRACE = 5.0  # seconds spliced connections may finish after a stop signal
# The idle sweep runs every min(idle_timeout / 4, 5 s): an idle connection is closed that long at most after
# its idle timeout.
_SWEEPS_PER_IDLE_TIMEOUT = 4
_MAX_SWEEP_INTERVAL = 5.0
_REFUSAL_LOG_INTERVAL = 60.0  # seconds between log lines about refused connections
_V4_MAPPED = b"\0" * 10 + b"\xff\xff"


@dataclass(frozen=True)
class Backend:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        try:
            return ipaddress.ip_address(self.host).is_loopback and ":" not in self.host
        except ValueError:
            return False


def client_key(host: str) -> str:
    """What the per-client cap counts: an IPv4 address, or an IPv6 address's /64 (an IPv4-mapped one: its IPv4)."""
    if ":" not in host:
        return host
    try:
        packed = socket.inet_pton(socket.AF_INET6, host.partition("%")[0])
    except OSError:
        return host
    if packed[:12] == _V4_MAPPED:
        return socket.inet_ntop(socket.AF_INET, packed[12:])
    return socket.inet_ntop(socket.AF_INET6, packed[:8] + bytes(8)) + "/64"


def backend_of(host: str, port: int) -> Backend:
    """Where the front reaches a listener bound to `host:port` (a wildcard address is reached on loopback)."""
    host = host.strip("[]")
    return Backend("127.0.0.1" if host in ("", "0.0.0.0", "::") else host, port)


class _Pipe(asyncio.Protocol):
    """One side of a splice: what it receives is written to its peer's transport."""

    def __init__(self, peer: _Pipe | None = None) -> None:
        self.transport: asyncio.Transport | None = None
        self.peer = peer
        self.eof = False  # this side sent its EOF
        self.seen = False  # bytes arrived since the last idle sweep

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self.peer is not None:
            # Linked here, not after `await create_connection`: grpcio writes its SETTINGS the moment it
            # accepts, and bytes arriving before the link would be lost (the client would then wait forever).
            self.peer.peer = self

    def data_received(self, data: bytes) -> None:
        self.seen = True
        peer = self.peer
        if peer is not None and peer.transport is not None:
            peer.transport.write(data)

    def eof_received(self) -> bool | None:
        # Half-close: pass the EOF on and keep the other direction open; once both sides have sent theirs,
        # close both (close() still flushes what is buffered).
        self.eof = True
        peer = self.peer
        if peer is None or peer.transport is None:
            return True  # not linked yet: the connecting code passes the EOF on
        if peer.eof:
            peer.transport.close()
            return None
        if peer.transport.can_write_eof():
            peer.transport.write_eof()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None:
            peer.transport.close()

    # Back-pressure: while this side's write buffer is full, stop reading the peer that fills it.
    def pause_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()


class Front:
    """The listener's shared state: backends, limits, the source-address key, open connections."""

    def __init__(
        self,
        http: Backend,
        grpc: Backend | None,
        sniff_timeout: float = 10.0,
        max_connections: int = 10000,
        max_per_client: int = 256,
        idle_timeout: float = 300.0,
    ) -> None:
        self.http, self.grpc = http, grpc
        self.sniff_timeout = sniff_timeout
        self.max_connections = max_connections
        self.max_per_client = max_per_client
        self.idle_timeout = idle_timeout
        self.key = secrets.token_bytes(16)
        self.clients: set[_Client] = set()
        self.per_client: dict[str, int] = {}  # open connections by client_key()
        self.refused = 0  # connections closed at once because `max_connections` were open
        self.refused_per_client = 0  # ... because their client had `max_per_client` open
        self.idle_closed = 0  # spliced connections closed after `idle_timeout` without a byte
        self._sources: dict[str, str] = {}
        self._sweeping: asyncio.TimerHandle | None = None
        self._refusal_logged = -_REFUSAL_LOG_INTERVAL

    def source_for(self, client_host: str) -> str:
        """The loopback source address standing for `client_host` (never 127.0.0.1, .0 or .255 last)."""
        src = self._sources.get(client_host)
        if src is None:
            d = hashlib.blake2b(client_host.encode(), digest_size=3, key=self.key).digest()
            src = f"127.{d[0] % 255 + 1}.{d[1]}.{d[2] % 254 + 1}"
            if len(self._sources) >= 65536:
                self._sources.clear()
            self._sources[client_host] = src
        return src

    def protocol(self) -> _Client:
        return _Client(self)

    def admit(self, client: _Client, host: str) -> bool:
        """Counts `client` in, unless the front or its client address is full."""
        if len(self.clients) >= self.max_connections:
            self.refused += 1
            self._log_refusal("open connections", self.max_connections)
            return False
        key = client_key(host)
        n = self.per_client.get(key, 0)
        if n >= self.max_per_client:
            self.refused_per_client += 1
            self._log_refusal(f"connections from {key}", self.max_per_client)
            return False
        self.per_client[key] = n + 1
        client.counted_as = key
        self.clients.add(client)
        if self._sweeping is None:
            self._schedule_sweep()
        return True

    def release(self, client: _Client) -> None:
        self.clients.discard(client)
        key, client.counted_as = client.counted_as, None
        if key is not None:
            n = self.per_client[key] - 1
            if n:
                self.per_client[key] = n
            else:
                del self.per_client[key]

    def _log_refusal(self, what: str, cap: int) -> None:
        now = time.monotonic()
        if now - self._refusal_logged >= _REFUSAL_LOG_INTERVAL:
            self._refusal_logged = now
            log.warning(
                "refusing new connections: %s at the cap of %d (refused so far: %d over the total cap, %d over "
                "a client's cap)", what, cap, self.refused, self.refused_per_client,
            )  # fmt: skip

    def _schedule_sweep(self) -> None:
        interval = min(self.idle_timeout / _SWEEPS_PER_IDLE_TIMEOUT, _MAX_SWEEP_INTERVAL)
        self._sweeping = asyncio.get_running_loop().call_later(interval, lambda: self.sweep(time.monotonic()))

    def sweep(self, now: float) -> None:
        """Closes the decided connections that carried no byte either way for `idle_timeout` seconds."""
        for c in list(self.clients):
            if c.deciding:
                continue  # the sniff timeout's business
            upstream = c.peer
            if c.seen or (upstream is not None and upstream.seen):
                c.seen = False
                if upstream is not None:
                    upstream.seen = False
                c.last_active = now
            elif now - c.last_active >= self.idle_timeout:
                self.idle_closed += 1
                c.close_idle()
        self._sweeping = None
        if self.clients:
            self._schedule_sweep()


class _Client(_Pipe):
    """The public side of one connection: sniffs, connects its backend, then splices."""

    def __init__(self, front: Front) -> None:
        super().__init__()
        self.front = front
        self.buf = b""
        self.deciding = True
        self.timer: asyncio.TimerHandle | None = None
        self.counted_as: str | None = None  # its client_key() while counted in Front.per_client
        self.last_active = time.monotonic()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        t: asyncio.Transport = transport  # type: ignore[assignment]
        self.transport = t
        peer = t.get_extra_info("peername")
        if not self.front.admit(self, str(peer[0]) if peer else ""):
            t.abort()
            return
        self.timer = asyncio.get_running_loop().call_later(self.front.sniff_timeout, self._sniff_timeout)

    def close_idle(self) -> None:
        """Closes both sides: gracefully where nothing waits to be written, else at once (a reader that stalled)."""
        for pipe in (self, self.peer):
            t = pipe.transport if pipe is not None else None
            if t is not None and not t.is_closing():
                if t.get_write_buffer_size():
                    t.abort()
                else:
                    t.close()

    def _sniff_timeout(self) -> None:
        if self.deciding and self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if not self.deciding:
            if self.peer is not None:
                super().data_received(data)
            else:  # only if a transport delivers data after pause_reading(): keep it for the backend
                self.buf += data
            return
        buf = self.buf + data
        n = min(len(buf), len(PREFACE))
        if buf[:n] != PREFACE[:n]:
            target: Backend | None = self.front.http
        elif n < len(PREFACE):
            self.buf = buf  # at most 23 bytes, all of them a prefix of the preface
            return
        else:
            target = self.front.grpc
        self.buf = buf
        self.deciding = False
        self.seen = True  # the idle clock starts now
        if self.timer is not None:
            self.timer.cancel()
        assert self.transport is not None
        if target is None:  # gRPC is off (`--no-grpc`)
            self.transport.close()
            return
        self.transport.pause_reading()
        asyncio.get_running_loop().create_task(self._connect(target))

    def eof_received(self) -> bool | None:
        if self.deciding:
            return None  # closed before a decision
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.front.release(self)
        if self.timer is not None:
            self.timer.cancel()
        super().connection_lost(exc)

    async def _connect(self, target: Backend) -> None:
        loop = asyncio.get_running_loop()
        client = self.transport
        assert client is not None
        source = None
        if target.loopback and _SOURCE_PER_CLIENT:
            peer = client.get_extra_info("peername")
            source = self.front.source_for(str(peer[0]) if peer else "")
        deadline = time.monotonic() + _CONNECT_RETRY
        while True:
            sock = socket.socket(socket.AF_INET6 if ":" in target.host else socket.AF_INET, socket.SOCK_STREAM)
            try:
                sock.setblocking(False)
                if source is not None:
                    # Bind the source address only; the port is chosen at connect() by the full 4-tuple, so
                    # TIME_WAIT sockets of one source do not exhaust its ports.
                    sock.setsockopt(socket.IPPROTO_IP, _IP_BIND_ADDRESS_NO_PORT, 1)
                    sock.bind((source, 0))
                await loop.sock_connect(sock, (target.host, target.port))
                await loop.create_connection(lambda: _Pipe(self), sock=sock)
                break
            except OSError as e:
                sock.close()
                if client.is_closing():
                    return
                if e.errno == errno.ECONNREFUSED and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                    continue
                log.warning("cannot reach %s:%s: %s", target.host, target.port, e)
                client.close()
                return
        upstream = self.peer
        assert upstream is not None and upstream.transport is not None
        if client.is_closing():  # the client left while we connected
            upstream.transport.close()
            return
        upstream.transport.write(self.buf)
        self.buf = b""
        if self.eof:  # EOF seen while connecting
            upstream.transport.write_eof()
        client.resume_reading()


async def run(sock: socket.socket, front: Front) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    server = await loop.create_server(front.protocol, sock=sock)
    await stop.wait()
    server.close()  # no new connections; the spliced ones may finish while the backends stop
    for c in list(front.clients):
        if c.deciding and c.transport is not None:
            c.transport.abort()
    deadline = time.monotonic() + _GRACE
    while front.clients and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    for c in list(front.clients):
        if c.transport is not None:
            c.transport.abort()
        if c.peer is not None and c.peer.transport is not None:
            c.peer.transport.abort()


def _backend(text: str) -> Backend | None:
    if not text:
        return None
    host, _, port = text.rpartition(":")
    return Backend(host.strip("[]"), int(port))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="platform-api's public port (started by `platform-api serve --port`)")
    p.add_argument("--fd", type=int, required=True, help="listening socket inherited from serve")
    p.add_argument("--http", required=True, help="HTTP/1.1 backend host:port")
    p.add_argument("--grpc", default="", help="gRPC backend host:port (none: HTTP/2 connections are closed)")
    p.add_argument("--parent", type=int, default=0, help="pid of serve")
    ns = p.parse_args(argv)
    if ns.parent:
        parent.die_with_parent(ns.parent)
    settings = Settings.from_env()
    logs.configure(settings.log_level)
    limit = fd_budget.raise_fd_limit()
    http = _backend(ns.http)
    assert http is not None
    front = Front(
        http,
        _backend(ns.grpc),
        sniff_timeout=settings.front_sniff_timeout,
        max_connections=fd_budget.front_max_connections(limit, settings),
        max_per_client=settings.front_max_connections_per_client,
        idle_timeout=settings.idle_timeout,
    )
    sock = socket.socket(fileno=ns.fd)
    sock.setblocking(False)
    import uvloop

    uvloop.run(run(sock, front))


if __name__ == "__main__":
    main()
