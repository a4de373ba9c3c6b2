"""Candidate a1: a per-connection byte splice on the public port (pure asyncio on uvloop).

    python splice.py --port P --http-upstream 127.0.0.1:H|unix:/path --grpc-upstream 127.0.0.1:G [--sniff preface|grpc]

Each accepted connection is read until its first bytes decide, then spliced byte for byte (both ways,
with back-pressure) to one upstream for its whole life:
- `--sniff preface` (default): the HTTP/2 prior-knowledge preface `PRI * HTTP/2.0...` -> gRPC upstream,
  anything else (HTTP/1.1, TLS ClientHello...) -> HTTP upstream.
- `--sniff grpc`: after the preface, also decode the first HEADERS frame (hpack) and send the connection to
  gRPC only if that request's content-type is application/grpc; h2c JSON then goes to the HTTP upstream.
  Still per connection: later streams on it go where the first one went.
Nothing here parses HTTP after the decision, so it adds one copy per direction and no per-request work.
"""

from __future__ import annotations

import argparse
import asyncio

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_MAX_SNIFF = 64 * 1024


def _first_headers_is_grpc(buf: bytes) -> bool | None:
    """Walk the frames after the preface; None while the first HEADERS frame is incomplete."""
    import hpack

    pos = len(PREFACE)
    while len(buf) >= pos + 9:
        length = int.from_bytes(buf[pos : pos + 3], "big")
        ftype, flags = buf[pos + 3], buf[pos + 4]
        if len(buf) < pos + 9 + length:
            return None
        payload = buf[pos + 9 : pos + 9 + length]
        if ftype == 0x1:  # HEADERS (CONTINUATION not handled: a sniff, not a parser)
            if flags & 0x8:  # PADDED
                payload = payload[1 : len(payload) - payload[0]]
            if flags & 0x20:  # PRIORITY
                payload = payload[5:]
            headers = hpack.Decoder().decode(payload, raw=True)
            return any(k == b"content-type" and v.startswith(b"application/grpc") for k, v in headers)
        pos += 9 + length
    return None


class _Pipe(asyncio.Protocol):
    """One side of a splice: what it receives is written to its peer's transport."""

    def __init__(self, peer: _Pipe | None = None) -> None:
        self.transport: asyncio.Transport | None = None
        self.peer = peer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self.peer is not None:
            # Linked here, not after `await create_connection`: a gRPC server writes its SETTINGS as soon as it
            # accepts, and bytes arriving before the link would be lost (grpcio clients then wait forever).
            self.peer.peer = self

    def data_received(self, data: bytes) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()

    def eof_received(self) -> bool | None:
        if self.peer is not None and self.peer.transport is not None and self.peer.transport.can_write_eof():
            self.peer.transport.write_eof()
            return True
        return None

    # Back-pressure: when the peer's write buffer fills, stop reading this side.
    def pause_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()


class Front(_Pipe):
    def __init__(self, http: tuple[str, int], grpc: tuple[str, int], sniff: str) -> None:
        super().__init__()
        self.http, self.grpc, self.sniff = http, grpc, sniff
        self.buf = b""
        self.deciding = True

    def data_received(self, data: bytes) -> None:
        if not self.deciding:
            super().data_received(data)
            return
        self.buf += data
        target = self._decide()
        if target is None:
            if len(self.buf) > _MAX_SNIFF and self.transport is not None:
                self.transport.close()
            return
        self.deciding = False
        assert self.transport is not None
        self.transport.pause_reading()
        asyncio.get_running_loop().create_task(self._connect(target))

    def _decide(self) -> tuple[str, int] | None:
        n = min(len(self.buf), len(PREFACE))
        if self.buf[:n] != PREFACE[:n]:
            return self.http
        if n < len(PREFACE):
            return None  # could still be the preface
        if self.sniff == "preface":
            return self.grpc
        is_grpc = _first_headers_is_grpc(self.buf)
        if is_grpc is None:
            return None
        return self.grpc if is_grpc else self.http

    async def _connect(self, target: tuple[str, int]) -> None:
        loop = asyncio.get_running_loop()
        assert self.transport is not None
        try:
            if target[0].startswith("/"):  # a Unix socket path
                _, upstream = await loop.create_unix_connection(lambda: _Pipe(self), target[0])
            else:
                _, upstream = await loop.create_connection(lambda: _Pipe(self), *target)
        except OSError:
            self.transport.close()
            return
        assert upstream.transport is not None
        if self.transport.is_closing():  # the client left while we connected
            upstream.transport.close()
            return
        upstream.transport.write(self.buf)
        self.buf = b""
        self.transport.resume_reading()


def _addr(text: str) -> tuple[str, int]:
    if text.startswith("unix:"):
        return text.removeprefix("unix:"), 0
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


async def serve(port: int, http: tuple[str, int], grpc: tuple[str, int], sniff: str, host: str) -> None:
    import socket

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Front(http, grpc, sniff), host, port, backlog=1024)
    for sock in server.sockets:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    async with server:
        await server.serve_forever()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--http-upstream", type=_addr, required=True)
    p.add_argument("--grpc-upstream", type=_addr, required=True)
    p.add_argument("--sniff", choices=("preface", "grpc"), default="preface")
    ns = p.parse_args()
    import uvloop

    uvloop.run(serve(ns.port, ns.http_upstream, ns.grpc_upstream, ns.sniff, ns.host))


if __name__ == "__main__":
    main()
