"""The processes `serve` starts (Granian's workers, the `--port` front) end with it, however it ends: a worker
left behind by a killed `serve` kept answering on the port, and the `serve` a supervisor started next refused to
start on a port that was taken."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

# Set by `serve` for its worker processes: its pid.
SERVE_PID = "PLATFORM_API_SERVE_PID"


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """Linux: `sig` to this process when `parent` exits (PR_SET_PDEATHSIG); already gone: exit now."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, sig)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent was gone before prctl
        sys.exit(0)


def die_with_serve() -> None:
    """`die_with_parent` of the `serve` that started this worker, if one did. SIGKILL: a Granian worker whose
    main process is gone hung in its graceful stop (in 2 of 4 trials), holding the port for ever; a worker
    killed mid-request loses nothing acknowledged (a write is answered once committed)."""
    pid = os.environ.get(SERVE_PID, "")
    if pid.isdigit():
        die_with_parent(int(pid), signal.SIGKILL)
