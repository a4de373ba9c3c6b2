"""advisory_queries in process on SQLite: stable uids, the stored facts, and `aliases_of` (the join key the
OSV severities use)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from platform_api.formats import advisory_yaml as fmt
from platform_api.store import db
from platform_api.store.migrate import migrate
from platform_api.vulnerabilities import advisory_queries as q

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories"
GROUP = "ab" * 20


def test_write_and_aliases_of(tmp_path: Path) -> None:
    doc = fmt.parse("crane", (DATA / "crane.advisories.yaml").read_bytes())
    built = [q.build(GROUP, doc.package, a) for a in doc.advisories]
    assert built[0].record.uid == q.advisory_uid(GROUP, "crane", "CGA-2fq3-jx6r-8w4c")
    assert q.build(GROUP, doc.package, doc.advisories[0]).record.uid == built[0].record.uid  # stable
    assert built[0].latest_event_type == 3 and built[1].latest_event_type == 4  # fixed, false positive
    assert built[0].search == "crane\ngithub.com/docker/distribution\ncve-2023-2253\nghsa-hqxw-f8mx-cpmw"

    async def go() -> None:
        database = await db.connect(f"sqlite:///{tmp_path / 'a.db'}")
        try:
            await migrate(database)
            async with database.transaction() as tx:
                await q.write(tx, GROUP, built, [], "2026-01-01T00:00:00.000Z")
            assert await q.digests(database, GROUP) == {r.record.uid: r.digest for r in built}
            got = await q.aliases_of(database, [r.record.uid for r in built] + [GROUP + "/0000000000000000"])
            assert got[built[0].record.uid] == ["CVE-2023-2253", "GHSA-hqxw-f8mx-cpmw"]
            assert got[built[2].record.uid] == ["CVE-2022-41723"]
            assert got[GROUP + "/0000000000000000"] == []
            n = await database.fetchval("SELECT n FROM child_counts WHERE tbl = 'advisories' AND parent = $1", GROUP)
            assert n == 3
        finally:
            await database.close()

    asyncio.run(go())
