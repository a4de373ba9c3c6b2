"""ListDocuments' `cves` filter reads only the advisories it answers (issue 16, item 6): a connection that
tallies the text its reads hand back shows it, on a scratch database of each backend (the feed imported by
the command line). It used to read the whole of every matching document, then filter."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from platform_api.advisory import documents
from platform_api.core.settings import Settings
from platform_api.gen.records.advisory_v2 import ListDocumentsRequest
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db as store
from tests.helpers import cli, scratch_database

DOCUMENTS, PER_DOCUMENT = 30, 40
ALPHABET = "23456789cfghjmpqrvwx"


def cga(n: int) -> str:
    s = "".join(ALPHABET[(n // len(ALPHABET) ** k) % len(ALPHABET)] for k in range(12))
    return f"CGA-{s[0:4]}-{s[4:8]}-{s[8:12]}"


def feed(folder: Path) -> None:
    """Advisory i of every document aliases CVE-2095-<i> (shared by all documents) and a CVE of its own."""
    folder.mkdir()
    for d in range(DOCUMENTS):
        text = f"schema-version: 2.0.2\npackage:\n  name: pkg-{d:03d}\nadvisories:\n"
        for i in range(PER_DOCUMENT):
            n = d * PER_DOCUMENT + i
            text += (
                f"  - id: {cga(n)}\n    aliases: [CVE-2095-{i:05d}, CVE-2094-{n:06d}]\n    events:\n"
                "      - timestamp: 2024-01-01T00:00:00Z\n        type: fixed\n"
                f"        data: {{fixed-version: 1.{n}.0-r0}}\n"
            )
        (folder / f"pkg-{d:03d}.advisories.yaml").write_text(text)


class Counting:
    """The database, tallying the characters of the text values its reads return."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.chars = 0

    def _tally(self, found: Any) -> Any:
        self.chars += sum(len(v) for row in found for v in row if isinstance(v, str))
        return found

    async def fetch(self, sql: str, *args: Any) -> Any:
        return self._tally(await self.db.fetch(sql, *args))

    async def fetchtuples(self, sql: str, *args: Any) -> Any:
        return self._tally(await self.db.fetchtuples(sql, *args))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_cves_filter_reads_only_what_it_answers(backend: str, tmp_path: Path) -> None:
    feed(tmp_path / "feed")
    with scratch_database(backend, tmp_path) as url:
        org = json.loads(cli(url, "bootstrap"))["organization"]
        cli(url, "import", "advisories", str(tmp_path / "feed"), "--group", org)

        async def go() -> None:
            db = await store.connect(url)
            try:
                counting = Counting(db)
                ctx = Context("ListDocuments", Runtime(Settings(), counting))  # type: ignore[arg-type]
                # One advisory in each of the 30 documents.
                answer = await documents.list_documents(ListDocumentsRequest(cves=["CVE-2095-00007"]), ctx)
                encoded = msgspec.json.encode(answer)
                body = msgspec.json.decode(encoded)
                assert [len(d["advisories"]) for d in body["documents"]] == [1] * DOCUMENTS
                # What was read is about what is answered (the advisories, their document ids read twice),
                # not the 40 times more of the whole documents.
                assert counting.chars <= len(encoded) + 3 * DOCUMENTS * len("pkg-000"), (counting.chars, len(encoded))
                # One advisory of one document.
                counting.chars = 0
                answer = await documents.list_documents(ListDocumentsRequest(cves=["CVE-2094-000047"]), ctx)
                encoded = msgspec.json.encode(answer)
                assert [d["id"] for d in msgspec.json.decode(encoded)["documents"]] == ["pkg-001"]
                assert counting.chars <= len(encoded) + 3 * len("pkg-001"), (counting.chars, len(encoded))
            finally:
                await db.close()

        asyncio.run(go())
