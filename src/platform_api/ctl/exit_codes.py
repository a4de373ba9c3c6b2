"""The exit codes of both command lines, `platformctl` and `platform-api`: one table (TABLE), by error class,
stable for scripts. An API error (the server's answer to platformctl; the service's own error in a platform-api
command that works on the database) exits with the code of its gRPC status (for_status); the CLIs' own
refusals name their class. Both CLIs' `--help` ends with the table (epilog)."""

from __future__ import annotations

import textwrap

from google.rpc import code_pb2

OK, GENERIC, USAGE, UNAUTHENTICATED, DENIED, NOT_FOUND, CONFLICT, INVALID, UNAVAILABLE, PARTIAL = range(10)
INTERRUPTED = 130
TABLE: tuple[tuple[int, str], ...] = (
    (OK, "success"),
    (GENERIC, "any other error (UNIMPLEMENTED, INTERNAL, an unreadable config file, a refused domain command, ...)"),
    (USAGE, "usage: unknown command or flag, a missing argument or a refused flag value, nothing to update"),
    (UNAUTHENTICATED, "UNAUTHENTICATED: no token, or the server refused it"),
    (DENIED, "PERMISSION_DENIED"),
    (NOT_FOUND, "NOT_FOUND (also: no resource or group of that name)"),
    (CONFLICT, "ALREADY_EXISTS, ABORTED, FAILED_PRECONDITION"),
    (INVALID, "INVALID_ARGUMENT, OUT_OF_RANGE, an ambiguous name, an import's input refused (nothing applied)"),
    (UNAVAILABLE, "UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED (after retries), a database not opened"),
    (PARTIAL, "partly done: an import rejected some units and applied the rest (its summary says which)"),
    (INTERRUPTED, "interrupted (Ctrl-C)"),
)
_BY_STATUS = {
    code_pb2.UNAUTHENTICATED: UNAUTHENTICATED,
    code_pb2.PERMISSION_DENIED: DENIED,
    code_pb2.NOT_FOUND: NOT_FOUND,
    code_pb2.ALREADY_EXISTS: CONFLICT,
    code_pb2.ABORTED: CONFLICT,
    code_pb2.FAILED_PRECONDITION: CONFLICT,
    code_pb2.INVALID_ARGUMENT: INVALID,
    code_pb2.OUT_OF_RANGE: INVALID,
    code_pb2.UNAVAILABLE: UNAVAILABLE,
    code_pb2.RESOURCE_EXHAUSTED: UNAVAILABLE,
    code_pb2.DEADLINE_EXCEEDED: UNAVAILABLE,
}


def for_status(status: int) -> int:
    """The exit code of an error with gRPC status code `status`."""
    return _BY_STATUS.get(status, GENERIC)


def epilog() -> str:
    """The table as the end of a `--help`."""
    lines = [textwrap.fill(f"{code:<4} {text}", 116, initial_indent="  ", subsequent_indent=" " * 7)
             for code, text in TABLE]  # fmt: skip
    return "exit codes:\n" + "\n".join(lines)
