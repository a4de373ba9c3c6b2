"""Running `platformctl` as a user would, with its own config directory and environment: with pipes (scripts; in
this process, see tests/helpers/run_cli.py) or in a pseudo-terminal (a person at a terminal: the installed
script)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platform_api.ctl import main as ctl_main
from tests.helpers import Server
from tests.helpers.run_cli import run_entry

PLATFORMCTL = str(Path(sys.executable).parent / "platformctl")


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, (self.code, self.err)
        return json.loads(self.out)


class Ctl:
    """`platformctl` against one server, as one user (token in PLATFORM_API_TOKEN unless None), with a
    config directory of its own."""

    def __init__(self, server: Server, home: Path, token: str | None, transport: str = "grpc") -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PLATFORM_API_", "ACTIONS_ID_TOKEN"))}
        self.env.update({"PLATFORM_API_URL": server.base_url, "PLATFORM_API_GRPC": server.grpc_target,
                         "PLATFORM_API_TRANSPORT": transport, "XDG_CONFIG_HOME": str(home),
                         "PLATFORM_API_KUBERNETES_TOKEN_FILE": str(home / "none"), "HOME": str(home)})  # fmt: skip
        if token:
            self.env["PLATFORM_API_TOKEN"] = token
        self.home = home

    def __call__(self, *args: str, stdin: str | None = None) -> Result:
        r = run_entry(ctl_main.main, [PLATFORMCTL], "platformctl", list(args), env=self.env, stdin=stdin)
        return Result(r.returncode, r.stdout, r.stderr)

    def json(self, *args: str) -> Any:
        return self(*args, "-o", "json").json()

    def pty(
        self,
        *args: str,
        columns: int = 200,
        env: dict[str, str] | None = None,
        watch: Callable[[str], str | None] | None = None,
    ) -> tuple[int, str]:
        """Run in a pseudo-terminal (stdin, stdout and stderr): the exit code and what the terminal showed.
        `watch` sees the screen so far after each read and every 0.2 s (a person reacting to what the command
        shows); what it returns, if anything, is typed at the terminal."""
        master, slave = pty.openpty()
        env = {**self.env, "COLUMNS": str(columns), "TERM": "xterm", **(env or {})}
        proc = subprocess.Popen([PLATFORMCTL, *args], env=env, stdin=slave, stdout=slave, stderr=slave,
                                close_fds=True)  # fmt: skip
        os.close(slave)
        chunks: list[bytes] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
            # Also without new output: the person may act on what happened elsewhere (in a browser).
            typed = watch(b"".join(chunks).decode("utf-8", "replace")) if watch is not None else None
            if typed:
                os.write(master, typed.encode())
        os.close(master)
        code = proc.wait(timeout=30)
        return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
