"""What the suite itself does at a run's start (README: Development): the port range it takes from
PLATFORM_API_TEST_PORTS, the sweep of the PostgreSQL databases that runs stopped midway left behind, and the
stop with the install command when the console's browser tests are selected and chromium is missing."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest

from tests.helpers import BACKENDS, PG_ADMIN, browser, pg_execute
from tests.helpers.pgruns import RUN, RunLock, _live_runs, start_of_run, sweep
from tests.helpers.server import free_port, port_range


def test_the_port_range_setting() -> None:
    assert port_range("20000-30000") == range(20000, 30001)
    assert port_range(" 40000 - 40100 ") == range(40000, 40101)
    for bad in ("", "20000", "30000-20000", "20000-20000", "80-1000", "60000-70000", "a-b", "20000:30000", "-5-9"):
        with pytest.raises(ValueError, match=r"PLATFORM_API_TEST_PORTS=.*expected LOW-HIGH"):
            port_range(bad)


def test_free_ports_come_from_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLATFORM_API_TEST_PORTS", "41000-41009")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert {free_port() for _ in range(50)} <= {41001, 41003, 41005, 41007, 41009}  # its residue only
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert {free_port() for _ in range(50)} <= set(range(41000, 41010))
    monkeypatch.setenv("PLATFORM_API_TEST_PORTS", "41000-41001")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "4")
    with pytest.raises(ValueError, match="too few ports for 4 processes"):
        free_port()


def test_a_run_of_the_console_tests_stops_without_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[1]
    monkeypatch.setattr(browser, "chromium_path", lambda: None)
    for selected in ([], ["tests"], ["tests/functional"], ["tests/functional/console/test_console_login.py::t"]):
        assert "apt-get install -y chromium" in (browser.stop_reason(selected, root) or ""), selected
    for selected in (["tests/functional/registry"], ["tests/unit", "-x"]):
        assert browser.stop_reason(selected, root) is None, selected
    monkeypatch.setattr(browser, "chromium_path", lambda: "/usr/bin/chromium")
    assert browser.stop_reason([], root) is None


def _databases() -> set[str]:
    async def go() -> set[str]:
        import asyncpg

        conn = await asyncpg.connect(PG_ADMIN)
        try:
            return {r["datname"] for r in await conn.fetch("SELECT datname FROM pg_database")}
        finally:
            await conn.close()

    return asyncio.run(go())


@pytest.mark.skipif("postgres" not in BACKENDS, reason="postgres not selected")
def test_the_sweep_drops_the_databases_of_runs_that_are_over_only() -> None:
    """A database of a run whose process is gone goes; one of a live run (its lock held: another terminal, or
    this run), and one named otherwise, stay."""

    async def live() -> set[int]:
        import asyncpg

        conn = await asyncpg.connect(PG_ADMIN)
        try:
            return await _live_runs(conn)
        finally:
            await conn.close()

    other_run = 1 + secrets.randbelow(2**31 - 1)
    dead_run = next(r for r in iter(lambda: 1 + secrets.randbelow(2**31 - 1), 0) if r not in {other_run, RUN})
    suffix = secrets.token_hex(4)
    dead, other, ours, unnamed = (
        f"pa_test_r{dead_run}_{suffix}",
        f"pa_unit_r{other_run}_{suffix}",
        f"pa_test_r{RUN}_{suffix}",
        f"pa_test_{suffix}",
    )
    lock = RunLock(PG_ADMIN, run=other_run)
    lock.acquire()
    try:
        assert other_run in asyncio.run(live())
        for name in (dead, other, ours, unnamed):
            pg_execute(f"CREATE DATABASE {name}")
        dropped = asyncio.run(sweep(PG_ADMIN))
        assert dead in dropped and {other, ours, unnamed}.isdisjoint(dropped)
        assert {other, ours, unnamed} <= _databases() and dead not in _databases()
    finally:
        lock.release()
        for name in (dead, other, ours, unnamed):
            pg_execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    assert other_run not in asyncio.run(live())  # released with its connection


def test_an_unreachable_postgresql_is_no_error_at_the_start() -> None:
    assert start_of_run("postgresql://postgres@127.0.0.1:1/test") is None
