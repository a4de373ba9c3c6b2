"""`platform-api import osv <dir | .zip | .json>`: OSV records into vulnerability metadata.

Reads every `*.json` under a directory (symlinks may not leave it), every `*.json` member of a zip (the
OSV project publishes `all.zip` per ecosystem), or one `.json` file; each is one OSV record. The whole
import is one transaction: the first bad record (its file or `zip!member`, the JSON path, the problem)
aborts it and leaves the database as it was. One row per OSV id: same content => unchanged; changed
content => updated (unless the stored copy has a later `modified`: an older record never overwrites a
newer one). No events: the contract defines none for vulnerability metadata.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from platform_api.service import imports
from platform_api.vulnerabilities import metadata, osv

HELP = "OSV JSON records (a directory of *.json, a zip such as OSV's all.zip, or one .json): vulnerability metadata"
# Records parsed before they are written: at most this many, and at most BATCH_BYTES of record files (what
# a record keeps is bounded by its file), so that the batch's memory does not grow with the records' size.
BATCH = 500
BATCH_BYTES = 16 << 20


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a directory of OSV *.json records, a .zip of them, or one .json record")


def _sources(job: imports.Job, path: Path) -> Iterator[tuple[str, bytes]]:
    """(label, bytes) of each record file: the label names it in messages."""
    if path.is_dir():
        files = imports.walk(path, (".json",))
        job.progress.total = len(files)
        for f in files:
            yield str(f), imports.read_file(f, root=path)
    elif path.suffix.lower() == ".json":
        job.progress.total = 1
        yield str(path), imports.read_file(path)
    else:
        for member, data in imports.zip_members(path, (".json",)):
            yield f"{path}!{member}", data


async def run(job: imports.Job) -> imports.Summary:
    summary = imports.Summary()
    batch: list[osv.Record] = []
    batch_bytes = 0

    async def flush() -> None:
        nonlocal batch_bytes
        for outcome in await metadata.apply(tx, batch):
            summary.count(outcome)
        job.progress.advance(len(batch))
        batch.clear()
        batch_bytes = 0

    async with job.rt.db.transaction() as tx:
        for label, data in _sources(job, Path(job.args.path)):
            doc = imports.load_json(label, data)
            try:
                batch.append(osv.parse(doc))
            except osv.Invalid as e:
                raise imports.BadInput(label, e.path, e.problem) from None
            batch_bytes += len(data)
            if len(batch) >= BATCH or batch_bytes >= BATCH_BYTES:
                await flush()
        if batch:
            await flush()
    return summary
