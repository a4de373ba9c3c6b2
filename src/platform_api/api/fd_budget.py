"""The open-files budget of a serving process: how many connections each listener may hold at once.

Every accepted connection is one descriptor in the process that accepted it, and a process that has run out
of descriptors can accept nothing, on any port (nor open a database file or a webhook connection). The HTTP
and gRPC listeners run in the same worker process, so each gets a share of its limit, after a reserve for the
process itself (imports, logs, event loop, database files, the metrics files: about 45 at rest), its database
connections and its outbound webhooks:

- HTTP: Granian's `backpressure` (it accepts no more connections than that per worker; the rest wait in the
  kernel's listen queue, holding no descriptor), at most Granian's own default of 1024;
- gRPC: `grpc.max_allowed_incoming_connections` (grpc core closes the connections above it at once), the rest,
  at most GRPC_MAX.

The front (`serve --port`) is a process of its own: two descriptors per spliced connection.
"""

from __future__ import annotations

import contextlib
import resource
from dataclasses import dataclass

from platform_api.core.settings import Settings

RESERVE_PROCESS = 128  # the process's own descriptors (about 45 measured at rest), with room to spare
RESERVE_DATABASE = 16  # PostgreSQL's pool (10) and its LISTEN connection, or SQLite's files
HTTP_MAX = 1024  # Granian's default backpressure with one worker: more than that queue in the kernel
# gRPC connections per worker, however many descriptors there are: each holds grpc core's buffers (tens of KB),
# so a very high hard limit must not turn into hundreds of thousands of them (the front's ceiling too).
GRPC_MAX = 10_000
FRONT_RESERVE = 64  # the front process's own descriptors


@dataclass(frozen=True)
class Budget:
    """Connections per worker process for each listener, from its open-files limit."""

    limit: int
    reserve: int
    http: int
    grpc: int  # 0 when gRPC is off

    def describe(self) -> str:
        grpc = f", gRPC {self.grpc}" if self.grpc else ""
        return (
            f"open files {self.limit} per process: connections per worker HTTP {self.http}{grpc}; "
            f"{self.reserve} kept for the database, webhooks and the process"
        )


def split(limit: int, settings: Settings) -> Budget:
    """Each listener's share of `limit` descriptors (at least one connection each, however small the limit)."""
    reserve = RESERVE_PROCESS + RESERVE_DATABASE + (settings.delivery_concurrency if settings.dispatcher else 0)
    free = max(2, limit - reserve)
    if not settings.grpc_enabled:
        return Budget(limit, reserve, min(HTTP_MAX, free), 0)
    http = min(HTTP_MAX, free // 2)
    return Budget(limit, reserve, http, min(GRPC_MAX, free - http))


def front_max_connections(limit: int, settings: Settings) -> int:
    """Connections the front may hold: its setting, within its own process's descriptors (two each)."""
    return max(1, min(settings.front_max_connections, (limit - FRONT_RESERVE) // 2))


def raise_fd_limit() -> int:
    """Raises the soft open-files limit to the hard one (inherited by the processes started after); the new soft
    limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return _count(soft)


def current(settings: Settings) -> Budget:
    """The budget of this process, under its soft limit as it stands."""
    return split(_count(resource.getrlimit(resource.RLIMIT_NOFILE)[0]), settings)


def _count(limit: int) -> int:
    return 1 << 20 if limit == resource.RLIM_INFINITY else int(limit)
