"""ImagesService reads and the registry's image lookups on the issue's fan-out (150 identical entries nested 3
deep), counted with a recording connection: the statements a read makes and the digests they name are
bounded by the distinct digests, whether the import flattened the index or the read has to walk."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from platform_api.core import errors
from platform_api.core.settings import Settings
from platform_api.gen.records.registry_v2 import GetArchitecturesRequest, GetSizeRequest
from platform_api.registry import images, oci, queries
from platform_api.service import imports
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db
from platform_api.store.migrate import migrate
from tests.helpers.oci_layouts import nested_layout
from tests.unit.registry.counting import Counting

REPO = "ab" * 20 + "/0123456789abcdef"


def run(tmp: Path, flattened: bool, check: Callable[[Counting, dict[str, Any]], Awaitable[None]]) -> None:
    """Import the nested layout into a fresh SQLite database (flattened as `import oci` does, or as rows
    written without flattening: recorded before it, or nested indexes imported after their parent), tag
    it `latest`, then `check(counting connection, layout)`."""
    layout = nested_layout(tmp / "layout")
    content = oci.read(tmp / "layout", imports.Progress("test", stream=io.StringIO()))

    async def go() -> None:
        database = await db.connect(f"sqlite:///{tmp / 'images.db'}")
        try:
            await migrate(database)
            async with database.transaction() as tx:
                if flattened:
                    await images.flatten(tx, REPO, content.images)
                for image in content.images.values():
                    assert await images.put(tx, REPO, image) == "created"
                await queries.insert_tag(tx, REPO, "latest", layout["indexes"][0]["digest"], False, 0)
            await check(Counting(database), layout)
        finally:
            await database.close()

    asyncio.run(go())


def context(conn: Counting) -> Context:
    return Context(method="test", rt=Runtime(Settings(), conn))  # type: ignore[arg-type]


def named_digests(conn: Counting) -> list[str]:
    """Every digest the statements on the images table named (arguments), repeats included."""
    return [a for _, args in conn.on("images") for a in args if isinstance(a, str) and a.startswith("sha256:")]


async def reads(conn: Counting, layout: dict[str, Any], most: int) -> None:
    """Each read answers as before, in at most `most` statements naming each digest at most once."""
    top = layout["indexes"][0]["digest"]
    checks: list[tuple[Callable[[], Awaitable[Any]], Any]] = [
        (lambda: images.get_architectures(GetArchitecturesRequest(repo_uid=REPO, digest=top), context(conn)),
         ["amd64", "arm64"]),
        (lambda: images.get_size(GetSizeRequest(repo_uid=REPO, digest=top), context(conn)),
         (str(layout["amd64"]["expected_size"]), "amd64")),
        (lambda: images.get_size(GetSizeRequest(repo_uid=REPO, digest=top, architecture="arm64"), context(conn)),
         (str(layout["arm64"]["expected_size"]), "arm64")),
        (lambda: images.size_of(conn, REPO, top), layout["amd64"]["expected_size"]),
        (lambda: images.tagged_digests(conn, REPO, ["latest"], 100),
         [top, layout["amd64"]["digest"], layout["arm64"]["digest"]]),
    ]  # fmt: skip
    for call, want in checks:
        conn.statements.clear()
        got = await call()
        if hasattr(got, "architectures"):
            got = got.architectures
        elif hasattr(got, "size") and not isinstance(got, int):
            got = (got.size, got.architecture)
        assert got == want
        assert len(conn.statements) <= most, conn.statements
        named = named_digests(conn)
        assert len(named) == len(set(named)) <= len(layout["indexes"]) + 2, named


def test_unflattened_rows_are_walked_once_per_distinct_index(tmp_path: Path) -> None:
    # The top row, one statement per nesting level below it, the manifest asked for, the tags.
    run(tmp_path, False, lambda conn, layout: reads(conn, layout, 1 + 2 + 1))


def test_flattened_at_import_reads_are_a_constant_number_of_statements(tmp_path: Path) -> None:
    async def check(conn: Counting, layout: dict[str, Any]) -> None:
        await reads(conn, layout, 2)
        stored = await conn.db.fetchval(
            "SELECT body FROM images WHERE repo = $1 AND digest = $2", REPO, layout["indexes"][0]["digest"]
        )
        platforms = json.loads(stored)["platforms"]
        assert [p["digest"] for p in platforms] == [layout["amd64"]["digest"], layout["arm64"]["digest"]]

    run(tmp_path, True, check)


def test_a_walk_past_its_cap_is_a_failed_precondition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "READ_WALK", 1)

    async def check(conn: Counting, layout: dict[str, Any]) -> None:
        top = layout["indexes"][0]["digest"]
        with pytest.raises(errors.ApiError) as e:
            await images.get_architectures(GetArchitecturesRequest(repo_uid=REPO, digest=top), context(conn))
        assert e.value.code == errors.FAILED_PRECONDITION and "import it again" in e.value.message
        assert len(conn.statements) == 2  # the top row, the first level: the second would pass the cap

    run(tmp_path, False, check)
