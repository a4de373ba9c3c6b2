"""The dispatcher's HTTP/1.1 client against scripted servers on loopback: keep-alive and its loss, chunked
and close-delimited bodies, informational answers, and TLS to a pinned address with the sink's name
checked against the certificate."""

from __future__ import annotations

import asyncio
import datetime
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from platform_api.events import webhook_http
from platform_api.events.sinks import Target

Script = Callable[[int, bytes], bytes]  # (request number on this connection, request head) -> raw answer


async def serve(answer: Script, tls: ssl.SSLContext | None = None) -> tuple[asyncio.Server, int, list[int]]:
    """A server that answers each request on a connection with `answer`; counts connections."""
    connections: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        n = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)  # fmt: skip
                await reader.readexactly(length)
                n += 1
                out = answer(n, head)
                writer.write(out)
                await writer.drain()
                if b"connection: close" in out.lower() or not out:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=tls)
    return server, server.sockets[0].getsockname()[1], connections


def target(port: int, scheme: str = "http", host: str = "127.0.0.1") -> Target:
    return Target(scheme, host, port, "/hook", "127.0.0.1")


def run(coro: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro())


def test_keep_alive_reuses_one_connection() -> None:
    async def go() -> None:
        server, port, conns = await serve(lambda n, h: b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
        client = webhook_http.Client(1.0)
        for _ in range(5):
            r = await client.post(target(port), {"ce-id": "x"}, b"{}")
            assert r.status == 200
        assert len(conns) == 1
        await client.close()
        server.close()

    run(go)


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.0 200 OK\r\n\r\nbody until close",
        b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nx",
    ],
)
def test_answer_shapes(answer: bytes) -> None:
    async def go() -> None:
        server, port, _ = await serve(lambda n, h: answer)
        client = webhook_http.Client(1.0)
        for _ in range(2):
            assert (await client.post(target(port), {}, b"{}")).status in (200, 204)
        await client.close()
        server.close()

    run(go)


def test_server_closing_an_idle_connection_is_survived() -> None:
    async def go() -> None:
        # The first connection answers once and then closes without saying so.
        def answer(n: int, head: bytes) -> bytes:
            return b"HTTP/1.1 503 Busy\r\nretry-after: 7\r\ncontent-length: 0\r\n\r\n" if n == 1 else b""

        server, port, conns = await serve(answer)
        client = webhook_http.Client(1.0)
        r = await client.post(target(port), {}, b"{}")
        assert r.status == 503 and r.headers["retry-after"] == "7"
        await asyncio.sleep(0.05)
        assert (await client.post(target(port), {}, b"{}")).status == 503
        assert len(conns) == 2
        await client.close()
        server.close()

    run(go)


def test_garbage_is_a_protocol_error() -> None:
    async def go() -> None:
        server, port, _ = await serve(lambda n, h: b"SSH-2.0-OpenSSH\r\n\r\n")
        client = webhook_http.Client(1.0)
        with pytest.raises(webhook_http.ProtocolError):
            await client.post(target(port), {}, b"{}")
        with pytest.raises(ValueError):
            await client.post(target(port), {"x": "a\r\nInjected: 1"}, b"{}")
        await client.close()
        server.close()

    run(go)


def _self_signed(tmp: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))  # fmt: skip
    return cert_path, key_path


def test_tls_checks_the_sink_name_on_the_pinned_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = _self_signed(tmp_path, "hooks.example")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)

    async def go() -> None:
        server, port, _ = await serve(lambda n, h: b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", server_tls)
        client = webhook_http.Client(2.0)
        # Not trusted: refused.
        with pytest.raises(ssl.SSLCertVerificationError):
            await client.post(target(port, "https", "hooks.example"), {}, b"{}")
        # Trusted, and the name matches although the connection goes to 127.0.0.1.
        trusting = ssl.create_default_context(cafile=str(cert))
        monkeypatch.setattr(webhook_http, "_tls", lambda: trusting)
        assert (await client.post(target(port, "https", "hooks.example"), {}, b"{}")).status == 200
        # Another name on the same address: the certificate does not cover it.
        with pytest.raises(ssl.SSLCertVerificationError):
            await client.post(target(port, "https", "other.example"), {}, b"{}")
        await client.close()
        server.close()

    run(go)


@pytest.mark.parametrize(
    ("answer", "status", "reused"),
    [
        (b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", 200, True),
        (
            b"HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n2;x=1\r\nab\r\n1\r\nc\r\n0\r\nx-t: 1\r\n\r\n",
            201,
            True,
        ),
        (b"HTTP/1.1 410 Gone\r\nX-Twice: 1\r\nx-twice: 2\r\ncontent-length: 0\r\n\r\n", 410, True),
        # Bodies over max_body (16 bytes here) are not read: the connection is dropped instead.
        (b"HTTP/1.1 200 OK\r\ncontent-length: 17\r\n\r\n" + b"x" * 17, 200, False),
        (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n11\r\n" + b"x" * 17 + b"\r\n0\r\n\r\n", 200, False),
    ],
)
def test_bodies_and_their_limits(answer: bytes, status: int, reused: bool) -> None:
    async def go() -> None:
        server, port, conns = await serve(lambda n, h: answer)
        client = webhook_http.Client(1.0, max_body=16)
        for _ in range(3):
            r = await client.post(target(port), {"ce-id": "x"}, b"{}")
            assert r.status == status
        if status == 410:
            assert r.headers["x-twice"] == "2"  # lower-case names, the last value of a repeated header
        assert len(conns) == (1 if reused else 3)
        await client.close()
        server.close()

    run(go)


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 abc OK\r\ncontent-length: 0\r\n\r\n",
        b"HTTP/2 200\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nbroken header line\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nab",  # closed inside the body
        b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * (70 * 1024) + b"\r\n\r\n",
    ],
)
def test_malformed_answers_are_protocol_errors(answer: bytes) -> None:
    async def go() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(answer)
            await writer.drain()
            writer.close()

        closing = await asyncio.start_server(handle, "127.0.0.1", 0)
        client = webhook_http.Client(1.0)
        with pytest.raises(webhook_http.ProtocolError):
            await client.post(target(closing.sockets[0].getsockname()[1]), {}, b"")
        await client.close()
        closing.close()

    run(go)
