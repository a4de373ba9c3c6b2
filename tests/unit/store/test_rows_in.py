"""store.rows' IN-list helpers: placeholders after leading arguments, and every value read however many
statements the chunks take."""

from __future__ import annotations

import asyncio
from pathlib import Path

from platform_api.store import db, rows


def test_marks() -> None:
    assert rows.marks(3) == "$1, $2, $3"
    assert rows.marks(2, 4) == "$4, $5"
    assert [list(c) for c in rows.chunks([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]


def test_fetch_in_reads_every_chunk_after_the_leading_arguments(tmp_path: Path) -> None:
    async def go() -> list[tuple[str, int]]:
        conn = await db.connect(f"sqlite:///{tmp_path / 'x.db'}")
        try:
            await conn.execute("CREATE TABLE t (grp TEXT, n INTEGER)")
            await conn.executemany("INSERT INTO t VALUES ($1, $2)", [(g, n) for g in "ab" for n in range(1200)])
            sql = "SELECT grp, n FROM t WHERE grp = $1 AND n IN ({marks}) ORDER BY n"
            found = await rows.fetch_in(conn, sql, list(range(0, 1200, 2)), "b", size=250)
            return [(r["grp"], r["n"]) for r in found]
        finally:
            await conn.close()

    assert asyncio.run(go()) == [("b", n) for n in range(0, 1200, 2)]
