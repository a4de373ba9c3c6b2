"""A second `serve` on a port another server listens on stops at once, naming the port: Granian and gRPC
bind with SO_REUSEPORT for their workers, so it would otherwise start and take a share of the connections."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import free_port


@pytest.mark.parametrize("which", ["http", "grpc"])
def test_a_taken_port_refuses_to_start(tmp_path: Path, which: str) -> None:
    with socket.socket() as other:  # another server's listener, bound the way Granian and gRPC bind theirs
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        http_port, grpc_port = (taken, free_port()) if which == "http" else (free_port(), taken)
        database = f"sqlite:///{tmp_path / 'x.db'}"
        cmd = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--http-port",
               str(http_port), "--grpc-port", str(grpc_port), "--database", database]  # fmt: skip
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)  # gRPC listens on --host too
    assert r.returncode == 1 and f"127.0.0.1:{taken}: Address already in use" in r.stderr, r.stderr
    assert not (tmp_path / "x.db").exists()  # refused before touching its database
