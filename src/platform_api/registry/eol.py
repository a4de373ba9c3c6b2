"""End-of-life data for the v1 ListEolTags: a repo's main package and its release cycles, imported in
endoflife.date's cycle format (`platform-api import eol <repo-uid> <package> <file>`), joined to the repo's
tags by name: a tag belongs to the longest cycle it equals or extends with "." or "-" ("3.12.7" and
"3.12-dev" are cycle "3.12"'s). A tag whose cycle's EOL date has passed (or `eol: true`), or that is
deprecated, is TAG_INACTIVE; others TAG_ACTIVE. No grace-period data: GRACE_NOT_ELIGIBLE. Tags of the repo
that no cycle claims are listed with mainPackageVersion.exists false.

The same cycles answer v1 GetPackageVersionMetadata by package name (registry/v1/versions.py, through
`imported_package`): every import stamps its repo's cycles with its time."""

from __future__ import annotations

import argparse
import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platform_api.core import clock
from platform_api.core.patterns import Pattern
from platform_api.gen.records.registry import EolTag, PackageVersion
from platform_api.gen.records.registry_v2 import Tag
from platform_api.registry.oci_import import repo_or_bad
from platform_api.service import imports, listing
from platform_api.service.imports import BadInput
from platform_api.store import rows
from platform_api.store.db import Conn

HELP = "a repo's main package and its release cycles in endoflife.date's JSON cycle format (for v1 eoltags)"
MAX_CYCLES = 10_000
_DATE = Pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_PACKAGE = Pattern(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")
_CYCLE = Pattern(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_uid", help="the repo whose tags follow the package's cycles")
    parser.add_argument("package", help="the repo's main package (e.g. python)")
    parser.add_argument("file", type=Path, help="the package's cycles: a JSON list as endoflife.date's API gives it")


def _date_or_flag(file: Path, place: str, value: Any) -> str | bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and _DATE.fullmatch(value):
        return value
    raise BadInput(file, place, f"{str(value)[:40]!r} is neither a YYYY-MM-DD date nor a boolean")


def parse(file: Path) -> dict[str, tuple[PackageVersion, bool]]:
    """Cycle -> its PackageVersion (version = the cycle) and whether it ended with no date (`eol: true`)."""
    doc = imports.load_json(file, imports.read_file(file))
    if not isinstance(doc, list):
        raise BadInput(file, "$", "expected a JSON list of release cycles")
    if len(doc) > MAX_CYCLES:
        raise BadInput(file, "$", f"more than {MAX_CYCLES} cycles")
    out: dict[str, tuple[PackageVersion, bool]] = {}
    for i, c in enumerate(doc):
        place = f"$[{i}]"
        if not isinstance(c, dict):
            raise BadInput(file, place, "a cycle must be an object")
        cycle = c.get("cycle")
        if isinstance(cycle, int | float) and not isinstance(cycle, bool):
            cycle = str(cycle)
        if not isinstance(cycle, str) or not _CYCLE.fullmatch(cycle):
            raise BadInput(file, f"{place}.cycle", f"{str(cycle)[:40]!r} is not a cycle name")
        if cycle in out:
            raise BadInput(file, f"{place}.cycle", f"cycle {cycle!r} appears twice")
        eol = _date_or_flag(file, f"{place}.eol", c.get("eol", False))
        lts = _date_or_flag(file, f"{place}.lts", c.get("lts", False))
        release = c.get("releaseDate", "")
        if release and not (isinstance(release, str) and _DATE.fullmatch(release)):
            raise BadInput(file, f"{place}.releaseDate", f"{str(release)[:40]!r} is not a YYYY-MM-DD date")
        latest = c.get("latest", "")
        if not isinstance(latest, str | int | float) or isinstance(latest, bool):
            raise BadInput(file, f"{place}.latest", "must be a version string")
        version = PackageVersion(
            version=cycle, exists=True, releaseDate=release, latestVersion=str(latest)[:128],
            eolDate=eol if isinstance(eol, str) else "",
            lts=lts is True or (isinstance(lts, str) and lts <= datetime.date.today().isoformat()),
        )  # fmt: skip
        out[cycle] = (version, eol is True)
    return out


async def put(tx: Conn, repo: str, package: str, cycles: dict[str, tuple[PackageVersion, bool]]) -> dict[str, int]:
    """Make the repo's cycles exactly `cycles` of `package`: created / updated / unchanged / removed."""
    found = await tx.fetch("SELECT cycle, package, body, ended FROM eol_cycles WHERE repo = $1", repo)
    have = {r["cycle"]: (r["package"], r["body"], bool(r["ended"])) for r in found}
    tally = {"created": 0, "updated": 0, "unchanged": 0, "removed": 0}
    for cycle in sorted(set(have) - set(cycles)):
        await tx.execute("DELETE FROM eol_cycles WHERE repo = $1 AND cycle = $2", repo, cycle)
        tally["removed"] += 1
    for cycle, (version, ended) in sorted(cycles.items()):
        body = rows.body(version)
        if cycle not in have:
            await tx.execute("INSERT INTO eol_cycles (repo, cycle, package, body, ended) VALUES ($1, $2, $3, $4, $5)",
                             repo, cycle, package, body, int(ended))  # fmt: skip
            tally["created"] += 1
        elif have[cycle] != (package, body, ended):
            await tx.execute("UPDATE eol_cycles SET package = $3, body = $4, ended = $5 WHERE repo = $1 AND cycle = $2",
                             repo, cycle, package, body, int(ended))  # fmt: skip
            tally["updated"] += 1
        else:
            tally["unchanged"] += 1
    # When the package's data was last imported (GetPackageVersionMetadata's lastUpdatedTimestamp).
    await tx.execute("UPDATE eol_cycles SET update_time = $2 WHERE repo = $1", repo, clock.now())
    return tally


async def run(job: imports.Job) -> imports.Summary:
    repo, package, file = job.args.repo_uid, job.args.package, job.args.file
    if not _PACKAGE.fullmatch(package):
        raise BadInput(file, "", f"package {package[:60]!r} is not a package name")
    cycles = parse(file)
    summary = imports.Summary()
    async with job.rt.db.transaction() as tx:
        await repo_or_bad(tx, repo)
        tally = await put(tx, repo, package, cycles)
    job.progress.advance(len(cycles))
    for outcome in ("created", "updated", "unchanged"):
        summary.count(outcome, tally[outcome])
    summary.kinds["cycles"] = tally
    return summary


@dataclass(frozen=True)
class Imported:
    """One repo's imported cycles of a package: (PackageVersion, ended with no date) each, and when."""

    repo: str
    cycles: list[tuple[PackageVersion, bool]]
    update_time: str


async def imported_package(conn: Conn, package: str, roots: list[str]) -> Imported | None:
    """The cycles of `package` as last imported into a repo within `roots` (or below one), None if no repo
    there has any: the newest import wins (then the smallest repo uid), so one repo's data answers whole."""
    where = listing.Where()
    named = where.p(package)
    newest = await conn.fetchrow(
        f"SELECT repo, update_time FROM eol_cycles WHERE package = {named}"
        f" AND {listing.within(roots, 'repo', where.p)} ORDER BY update_time DESC, repo LIMIT 1",
        *where.args,
    )
    if newest is None:
        return None
    found = await conn.fetch("SELECT body, ended FROM eol_cycles WHERE repo = $1", newest["repo"])
    cycles = [(rows.decode(PackageVersion, r["body"]), bool(r["ended"])) for r in found]
    return Imported(newest["repo"], cycles, newest["update_time"])


# The condition that limits a tags listing to repos with EOL data (ListEolTags).
WITH_CYCLES = "parent IN (SELECT repo FROM eol_cycles)"


def _cycle_of(name: str, cycles: dict[str, tuple[str, PackageVersion, bool]]) -> str | None:
    best = None
    for c in cycles:
        if (name == c or name.startswith((c + ".", c + "-"))) and (best is None or len(c) > len(best)):
            best = c
    return best


async def eol_tags(conn: Conn, tag_bodies: list[str]) -> list[EolTag]:
    """The EolTag of each tag (its repo's cycles read once per repo)."""
    tags = [rows.decode(Tag, b) for b in tag_bodies]
    repos = sorted({t.uid.rsplit("/", 1)[0] for t in tags})
    cycles: dict[str, dict[str, tuple[str, PackageVersion, bool]]] = {r: {} for r in repos}
    for repo in repos:
        for r in await conn.fetch("SELECT cycle, package, body, ended FROM eol_cycles WHERE repo = $1", repo):
            cycles[repo][r["cycle"]] = (r["package"], rows.decode(PackageVersion, r["body"]), bool(r["ended"]))
    today = datetime.date.today().isoformat()
    out = []
    for t in tags:
        mine = cycles[t.uid.rsplit("/", 1)[0]]
        package = next(iter(mine.values()))[0] if mine else ""
        cycle = _cycle_of(t.name, mine)
        _, version, ended = mine[cycle] if cycle is not None else ("", PackageVersion(exists=False), False)
        ended = ended or bool(version.eolDate and version.eolDate <= today)
        status = "TAG_INACTIVE" if ended or t.deprecated else "TAG_ACTIVE"
        out.append(EolTag(id=t.uid, name=t.name, main_package_name=package, tag_status=status,  # type: ignore[arg-type]
                          main_package_version=version))  # fmt: skip
    return out
