"""listing.any_of: an OR over thousands of conditions stays shallow enough for SQLite (depth limit 1,000),
which a caller with hundreds of visible roots needs."""

from __future__ import annotations

import sqlite3

from platform_api.service import listing


def test_many_conditions_run_on_sqlite_and_keep_their_meaning() -> None:
    conds = [f"x = {i}" for i in range(3000)]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x INTEGER)")
    db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in (5, 2999, 4000)])
    assert db.execute(f"SELECT x FROM t WHERE {listing.any_of(conds)} ORDER BY x").fetchall() == [(5,), (2999,)]
    flat = " OR ".join(conds)
    try:
        db.execute(f"SELECT x FROM t WHERE {flat}").fetchall()
        deep_chain_refused = False
    except sqlite3.OperationalError as e:
        deep_chain_refused = "too large" in str(e)
    assert deep_chain_refused  # why any_of exists (if SQLite ever lifts the limit, this test says so)
    assert listing.any_of(["a"]) == "a"
    assert listing.any_of(["a", "b", "c"]) == "(a OR (b OR c))"
