"""`platform-api import libraries <python|java> <path>`: artifacts and their versions from the ecosystems'
own published formats.

- python: PEP 691 JSON project pages and/or PyPI JSON documents (`*.json`), see `python_input`;
- java: `maven-metadata*.xml` and `*.pom` files, see `java_input`.

`path` is one file or a directory (walked; symlinks must stay inside it). Every file is read and checked
first; then everything is applied in one transaction, so a bad file leaves the database as it was.
The summary counts records: each artifact and each version is `created`, `updated` or `unchanged`.
No events: the contract names none for libraries (read-only, global data).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from platform_api.libraries import java_input, python_input, queries
from platform_api.libraries.facts import Collected
from platform_api.service import imports
from platform_api.service.imports import Job, Summary

HELP = "Python (PEP 691 / PyPI JSON) or Java (maven-metadata.xml, POM) artifacts and versions"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ecosystem", choices=("python", "java"), help="which ecosystem's formats the files are in")
    parser.add_argument("path", help="a file, or a directory of them")


def files(ecosystem: str, path: Path) -> tuple[list[Path], Path | None]:
    """The input files and the root they must stay inside (None for a single file, which reading checks)."""
    if not path.is_dir():
        return [path], None
    if ecosystem == "python":
        return imports.walk(path, (".json",)), path
    return [p for p in imports.walk(path, (".pom", ".xml")) if java_input.is_input(p)], path


def collect(ecosystem: str, path: Path, progress: imports.Progress) -> Collected:
    found, root = files(ecosystem, path)
    progress.total = len(found)
    out = Collected()
    for p in found:
        if ecosystem == "python":
            data = imports.read_file(p, root)
            python_input.parse(str(p), imports.load_json(p, data), out)
        else:
            java_input.parse(p, imports.read_file(p, root, java_input.MAX_XML), out)
        progress.advance()
    return out


async def run(job: Job) -> Summary:
    ecosystem, path = job.args.ecosystem, Path(job.args.path)
    collected = collect(ecosystem, path, job.progress)
    job.progress.total += len(collected.artifacts)
    summary = Summary()
    async with job.rt.db.transaction() as tx:
        await queries.apply(tx, collected, summary, job.progress)
    return summary
