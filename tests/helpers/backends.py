"""The backend matrix: which tests run on both storage backends and which on one.

Both backends, the default: every test parametrized over `BACKENDS` outside the directories below (a new
directory is tested on both until measurement puts it here), and any test marked `both_backends`.

One backend (PostgreSQL, or the only one selected by PLATFORM_API_TEST_BACKENDS): the tests under
`ONE_BACKEND_DIRS`, and tests elsewhere marked `one_backend` (what they check happens before any SQL: say why
next to the mark). `both_backends` wins over both (a test marked so in a file marked `one_backend`).
The listed directories test the API's surface over a server; the SQL they reach runs the same on both
dialects, and the tests that run on both (unit tests, ops/, the domain directories, ctl/) reach every line and
branch of `store/` and of the SQL-owning modules that the full matrix reaches (measured with coverage.py over
the whole suite, both ways: docs, Development).

PLATFORM_API_TEST_MATRIX=full runs every test on every backend; PLATFORM_API_TEST_MATRIX=rest runs only what
the matrix leaves out (the measured run plus this one make the full matrix: how the coverage comparison is
made without running the whole suite twice).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.server import BACKENDS

# Relative to tests/. Measured, not guessed: add a directory only with the coverage comparison above.
ONE_BACKEND_DIRS = ("functional/auth", "functional/client", "functional/clients", "functional/contract",
                    "functional/hardening")  # fmt: skip
MARK, ONE_MARK = "both_backends", "one_backend"


def matrix() -> str:
    """PLATFORM_API_TEST_MATRIX: "" (the measured matrix), "full" or "rest"."""
    value = os.environ.get("PLATFORM_API_TEST_MATRIX", "")
    if value not in ("", "full", "rest"):
        raise ValueError(f"PLATFORM_API_TEST_MATRIX={value!r}: expected full or rest (or unset)")
    return value


def preferred() -> str:
    """The backend a one-backend test runs on."""
    return "postgres" if "postgres" in BACKENDS else BACKENDS[0]


def backend_of(item: pytest.Item) -> str | None:
    """The backend an item runs on when one of its fixtures is parametrized over BACKENDS; else None."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    found = [v for v in callspec.params.values() if isinstance(v, str) and v in BACKENDS]
    return found[0] if found else None


def one_backend(item: pytest.Item, root: Path) -> bool:
    """Whether the matrix runs this item on one backend only (its directory is listed or it is marked
    `one_backend`; and it is not marked `both_backends`)."""
    if item.get_closest_marker(MARK) is not None:
        return False
    if item.get_closest_marker(ONE_MARK) is not None:
        return True
    try:
        where = item.path.relative_to(root).as_posix()
    except ValueError:
        return False
    return any(where.startswith(d + "/") for d in ONE_BACKEND_DIRS)


def split_items(items: list[pytest.Item], root: Path) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(items to run, items left out). The matrix leaves out a one-backend test's runs on its other backends;
    "rest" runs only those."""
    mode = matrix()
    if mode == "full":
        return items, []
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        backend = backend_of(item)
        leave_out = backend is not None and backend != preferred() and one_backend(item, root)
        (drop if leave_out else keep).append(item)
    return (drop, keep) if mode == "rest" else (keep, drop)
