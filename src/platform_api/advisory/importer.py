"""`platform-api import advisories <dir | file.yaml> --group <group> [--namespace wolfi]`: every `*.yaml` (and
`*.yml`) advisory document (schema-version 2.x) under `dir`, or the one file given, becomes

- the group's vulnerabilities.v2 Advisories (one per (package, advisory id), uid a stable child of the
  group; artifactName = package.name, artifactType "apk"; events approved), and
- the package's Document in the public advisory.v2 feed (global: the latest import of a package wins).

`--group` is a uid or a path of names from the organization down (`my-org/team`), see `iam.group_paths`.
A directory holding no advisory document is refused (an import that could only do nothing is a wrong path,
not a success to report as zero).

One transaction for everything: any malformed document aborts the import (file, line:column, path,
problem) and nothing is written. Re-importing the same input writes nothing; an advisory whose content
changed is rewritten (updateTime = the import's time). Advisories absent from the input are kept (an
import adds and updates; it does not delete). The summary counts advisories.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from platform_api.advisory import documents
from platform_api.core import clock, errors
from platform_api.formats import advisory_yaml as fmt
from platform_api.iam import group_paths, groups
from platform_api.service import imports
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries as queries

HELP = "import advisory documents (YAML, schema-version 2.x) into a group's advisories and the public feed"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a directory of *.yaml advisory documents (one per package), or one .yaml file")
    group_help = "the group that receives the advisories: its uid, or its path (my-org, my-org/team)"
    parser.add_argument("--group", required=True, help=group_help)
    parser.add_argument("--namespace", default="wolfi", help="packageNamespace of the feed's documents")
    parser.add_argument("--artifact-type", default="apk", help="artifactType of the advisories (default apk)")


SUFFIXES = (".yaml", ".yml")


def files(path: Path) -> tuple[list[Path], Path | None]:
    """The documents to read and the root they must stay inside (None for one file, which reading checks)."""
    if not path.is_dir():
        if path.name.endswith(SUFFIXES) or not os.path.lexists(path):
            return [path], None  # reading it says what is wrong with it, if anything
        raise imports.BadInput(path, "", "not a directory or a .yaml/.yml advisory document")
    # Files under hidden directories (.github/workflows/*.yaml in a checkout of an advisories repository)
    # are not advisory documents.
    found = [f for f in imports.walk(path, SUFFIXES) if not any(
        part.startswith(".") for part in f.relative_to(path).parts)]  # fmt: skip
    if not found:
        raise imports.BadInput(path, "", "no advisory documents (*.yaml, *.yml) in this directory")
    return found, path


def read(path: Path, progress: imports.Progress) -> list[tuple[Path, fmt.Document]]:
    """Every document `path` holds (or is), parsed and validated; BadInput at the first bad one."""
    docs, root = files(path)
    progress.total = len(docs)
    out: list[tuple[Path, fmt.Document]] = []
    seen: dict[str, Path] = {}
    for file in docs:
        doc = fmt.parse(str(file), imports.read_file(file, root, fmt.MAX_DOCUMENT))
        if doc.package in seen:
            problem = f"package {doc.package!r} is also documented in {seen[doc.package]}"
            raise imports.BadInput(file, "package.name", problem)
        seen[doc.package] = file
        out.append((file, doc))
        progress.advance()
    return out


async def _require_group(conn: Conn, group: str, path: str) -> None:
    try:
        await groups.require(conn, group, "--group")
    except errors.ApiError:
        raise imports.BadInput(path, "--group", f"no group {group}") from None


async def run(job: imports.Job) -> imports.Summary:
    args = job.args
    namespace = args.namespace
    for flag, value in (("--namespace", namespace), ("--artifact-type", args.artifact_type)):
        if not value or len(value) > 64:
            raise imports.BadInput(args.path, flag, "must be 1 to 64 characters")
    try:
        group = await group_paths.resolve(job.rt.db, args.group)
    except group_paths.Unresolved as e:
        raise imports.BadInput(args.path, "--group", str(e)) from None
    await _require_group(job.rt.db, group, args.path)  # before reading: a wrong group fails at once
    parsed = read(Path(args.path), job.progress)
    summary = imports.Summary()
    now = clock.now()
    items = [(doc.package, a) for _, doc in parsed for a in doc.advisories]
    async with job.rt.db.transaction() as tx:
        await _require_group(tx, group, args.path)  # and locked until the import commits
        known = await queries.digests(tx, group)
        new: list[queries.Row] = []
        changed: list[queries.Row] = []
        for package, adv in items:
            uid = queries.advisory_uid(group, package, adv.id)
            if uid not in known:
                new.append(queries.build(group, package, adv, args.artifact_type))
            elif known[uid] != queries.content_digest(adv, args.artifact_type):
                changed.append(queries.build(group, package, adv, args.artifact_type))
        await queries.write(tx, group, new, changed, now)
        await documents.store(tx, [(str(path), doc) for path, doc in parsed], namespace, now)
    summary.count("created", len(new))
    summary.count("updated", len(changed))
    summary.count("unchanged", len(items) - len(new) - len(changed))
    return summary
