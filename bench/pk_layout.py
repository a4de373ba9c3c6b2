"""The primary-key layout of the hot table, measured: `repos` as SQLite builds it today (a rowid table whose
TEXT primary key is a separate index: a key lookup walks that index, then the table by rowid) against the
same table WITHOUT ROWID (clustered on the uid: one walk, and a page of children in key order is
contiguous).

    python bench/pk_layout.py [--repos 100000] [--rounds 3]

The statements are the service's own: a GET by uid, and List(200) pages of one organization's subtree (in
uid order and in name order, as listing runs them). Prints µs per statement for each layout and the ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

TABLE = """CREATE TABLE repos (
    uid TEXT PRIMARY KEY, parent TEXT NOT NULL, name TEXT NOT NULL, create_time TEXT NOT NULL,
    update_time TEXT NOT NULL, body TEXT NOT NULL, readme TEXT NOT NULL DEFAULT '', kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, name)){suffix};
CREATE INDEX repos_name ON repos (name, uid);"""


def build(path: Path, without_rowid: bool, rows: list[tuple[str, ...]]) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(TABLE.format(suffix=" WITHOUT ROWID" if without_rowid else ""))
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO repos (uid, parent, name, create_time, update_time, body) VALUES (?,?,?,?,?,?)", rows)
    conn.execute("COMMIT")
    conn.close()
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("PRAGMA mmap_size=268435456")
    reader.execute("PRAGMA cache_size=-32768")
    return reader


def timed(fn, n: int) -> float:
    t = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - t) / n * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repos", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=3)
    ns = p.parse_args()
    org = secrets.token_hex(20)
    groups = [f"{org}/{secrets.token_hex(8)}" for _ in range(100)]
    rows = []
    for i in range(ns.repos):
        parent = org if i < ns.repos // 10 else groups[i % 100]
        uid = f"{parent}/{secrets.token_hex(8)}"
        body = f'{{"uid":"{uid}","name":"repo-{i:06d}","description":"a benchmark repository"}}'
        rows.append((uid, parent, f"repo-{i:06d}", "2026-11-27T00:00:00.000Z", "2026-11-27T00:00:00.000Z", body))
    random.shuffle(rows)  # inserted in creation order, not key order, as the service does
    uids = [r[0] for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        readers = {
            name: build(Path(tmp) / f"{name}.db", name == "without rowid", rows) for name in ("rowid", "without rowid")
        }
        lo, hi = org + "/", org + "0"
        statements = {
            "GET by uid": (
                lambda c: (
                    lambda i: c.execute(
                        "SELECT body FROM repos WHERE uid = ?", (uids[i * 7919 % len(uids)],)
                    ).fetchone()
                ),
                20000,
            ),
            "List(200) by uid": (
                lambda c: (
                    lambda i: c.execute(
                        "SELECT uid, body FROM repos WHERE uid > ? AND uid < ? ORDER BY uid LIMIT 200",
                        (lo if i % 2 else uids[i % len(uids)], hi),
                    ).fetchall()
                ),
                2000,
            ),
            "List(200) by name": (
                lambda c: (
                    lambda i: c.execute(
                        "SELECT uid, body FROM repos INDEXED BY repos_name WHERE name > ? AND uid > ? AND uid < ?"
                        " ORDER BY name, uid LIMIT 200",
                        (f"repo-{i * 37 % ns.repos:06d}", lo, hi),
                    ).fetchall()
                ),
                2000,
            ),
        }
        print(f"{ns.repos:,} repos; µs per statement, median of {ns.rounds} rounds (interleaved)")
        for label, (make, n) in statements.items():
            got: dict[str, list[float]] = {name: [] for name in readers}
            for _ in range(ns.rounds):
                for name, c in readers.items():
                    got[name].append(timed(make(c), n))
            a, b = (statistics.median(got[k]) for k in ("rowid", "without rowid"))
            print(f"  {label:18} rowid {a:8.1f}   without rowid {b:8.1f}   ratio {a / b:4.2f}x")
        for c in readers.values():
            c.close()
        sizes = {name: sum(os.path.getsize(f) for f in Path(tmp).glob(f"{name}.db*")) for name in readers}
        print("  file size: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sizes.items()))


if __name__ == "__main__":
    sys.exit(main())
