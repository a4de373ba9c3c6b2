"""Every List page has a byte budget (listing.MAX_ANSWER): a page ends early, with a page token, before the
record that would take it over, and is never empty; paging on still returns every row exactly once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from platform_api.core.settings import Settings
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.registry_v2 import ListReposRequest
from platform_api.registry import repos
from platform_api.service import listing
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db
from platform_api.store.migrate import migrate
from tests.helpers import scratch_database

ORG = "ef" * 20
BIG = 700_000  # characters of one stored record: 4 fit in 3 MiB, 5 do not


def test_within_budget() -> None:
    assert listing.within_budget([]) == 0
    assert listing.within_budget([10, 10, 10], 25) == 2
    assert listing.within_budget([30, 1], 25) == 1  # never empty
    assert listing.within_budget([10, 15], 25) == 2  # exactly at the budget


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_pages_end_at_the_budget_and_page_on(backend: str, tmp_path: Path) -> None:
    async def go(url: str) -> None:
        database = await db.connect(url)
        try:
            await migrate(database)
            uids = [f"{ORG}/{n:016x}" for n in range(10)]
            for uid in uids:
                body = json.dumps({"uid": uid, "name": uid[-4:], "description": "x" * BIG})
                await database.execute(
                    "INSERT INTO repos (uid, parent, name, create_time, update_time, body)"
                    " VALUES ($1, $2, $3, '', '', $4)",
                    uid, ORG, uid[-4:], body,
                )  # fmt: skip
            rt = Runtime(Settings(), database)
            rt.page_key = b"k" * 32
            ctx = Context(method=repos.SERVICE + "ListRepos", rt=rt)
            seen: list[str] = []
            token, pages = "", 0
            while True:
                req = ListReposRequest(uidp=UIDPFilter(children_of=ORG), page_size=200, page_token=token)
                page = await listing.page(ctx, repos.TABLE, listing.filters(req), req)
                assert 1 <= len(page.bodies) <= listing.MAX_ANSWER // BIG
                seen += [json.loads(b)["uid"] for b in page.bodies]
                pages += 1
                token = page.next_page_token
                if not token:
                    break
            assert seen == uids and pages == 3
        finally:
            await database.close()

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(go(url))
