"""A small HTTP/1.1 client for webhook POSTs: keep-alive connections per pinned target, TLS with the
sink's host name for SNI and certificate checks while connecting to the address that was checked.

Why not httpx here (the one other outbound client, auth/upstream.py's, is httpx's): for this workload it
costs far more. Measured by `python bench/webhook_client.py` (bench/README.md "Webhook client"; 4,000 POSTs
of a delivery's size to a local keep-alive receiver, median of 3 rounds, uvloop, this 2-core machine shared):

| client | concurrency 8 | concurrency 64 |
|---|---|---|
| this one | 1,400/s, 155 µs CPU each | 1,503/s, 151 µs CPU each |
| httpx.AsyncClient | 183/s, 1,427 µs | 82/s, 2,832 µs |
| httpx, with sniffio importable | 296/s, 957 µs | 137/s, 1,951 µs |

httpx's pool does work proportional to connections x queued requests on every request (it grows with
concurrency, as above), and pinning the address needs workarounds (Host header, SNI extension). A webhook
POST needs little: send one request, read the status and headers, read (at most a little of) the body, keep
the connection when allowed.
The HTTP/1.1 framing (status line, headers, chunked / length / close-delimited bodies, keep-alive) is h11's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache

import certifi
import h11

from platform_api.events.sinks import Target

IDLE_SECONDS = 5.0  # an idle connection is not reused after this (servers close idle ones)
MAX_TARGETS = 256
MAX_HEADER_BYTES = 64 * 1024
READ_BYTES = 16 * 1024


class ProtocolError(Exception):
    """The sink's answer was not HTTP/1.x."""


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0
    http: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT, MAX_HEADER_BYTES))

    def usable(self) -> bool:
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and time.monotonic() - self.idle_since < IDLE_SECONDS
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-case names; the last value of a repeated header


class Client:
    def __init__(self, connect_timeout: float, max_idle_per_target: int = 64, max_body: int = 64 * 1024) -> None:
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle_per_target
        self.max_body = max_body
        self._idle: OrderedDict[tuple[str, str, int, str], list[_Conn]] = OrderedDict()

    async def close(self) -> None:
        for conns in self._idle.values():
            for c in conns:
                c.close()
        self._idle.clear()

    def _key(self, t: Target) -> tuple[str, str, int, str]:
        return (t.scheme, t.host, t.port, t.address)

    def _take(self, t: Target) -> _Conn | None:
        conns = self._idle.get(self._key(t))
        while conns:
            c = conns.pop()
            if c.usable():
                return c
            c.close()
        return None

    def _give(self, t: Target, c: _Conn) -> None:
        key = self._key(t)
        conns = self._idle.setdefault(key, [])
        self._idle.move_to_end(key)
        if len(conns) >= self.max_idle:
            c.close()
            return
        c.idle_since = time.monotonic()
        conns.append(c)
        while len(self._idle) > MAX_TARGETS:
            _, old = self._idle.popitem(last=False)
            for o in old:
                o.close()

    async def _connect(self, t: Target) -> _Conn:
        tls = _tls() if t.scheme == "https" else None
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(t.address, t.port, ssl=tls, server_hostname=t.host if tls else None,
                                    limit=MAX_HEADER_BYTES),
            self.connect_timeout,
        )  # fmt: skip
        return _Conn(reader, writer)

    async def post(self, t: Target, headers: dict[str, str], body: bytes) -> Response:
        fields = [("host", t.host_header), ("content-length", str(len(body)))]
        for k, v in headers.items():
            if "\r" in v or "\n" in v or "\r" in k or "\n" in k:
                raise ValueError(f"header {k!r} holds a line break")
            fields.append((k, v))
        try:
            request = h11.Request(method="POST", target=t.path, headers=fields)
        except h11.LocalProtocolError as e:  # a target or header HTTP does not allow
            raise ValueError(f"request not sendable: {e}") from None
        conn = self._take(t)
        if conn is not None:
            try:
                return await self._exchange(t, conn, request, body)
            except (ConnectionError, _Closed):
                conn.close()  # the server closed the idle connection first: try once on a new one
        return await self._exchange(t, await self._connect(t), request, body)

    async def _exchange(self, t: Target, conn: _Conn, request: h11.Request, body: bytes) -> Response:
        try:
            try:
                out = conn.http.send(request) or b""
            except h11.LocalProtocolError as e:  # a header name or value HTTP does not allow
                raise ValueError(f"request not sendable: {e}") from None
            out += (conn.http.send(h11.Data(data=body)) or b"") + (conn.http.send(h11.EndOfMessage()) or b"")
            conn.writer.write(out)
            await conn.writer.drain()
            response, keep = await self._read(conn)
        except BaseException:
            conn.close()
            raise
        if keep:
            conn.http.start_next_cycle()
            self._give(t, conn)
        else:
            conn.close()
        return response

    async def _read(self, conn: _Conn) -> tuple[Response, bool]:
        """The answer's status and headers; its body skipped, up to `max_body` bytes (beyond, the connection
        is dropped rather than read). Informational answers are skipped. Keep: the connection may be reused."""
        http, received = conn.http, 0
        response: Response | None = None
        skipped = 0
        while True:
            try:
                event = http.next_event()
            except h11.RemoteProtocolError as e:
                raise ProtocolError(f"not an HTTP/1.x answer: {e}") from None
            if event is h11.NEED_DATA:
                if response is None and received >= MAX_HEADER_BYTES:
                    raise ProtocolError("response headers too large")
                data = await conn.reader.read(READ_BYTES)
                if not data and not received:
                    raise _Closed()
                received += len(data)
                http.receive_data(data)
            elif isinstance(event, h11.Response):
                headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in event.headers}
                response = Response(event.status_code, headers)
                length = headers.get("content-length", "")
                if length.isdigit() and int(length) > self.max_body:
                    return response, False  # not worth reading: drop the connection
                chunked = "chunked" in headers.get("transfer-encoding", "").lower()
                if not length and not chunked and event.status_code not in (204, 304):
                    return response, False  # the body lasts until the server closes: not waited for
            elif isinstance(event, h11.Data):
                skipped += len(event.data)
                if skipped > self.max_body:
                    assert response is not None
                    return response, False
            elif isinstance(event, h11.EndOfMessage):
                assert response is not None
                return response, http.our_state is h11.DONE and http.their_state is h11.DONE
            elif isinstance(event, h11.ConnectionClosed):
                raise ProtocolError("connection closed inside the response")
            # h11.InformationalResponse (1xx): the real answer follows


class _Closed(Exception):
    """The connection closed before any answer."""
