"""ListVulnCountReports' stored counts (up to 100,000 vulnerability ids per report, 10,000 reports per call)
are budgeted before they are read: their lengths first, then the counts only when they fit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from platform_api.registry import queries, vulnreports
from platform_api.store import db
from platform_api.store.migrate import migrate
from tests.helpers import scratch_database
from tests.unit.registry.counting import Counting

ORG = "ab" * 20
REPO = ORG + "/0123456789abcdef"


async def _write(database: Any, ids_per_report: int) -> None:
    ids = {"HIGH": [f"CVE-2024-{n:06d}" for n in range(ids_per_report)]}
    async with database.transaction() as tx:
        columns = "uid, parent, name, create_time, update_time, body"
        await tx.execute(f"INSERT INTO repos ({columns}) VALUES ($1, $2, 'img', '', '', '{{}}')", REPO, ORG)
        for day in (1, 2, 3):
            digest = f"sha256:{day:064x}"
            await queries.insert_tag(tx, REPO, f"t{day}", digest, False, 0)
            await tx.execute(
                "INSERT INTO vuln_reports (repo, digest, generated, day, raw_sha256, last_seen, body, counts, raw)"
                " VALUES ($1, $2, $3, $4, '', '', '{}', $5, $6)",
                REPO, digest, f"2026-01-0{day}T00:00:00Z", f"2026-01-0{day}", json.dumps({"size": 1, "ids": ids}),
                b"",
            )  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_counts_over_the_budget_are_refused_unread(backend: str, tmp_path: Path) -> None:
    async def go(url: str) -> None:
        database = await db.connect(url)
        try:
            await migrate(database)
            await _write(database, 1000)
            stored = len(json.dumps({"size": 1, "ids": {"HIGH": [f"CVE-2024-{n:06d}" for n in range(1000)]}}))
            found = await vulnreports.counts(database, "img", "", "", "", None, 3 * stored)
            assert [c.tag for c in found] == ["t1", "t2", "t3"] and sum(c.stored for c in found) == 3 * stored
            conn = Counting(database)
            with pytest.raises(vulnreports.TooLarge):
                await vulnreports.counts(conn, "img", "", "", "", None, 3 * stored - 1)  # type: ignore[arg-type]
            [(sql, _)] = conn.on("vuln_reports")  # only the lengths were read
            assert "length(v.counts)" in sql and "v.counts," not in sql
        finally:
            await database.close()

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(go(url))
