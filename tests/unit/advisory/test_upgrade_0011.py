"""Migration 0011 on a database written before it (both backends): the feed's stored documents become one
row per advisory with the CVE index, and vulnerability metadata rows get their sizes, so that what was
imported before the upgrade answers exactly as it did."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgspec
import pytest

from platform_api.advisory import documents
from platform_api.advisory import metadata as metadata_api
from platform_api.core.settings import Settings
from platform_api.gen.records.advisory_v2 import (
    Document,
    DocumentAdvisory,
    DocumentEvent,
    Fixed,
    FixNotPlanned,
    ListDocumentsRequest,
    ListVulnerabilityMetadataRequest,
    VulnerabilityMetadata,
)
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db as store
from platform_api.store import rows
from platform_api.store.migrate import migrate, migrations
from tests.helpers import scratch_database

NOW = "2024-05-01T00:00:00.000Z"
OLD = Document(
    id="pkg-before-0011",
    advisories=[
        DocumentAdvisory(id="CGA-2222-3333-4444", aliases=["CVE-2093-0001", "GHSA-2222-3333-4444"],
                         events=[DocumentEvent(timestamp=NOW, fixed=Fixed(fixed_version="1.2-r0"))],
                         package_namespace="wolfi"),
        DocumentAdvisory(id="CGA-2222-3333-5555", aliases=["CVE-2093-0002"],
                         events=[DocumentEvent(timestamp=NOW, fix_not_planned=FixNotPlanned(note="ünïcode"))],
                         package_namespace="wolfi"),
        DocumentAdvisory(id="CGA-2222-3333-6666", package_namespace="wolfi",
                         events=[DocumentEvent(timestamp=NOW, fixed=Fixed(fixed_version="2"))]),
    ],
)  # fmt: skip
RECORD = VulnerabilityMetadata(id="GHSA-2222-3333-7777", summary="before 0011", details="détails")


async def before_0011(db: Any) -> None:
    """The schema as the previous release left it (every migration before 0011), and its rows."""
    await db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    for version, name, sql in migrations(db.dialect):
        if version < 11:
            await db.executescript(f"BEGIN;\nINSERT INTO schema_migrations VALUES ({version}, '{name}', '{NOW}');\n"
                                   f"{sql}\nCOMMIT;")  # fmt: skip
    async with db.transaction() as tx:
        await tx.execute("INSERT INTO advisory_documents (id, digest, update_time, body) VALUES ($1, $2, $3, $4)",
                         OLD.id, "d", NOW, rows.body(OLD))  # fmt: skip
        await tx.executemany("INSERT INTO advisory_document_cves (cve, id) VALUES ($1, $2)",
                             [("CVE-2093-0001", OLD.id), ("CVE-2093-0002", OLD.id)])  # fmt: skip
        await tx.execute(
            "INSERT INTO vulnerability_metadata (id, modified, published, withdrawn, aliases, severities, digest,"
            " update_time, body) VALUES ($1, $2, '', '', '[\"CVE-2093-0003\"]', '[]', 'd', $2, $3)",
            RECORD.id, NOW, rows.body(RECORD),
        )  # fmt: skip
        await tx.executemany("INSERT INTO vulnerability_aliases (alias, id, modified) VALUES ($1, $2, $3)",
                             [(RECORD.id, RECORD.id, NOW), ("CVE-2093-0003", RECORD.id, NOW)])  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_data_imported_before_0011_answers_as_before(backend: str, tmp_path: Path) -> None:
    with scratch_database(backend, tmp_path) as url:

        async def go() -> None:
            db = await store.connect(url)
            try:
                await before_0011(db)
                assert [n for n in await migrate(db) if n.startswith("0011_")], "0011 was not applied"
                ctx = Context("x", Runtime(Settings(), db))

                async def feed(**query: Any) -> Any:
                    answer = await documents.list_documents(ListDocumentsRequest(**query), ctx)
                    return msgspec.json.decode(msgspec.json.encode(answer))

                whole = msgspec.json.decode(rows.body(OLD))
                assert await feed(id=OLD.id) == {"documents": [whole]}
                assert await feed(cves=["CVE-2093-0002"]) == {
                    "documents": [{"id": OLD.id, "advisories": [whole["advisories"][1]]}]
                }
                assert await feed(cves=["GHSA-2222-3333-4444"]) == {}  # only CVE aliases are indexed, as before
                listed = await metadata_api.list_vulnerability_metadata(
                    ListVulnerabilityMetadataRequest(ids=["CVE-2093-0003"]), ctx
                )
                assert [(m.id, m.summary, m.details) for m in listed.vulnerability_metadata] == [
                    ("CVE-2093-0003", "before 0011", "détails")
                ]
                size = await db.fetchval("SELECT size FROM vulnerability_metadata WHERE id = $1", RECORD.id)
                assert size == len(rows.encode(RECORD))
            finally:
                await db.close()

        asyncio.run(go())
