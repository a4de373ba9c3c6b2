"""ListVulnReports' reader (vulnreports.listed) is bounded before it reads the reports: more than the v1 cap is
TooManyReports, bodies over the answer budget TooLarge, both known from the lengths alone; the roots restrict."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from platform_api.gen.records.tenant import Scanner, VulnReport
from platform_api.registry import vulnreports
from platform_api.store import db, rows
from platform_api.store.migrate import migrate
from tests.helpers import scratch_database
from tests.unit.registry.counting import Counting

ORG = "ab" * 20
REPO = ORG + "/0123456789abcdef"
DIGEST = "sha256:" + "1" * 64


async def _write(database: Any) -> int:
    """Three generations of a report on DIGEST in REPO: the length of each stored body."""
    async with database.transaction() as tx:
        for day in (1, 2, 3):
            generated = f"2026-01-0{day}T00:00:00Z"
            body = rows.body(VulnReport(scanner=Scanner(name="grype"), report_generation=generated))
            await tx.execute(
                "INSERT INTO vuln_reports (repo, digest, generated, day, raw_sha256, last_seen, body, counts, raw)"
                " VALUES ($1, $2, $3, $4, '', '', $5, '{}', $6)",
                REPO, DIGEST, generated, generated[:10], body, b"{}",
            )  # fmt: skip
    return len(body)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_listed_is_bounded_unread(backend: str, tmp_path: Path) -> None:
    async def go(url: str) -> None:
        database = await db.connect(url)
        try:
            await migrate(database)
            size = await _write(database)
            found = await vulnreports.listed(database, REPO, "", "", "", [ORG], 3, 3 * size)
            assert [f.report.report_generation for f in found] == [f"2026-01-0{d}T00:00:00Z" for d in (1, 2, 3)]
            assert await vulnreports.listed(database, "", DIGEST, "", "", ["cd" * 20], 3, 3 * size) == []
            since = await vulnreports.listed(database, "", "", "", "2026-01-02T00:00:00.500Z", None, 3, 3 * size)
            assert len(since) == 2  # to the second
            conn = Counting(database)
            with pytest.raises(vulnreports.TooManyReports) as e:
                await vulnreports.listed(conn, REPO, "", "", "", None, 2, 3 * size)  # type: ignore[arg-type]
            assert e.value.matched == 3
            with pytest.raises(vulnreports.TooLarge):
                await vulnreports.listed(conn, REPO, "", "", "", None, 3, 3 * size - 1)  # type: ignore[arg-type]
            read = [sql for sql, _ in conn.on("vuln_reports")]
            assert len(read) == 2 and all(sql.startswith("SELECT length(v.body) AS n FROM") for sql in read)
            stored, raw = await vulnreports.raw(database, DIGEST, "", [ORG]) or (None, b"")
            assert stored is not None and stored.report_generation == "2026-01-03T00:00:00Z" and raw == b"{}"
            assert await vulnreports.raw(database, DIGEST, "", ["cd" * 20]) is None
        finally:
            await database.close()

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(go(url))
