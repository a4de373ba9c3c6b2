"""A TCP proxy on loopback in front of the shared PostgreSQL that a test cuts, so that a server under test sees an
outage or a connection lost at a chosen moment while the shared PostgreSQL (which other tests use) stays up.

- `down()` closes every proxied connection and stops listening (new connections are refused), `up()` listens again
  on the same port: "PostgreSQL unreachable for N seconds".
- `cut_at_commit(text)`: the next COMMIT of a transaction that ran a statement containing `text` reaches PostgreSQL;
  its answer is dropped and the connection closed once PostgreSQL has answered (committed, never acknowledged).
- `cut_at_statement(text)`: the connection is closed instead of forwarding the next statement containing `text`
  (lost inside its transaction: nothing stored).

It reads the frontend protocol's framing (the startup packet, then typed messages) to find statements: simple
`Query` texts, `Parse` texts and the statement names `Bind` refers to (asyncpg prepares each text once per
connection, then binds it by name).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

_READY = b"Z\x00\x00\x00\x05"  # ReadyForQuery: what PostgreSQL sends last in its answer to a COMMIT
_SPECIAL_REQUESTS = (80877103, 80877104)  # SSLRequest, GSSENCRequest: answered with one byte, then the startup


@dataclass
class _Cut:
    text: str
    at_commit: bool
    done: threading.Event = field(default_factory=threading.Event)


@dataclass(eq=False)
class _Pair:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    statements: dict[str, str] = field(default_factory=dict)  # prepared statement name -> its text
    matched: bool = False  # the open transaction ran a statement holding the armed cut's text
    swallow: bool = False  # the armed COMMIT was forwarded: drop PostgreSQL's answer, then close

    def close(self) -> None:
        for w in (self.client, self.server):
            with contextlib.suppress(Exception):
                w.transport.abort()


class PgProxy:
    def __init__(self, upstream: tuple[str, int] = ("127.0.0.1", 5432)) -> None:
        self.upstream = upstream
        self.port = 0
        self._pairs: set[_Pair] = set()
        self._cut: _Cut | None = None
        self._listener: asyncio.Server | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pgproxy", daemon=True)
        self._thread.start()
        self.up()

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=30)

    def up(self) -> None:
        async def listen() -> None:
            self._listener = await asyncio.start_server(self._accept, "127.0.0.1", self.port, reuse_address=True)
            self.port = self._listener.sockets[0].getsockname()[1]

        self._call(listen())

    def down(self) -> None:
        async def stop() -> None:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            for pair in list(self._pairs):
                pair.close()
            self._pairs.clear()

        self._call(stop())

    def cut_at_commit(self, text: str) -> threading.Event:
        """Arm the cut (see the module docstring); the event is set once it happened."""
        self._cut = _Cut(text, at_commit=True)
        return self._cut.done

    def cut_at_statement(self, text: str) -> threading.Event:
        self._cut = _Cut(text, at_commit=False)
        return self._cut.done

    def close(self) -> None:
        self.down()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    # ------------------------------------------------------------------ the proxying

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        pair = _Pair(writer, up_writer)
        self._pairs.add(pair)
        pumps = [asyncio.ensure_future(p) for p in (self._frontend(reader, pair), self._backend(up_reader, pair))]
        try:  # either side closing (a client's Terminate, PostgreSQL ending a backend) closes both
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            pair.close()
            self._pairs.discard(pair)
            for p in pumps:
                p.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    async def _frontend(self, reader: asyncio.StreamReader, pair: _Pair) -> None:
        """Client to PostgreSQL, message by message."""
        while True:  # untyped packets until the startup message (after an SSL/GSS request, another follows)
            head = await reader.readexactly(8)
            length, code = struct.unpack("!ii", head)
            rest = await reader.readexactly(length - 8)
            pair.server.write(head + rest)
            if code not in _SPECIAL_REQUESTS:
                break
        while True:
            kind = await reader.readexactly(1)
            (length,) = struct.unpack("!i", await reader.readexactly(4))
            body = await reader.readexactly(length - 4)
            message = kind + struct.pack("!i", length) + body
            cut = self._cut
            if self._at_armed_commit(pair, kind, body):
                assert cut is not None
                self._cut = None
                if not cut.at_commit:
                    cut.done.set()
                    pair.close()
                    return
                pair.swallow = True
                pair.server.write(message)
                await pair.server.drain()
                cut.done.set()
                continue
            pair.server.write(message)
            await pair.server.drain()

    def _at_armed_commit(self, pair: _Pair, kind: bytes, body: bytes) -> bool:
        """Whether this message is where the armed cut happens: its COMMIT, or its statement (statements are
        tracked either way)."""
        text = ""
        if kind == b"Q":
            text = body.rstrip(b"\x00").decode("utf-8", "replace")
            verb = text.strip().rstrip(";").strip().upper()
            if verb in ("BEGIN", "COMMIT", "ROLLBACK"):
                matched, pair.matched = pair.matched, False
                return verb == "COMMIT" and matched and self._cut is not None
        elif kind == b"P":
            name, query, _ = body.split(b"\x00", 2)
            text = pair.statements[name.decode()] = query.decode("utf-8", "replace")
        elif kind == b"B":
            _, statement, _ = body.split(b"\x00", 2)
            text = pair.statements.get(statement.decode(), "")
        if self._cut is not None and self._cut.text in text:
            pair.matched = True
            return not self._cut.at_commit  # cut at this statement
        return False

    async def _backend(self, reader: asyncio.StreamReader, pair: _Pair) -> None:
        """PostgreSQL to client, as it comes (dropped once the armed COMMIT went out, until its answer ends)."""
        swallowed = b""
        while True:
            data = await reader.read(65536)
            if not data:
                return
            if pair.swallow:
                swallowed += data
                if _READY in swallowed:  # committed: the client never hears it
                    pair.close()
                    return
                continue
            pair.client.write(data)
            await pair.client.drain()
