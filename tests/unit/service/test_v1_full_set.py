"""A v1 List's full set (service/v1.py `every`, listing.FullSet), in-process (issue 26, item 6): its byte budget
is checked page by page as the set is read, so a set past it is refused after reading about the budget, not all
of it; and the walk lets the event loop serve other requests between its pages (SQLite's reads never wait, so
nothing else would run until it ends)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from platform_api.api import schema
from platform_api.core import errors
from platform_api.core.settings import Settings
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.registry_v2 import ListReposRequest
from platform_api.registry import repos
from platform_api.service import listing, v1
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db
from platform_api.store.migrate import migrate
from tests.helpers import scratch_database
from tests.unit.registry.counting import Counting

ORG = "fe" * 20
LIST = repos.SERVICE + "ListRepos"


class Reading(Counting):
    """Counting, and the characters of the first column of every row read (the stored bodies)."""

    read = 0

    async def fetchtuples(self, sql: str, *args: Any) -> Any:
        found = await super().fetchtuples(sql, *args)
        self.read += sum(len(r[0]) for r in found if isinstance(r[0], str))
        return found


async def _with_repos(url: str, count: int, size: int, check: Any) -> None:
    database = await db.connect(url)
    try:
        await migrate(database)
        for n in range(count):
            uid = f"{ORG}/{n:016x}"
            body = json.dumps({"uid": uid, "name": f"r{n}", "description": "x" * size})
            await database.execute(
                "INSERT INTO repos (uid, parent, name, create_time, update_time, body) VALUES ($1, $2, $3, '', '', $4)",
                uid, ORG, f"r{n}", body,
            )  # fmt: skip
        reading = Reading(database)
        rt = Runtime(Settings(), reading, methods={LIST: schema.methods()[LIST]})  # type: ignore[arg-type]
        rt.page_key = b"k" * 32
        await check(Context(method=LIST, rt=rt), reading)
    finally:
        await database.close()


def walk(ctx: Context) -> Any:
    return v1.every(ctx, repos.list_repos, ListReposRequest(uidp=UIDPFilter(children_of=ORG)), "repos")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_set_past_the_budget_is_refused_having_read_about_the_budget(backend: str, tmp_path: Path) -> None:
    record = 150_000  # as large as a repo with every tag and alias its caps allow

    async def check(ctx: Context, reading: Reading) -> None:
        with pytest.raises(errors.ApiError) as e:
            await walk(ctx)
        assert (e.value.code, e.value.http_status, e.value.info_reason) == (errors.RESOURCE_EXHAUSTED, 413,
                                                                            "ANSWER_TOO_LARGE")  # fmt: skip
        assert e.value.info_metadata == {"limitBytes": str(listing.MAX_ANSWER)}
        # The 60 records are 9 MB: the walk stopped within a few records past the budget.
        assert reading.read <= 1.25 * listing.MAX_ANSWER, reading.read

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(_with_repos(url, 60, record, check))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_set_within_the_budget_answers_whole(backend: str, tmp_path: Path) -> None:
    async def check(ctx: Context, reading: Reading) -> None:
        found = await walk(ctx)
        assert [r.name for r in found] == [f"r{n}" for n in range(450)]

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(_with_repos(url, 450, 1000, check))


def test_the_walk_yields_between_pages(tmp_path: Path) -> None:
    """On SQLite no read of the walk waits: without a yield of its own between pages, a task started before it
    would not run until it ended. 450 records of ~1 KB are 4 pages (4, then 200 by the largest record)."""

    async def check(ctx: Context, reading: Reading) -> None:
        turns = 0
        done = False

        async def other_request() -> None:
            nonlocal turns
            while not done:
                turns += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(other_request())
        found = await walk(ctx)
        done = True
        await task
        pages = len(reading.on("repos"))  # (the count reads the counters)
        assert len(found) == 450 and pages >= 3
        assert turns >= pages - 1

    with scratch_database("sqlite", tmp_path) as url:
        asyncio.run(_with_repos(url, 450, 1000, check))


def test_page_sizes_follow_what_is_left() -> None:
    budget = listing.FullSet()
    assert budget.page_size(200) == listing.FULL_SET_FIRST_PAGE
    budget.take([1000, 2000])
    assert (budget.left, budget.largest) == (listing.MAX_ANSWER - 3000, 2000)
    assert budget.page_size(200) == 200 and budget.page_size(7) == 7
    budget.take([100_000])
    assert budget.page_size(200) == listing.FULL_SET_SLICE // 100_000  # a slice of about a MiB
    budget.take([budget.left - 10])
    assert budget.page_size(200) == 1  # at least one: it may still fit
    with pytest.raises(errors.ApiError):
        budget.take([11])
    budget.take([10])
    assert budget.left == 0
