"""The `--port` front's process as `serve` runs it (api/front.py is the process itself): the public socket bound
in `serve` and kept there, the front started with it and started again when it dies.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from platform_api.api import front
from platform_api.core.settings import Settings

# A restarted front that dies again this many seconds after it was restarted is not restarted: serve exits 1.
FRONT_RESTART_WITHIN = 5.0


class FrontProcess:
    """The `--port` front's process, restarted when it dies: the public socket stays open here meanwhile, so
    new connections wait in its listen queue instead of being refused. A restarted front that dies within
    FRONT_RESTART_WITHIN seconds is not restarted again: `serve` stops and exits 1 (`failed`), for its
    supervisor."""

    def __init__(self, argv: list[str], fd: int, port: int, server: Any) -> None:
        self.argv, self.fd, self.port, self.server = argv, fd, port, server
        self.stopping = False
        self.failed = False
        self.restarted = False
        self._start()
        threading.Thread(target=self._watch, name="front-watch", daemon=True).start()

    def _start(self) -> None:
        self.proc = subprocess.Popen(self.argv, pass_fds=[self.fd])
        self.started = time.monotonic()

    def _watch(self) -> None:
        while True:
            code = self.proc.wait()
            time.sleep(0.5)  # a signal to the whole process group also reaches Granian: then it is a normal stop
            if self.stopping or getattr(self.server, "interrupt_signal", False):
                return
            if self.restarted and time.monotonic() - self.started < FRONT_RESTART_WITHIN:
                print(f"platform-api: the front on port {self.port} exited ({code}) again at once; stopping",
                      file=sys.stderr)  # fmt: skip
                self.failed = True
                os.kill(os.getpid(), signal.SIGTERM)
                return
            print(f"platform-api: the front on port {self.port} exited ({code}); restarting it", file=sys.stderr)
            self.restarted = True
            self._start()

    def stop(self) -> None:
        self.stopping = True
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def not_inherited_by_workers(fd: int) -> None:
    """Granian's workers (forked from here) close `fd`, the public port: left behind, they would hold it open.
    Only in this process's own children: in a worker's child the number may be another file by then."""
    serve = os.getpid()

    def close() -> None:
        if os.getppid() == serve:
            with contextlib.suppress(OSError):
                os.close(fd)

    os.register_at_fork(after_in_child=close)


def start(settings: Settings, host: str, server: Any) -> FrontProcess:
    """Binds the public port (`host`, `settings.port`) here, so that a busy port fails `serve` at once, and hands
    it to the front's process. `server`: Granian's, whose interrupt means `serve` is stopping anyway."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, settings.port))
    except OSError as e:
        sock.close()
        sys.exit(f"platform-api serve: cannot listen on {host}:{settings.port}: {e.strerror}")
    sock.listen(1024)
    fd = sock.detach()  # kept open here for the front's life and its restarts
    not_inherited_by_workers(fd)
    http = front.backend_of(settings.http_host, settings.http_port)
    grpc = front.backend_of(settings.grpc_host, settings.grpc_port) if settings.grpc_enabled else None
    argv = [sys.executable, "-m", "platform_api.api.front", "--fd", str(fd), "--parent", str(os.getpid()),
            "--http", f"{http.host}:{http.port}", "--grpc", f"{grpc.host}:{grpc.port}" if grpc else ""]  # fmt: skip
    return FrontProcess(argv, fd, settings.port, server)
