"""`platform-api <args>` and `platformctl <args>` as the tests run them: in this process by default (the entry
point with its standard streams, arguments and environment swapped in), as a completed process whatever its
exit code. An interpreter per call cost ~0.7 s, and the suite made hundreds of them (imports, bootstrap,
domains, grant, platformctl). PLATFORM_API_TEST_CLI=subprocess runs each as its own process instead; the tests
that kill, limit, time or give a terminal to a command start it themselves, and tests/functional/ops/
test_readme.py runs the installed scripts.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from platform_api import cli

# Long enough for the largest imports of the suite (thousands of documents) on a loaded machine; only a guard
# against a hang (subprocess mode), never a measure.
TIMEOUT = 300
IN_PROCESS = os.environ.get("PLATFORM_API_TEST_CLI", "in-process") != "subprocess"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`platform-api <args>`: its exit code and what it wrote on stdout and stderr."""
    return run_entry(cli.main, [sys.executable, "-m", "platform_api.cli"], "platform-api", list(args))


def run_entry(
    main: Callable[[list[str]], int | None],
    command: list[str],
    name: str,
    args: list[str],
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`main(args)` in this process, as the program `name` with environment `env` (default: this process's)
    and `stdin`; or `command + args` as a process of its own. Its exit code, stdout and stderr."""
    # Standard streams, arguments and environment are the process's: only the main thread may swap them.
    if not IN_PROCESS or _loop_running() or threading.current_thread() is not threading.main_thread():
        return subprocess.run([*command, *args], env=env, input=stdin, capture_output=True, text=True,
                              timeout=TIMEOUT)  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _swapped(sys, "argv", [name, *args]),
        _swapped(sys, "stdin", io.StringIO(stdin or "")),
        _environment(env),
    ):
        code = _exit_code(main, args)
    return subprocess.CompletedProcess([name, *args], code, out.getvalue(), err.getvalue())


def _exit_code(main: Callable[[list[str]], int | None], args: list[str]) -> int:
    """What the interpreter would exit with after `sys.exit(main(args))`: SystemExit's code (a message:
    printed, 1), 1 and the traceback for any other exception."""
    try:
        returned = main(args)
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    return returned or 0


def _loop_running() -> bool:
    """The CLI runs its work with asyncio.run, which a thread with a running loop cannot call."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@contextlib.contextmanager
def _swapped(owner: Any, name: str, value: Any) -> Iterator[None]:
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


@contextlib.contextmanager
def _environment(env: dict[str, str] | None) -> Iterator[None]:
    """os.environ as `env` for the call (unchanged when None)."""
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
