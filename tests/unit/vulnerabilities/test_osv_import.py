"""`import osv` in process on SQLite: records are written in batches bounded by count and by the bytes of
their files, so that the records held before a write do not grow with the records' size."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from platform_api.core.settings import Settings
from platform_api.service import imports
from platform_api.service.runtime import Runtime
from platform_api.store import db
from platform_api.store.migrate import migrate
from platform_api.vulnerabilities import metadata, osv_import


def test_batches_are_bounded_by_the_bytes_of_their_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    sizes = {}
    for n in range(24):  # 1 MiB of details each (the most a record keeps): 24 MiB in all
        path = folder / f"PA-{n:02d}.json"
        path.write_text(
            json.dumps({"id": f"PA-{n:02d}", "modified": "2024-01-01T00:00:00Z", "details": "x" * (1 << 20)})
        )
        sizes[f"PA-{n:02d}"] = path.stat().st_size
    batches: list[list[str]] = []
    real = metadata.apply

    async def recording(tx: Any, records: list[Any]) -> list[str]:
        batches.append([r.id for r in records])
        return await real(tx, records)

    monkeypatch.setattr(metadata, "apply", recording)

    async def go() -> imports.Summary:
        database = await db.connect(f"sqlite:///{tmp_path / 'osv.db'}")
        try:
            await migrate(database)
            args = argparse.Namespace(path=str(folder))
            job = imports.Job(Runtime(Settings(), database), args, imports.Progress("osv"), methods=lambda name: None)
            return await osv_import.run(job)
        finally:
            await database.close()

    assert asyncio.run(go()).created == 24
    assert sorted(i for b in batches for i in b) == sorted(sizes)
    assert [len(b) for b in batches] == [16, 8]  # not one batch of 24 MiB
    for batch in batches:
        assert sum(sizes[i] for i in batch) < osv_import.BATCH_BYTES + max(sizes.values())
