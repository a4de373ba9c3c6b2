"""/registry/v1/versions/{package} (chainguard.platform.registry.Registry GetPackageVersionMetadata): a package's
release cycles from the end-of-life data `import eol` gave a repo (registry/eol.py), as the vendor's Terraform
provider reads them (data source `chainguard_versions`).

- `versions`: the cycles still supported (no EOL date yet, or one after today), newest first (by version,
  numbers compared as numbers: 3.13, 3.12, 3.1, 2.7), since the provider takes the first one as the latest;
  `eolVersions`: the cycles whose EOL date has passed, newest first. A cycle that ended without a date
  (`eol: true`) is in neither: clients parse an EOL entry's `eolDate` as YYYY-MM-DD, and there is none.
- Each entry: `version` (the cycle), `releaseDate` and `eolDate` (YYYY-MM-DD, as imported), `lts`,
  `latestVersion` (the cycle's latest release), `exists` true. The vendor's product fields answer their zero
  values: `fips` false (no FIPS builds are known here), `eolBroken` false, no `versionSource`, no `legacyLts`.
- Top level: `latestVersion` is the newest supported cycle's version, `lastUpdatedTimestamp` the time of the
  import that gave the data (RFC 3339 UTC), `gracePeriodMonths` 0 (no grace-period data).

The method is unscoped (CAP_VERSION_LIST): the data comes from the repos in subtrees where the caller holds
it; when several of those repos have data for the package, the latest import answers whole. No such repo
is NOT_FOUND, which the provider reads as "no data" (its default answer), unlike any other error.
"""

from __future__ import annotations

import datetime

from platform_api.core import errors
from platform_api.core.patterns import DIGITS, Pattern
from platform_api.gen.records.registry import PackageVersion, PackageVersionMetadata, PackageVersionMetadataRequest
from platform_api.registry import eol
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
RESOURCE = "chainguard.platform.registry.PackageVersionMetadata"
_PACKAGE = Pattern(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")  # what `import eol` accepts


def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Orders versions as people read them: digit runs as numbers (3.12 after 3.9), other runs as text, a
    number after any text at the same place."""
    out: list[tuple[int, int, str]] = []
    run = ""
    for c in version + "\0":
        if run and (c == "\0" or (c in DIGITS) != (run[-1] in DIGITS)):
            out.append((1, int(run), "") if run[-1] in DIGITS else (0, 0, run))
            run = ""
        run += c
    return tuple(out)


def _newest_first(cycles: list[PackageVersion]) -> list[PackageVersion]:
    return sorted(cycles, key=lambda v: (version_key(v.version), v.releaseDate), reverse=True)


def metadata(imported: eol.Imported, today: str) -> PackageVersionMetadata:
    supported: list[PackageVersion] = []
    ended: list[PackageVersion] = []
    for version, ended_undated in imported.cycles:
        if ended_undated:
            continue
        (ended if version.eolDate and version.eolDate <= today else supported).append(version)
    out = PackageVersionMetadata(
        versions=_newest_first(supported), eolVersions=_newest_first(ended), lastUpdatedTimestamp=imported.update_time
    )
    if out.versions:
        out.latestVersion = out.versions[0].version
    return out


@rpc(SERVICE + "GetPackageVersionMetadata")
async def get_package_version_metadata(req: PackageVersionMetadataRequest, ctx: Context) -> PackageVersionMetadata:
    if not req.package:
        raise errors.invalid_argument("package", "package is required")
    if not _PACKAGE.fullmatch(req.package):
        raise errors.invalid_argument("package", f"{req.package[:60]!r} is not a package name")
    roots = ctx.visible_roots()
    imported = await eol.imported_package(ctx.rt.db, req.package, roots)
    if imported is None:
        raise errors.not_found(RESOURCE, req.package)
    return metadata(imported, datetime.date.today().isoformat())
