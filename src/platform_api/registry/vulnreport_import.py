"""`platform-api import vulnreport <repo-uid> <digest> <grype.json>`: a Grype JSON report on an image
(known from `import oci`) into the v1 VulnReport and the counts that
ListVulnCountReports aggregates. A report is keyed by (repo, digest, descriptor.timestamp): the same
report again is unchanged, a new scan of the image is another report (the latest one is served).
One transaction. Trivy JSON is not read."""

from __future__ import annotations

import argparse
import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from platform_api.core import validate
from platform_api.core.patterns import Pattern
from platform_api.gen.records.tenant import (
    Fix,
    Package2,
    Scanner,
    VulnerabilityMatch,
    VulnerabilityRecord,
    VulnerabilityRecord_Cvss,
    VulnerabilityRecord_RelatedVulnerability,
    VulnReport,
)
from platform_api.registry import images, vulnreports
from platform_api.registry.oci_import import repo_or_bad
from platform_api.service import imports
from platform_api.service.imports import BadInput

HELP = "a Grype JSON vulnerability report on an image: served by the v1 vulnreport and counts calls"
MAX_MATCHES = 100_000
# The raw report is kept and answered whole (GetVulnReport's rawVulnReport, base64), next to its matches: at
# this size the answer stays well below the server's answer backstop (api.dispatch.MAX_ENCODED_ANSWER).
MAX_REPORT = 16 << 20
MAX_TEXT = 16_384
_TIME = Pattern(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?")
# Grype's severities; Negligible counts apart but is LOW in the report's record (which has no such value).
SEVERITIES = {"unknown": "UNKNOWN", "negligible": "NEGLIGIBLE", "low": "LOW", "medium": "MEDIUM",
              "high": "HIGH", "critical": "CRITICAL"}  # fmt: skip
FIX_STATES = {"fixed": "FIXED", "not-fixed": "NOT_FIXED", "wont-fix": "WONT_FIX", "unknown": "UNKNOWN", "": "UNKNOWN"}


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_uid", help="the repo of the image")
    parser.add_argument("digest", help="the image's digest (sha256:...), known from `import oci`")
    parser.add_argument("file", type=Path, help="Grype's JSON output (grype -o json)")


def timestamp(file: Path, place: str, value: Any) -> str:
    """An RFC 3339 time in UTC to the millisecond, as protobuf's JSON writes it (no fraction when zero)."""
    m = _TIME.groups(value) if isinstance(value, str) else None
    if m is None:
        raise BadInput(file, place, f"{str(value)[:60]!r} is not an RFC 3339 time")
    day, clock_time, fraction, zone = m
    zone = (zone or "Z").replace("Z", "+00:00")
    frac = (fraction or ".0")[:7]
    try:
        t = datetime.fromisoformat(f"{day}T{clock_time}{frac}{zone}").astimezone(UTC)
    except ValueError as e:
        raise BadInput(file, place, f"{value[:60]!r}: {e}") from None
    ms = t.microsecond // 1000
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{ms:03d}Z" if ms else "Z")


class Reader:
    def __init__(self, file: Path) -> None:
        self.file = file

    def obj(self, value: Any, place: str, required: bool = False) -> dict[str, Any]:
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise BadInput(self.file, place, f"must be an object, not {type(value).__name__}")
        return value

    def items(self, value: Any, place: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise BadInput(self.file, place, f"must be a list, not {type(value).__name__}")
        return value

    def text(self, value: Any, place: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise BadInput(self.file, place, f"must be a string, not {type(value).__name__}")
        return value[:MAX_TEXT]

    def texts(self, value: Any, place: str) -> list[str]:
        return [self.text(v, f"{place}[{i}]") for i, v in enumerate(self.items(value, place))]

    def severity(self, value: Any, place: str) -> str:
        name = self.text(value, place).lower() or "unknown"
        if name not in SEVERITIES:
            raise BadInput(self.file, place, f"unknown severity {name[:40]!r}")
        return SEVERITIES[name]

    def cvss(self, value: Any, place: str) -> list[VulnerabilityRecord_Cvss]:
        out = []
        for i, c in enumerate(self.items(value, place)):
            c = self.obj(c, f"{place}[{i}]", required=True)
            score = self.obj(c.get("metrics"), f"{place}[{i}].metrics").get("baseScore", 0.0)
            # CVSS base scores run from 0 to 10 (NaN and Infinity never get here: load_json refuses them).
            if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 10:
                raise BadInput(self.file, f"{place}[{i}].metrics.baseScore", "must be a number from 0 to 10")
            version = self.text(c.get("version"), f"{place}[{i}].version")
            out.append(VulnerabilityRecord_Cvss(score=vulnreports.cvss_score(score), version=version))
        return out

    def licenses(self, value: Any, place: str) -> str:
        names = []
        for i, lic in enumerate(self.items(value, place)):
            if isinstance(lic, dict):  # newer Grype: {value, spdxExpression, type}
                lic = lic.get("spdxExpression") or lic.get("value")
            names.append(self.text(lic, f"{place}[{i}]"))
        return ", ".join(n for n in names if n)

    def match(self, m: Any, place: str) -> tuple[VulnerabilityMatch, str, str]:
        """One match in the v1 shape, with its display id (a CVE when one is related) and raw severity, which
        the counts use."""
        m = self.obj(m, place, required=True)
        v = self.obj(m.get("vulnerability"), f"{place}.vulnerability", required=True)
        vid = self.text(v.get("id"), f"{place}.vulnerability.id")
        if not vid:
            raise BadInput(self.file, f"{place}.vulnerability.id", "missing")
        severity = self.severity(v.get("severity"), f"{place}.vulnerability.severity")
        related = []
        for i, r in enumerate(self.items(m.get("relatedVulnerabilities"), f"{place}.relatedVulnerabilities")):
            here = f"{place}.relatedVulnerabilities[{i}]"
            r = self.obj(r, here, required=True)
            rid, source = self.text(r.get("id"), f"{here}.id"), self.text(r.get("namespace"), f"{here}.namespace")
            related.append(VulnerabilityRecord_RelatedVulnerability(id=rid, source=source))
        cves = [r.id for r in related if r.id.startswith("CVE-")]
        record = VulnerabilityRecord(
            id=vid, description=self.text(v.get("description"), f"{place}.vulnerability.description"),
            severity="LOW" if severity == "NEGLIGIBLE" else severity,  # type: ignore[arg-type]
            source=self.text(v.get("namespace"), f"{place}.vulnerability.namespace"),
            cvss=self.cvss(v.get("cvss"), f"{place}.vulnerability.cvss"),
            related_urls=self.texts(v.get("urls"), f"{place}.vulnerability.urls"),
            related_vulnerabilities=related,
            display_id=vid if vid.startswith("CVE-") or not cves else cves[0],
        )  # fmt: skip
        a = self.obj(m.get("artifact"), f"{place}.artifact", required=True)
        pkg = Package2(
            id=self.text(a.get("id"), f"{place}.artifact.id"), name=self.text(a.get("name"), f"{place}.artifact.name"),
            version=self.text(a.get("version"), f"{place}.artifact.version"),
            license=self.licenses(a.get("licenses"), f"{place}.artifact.licenses"),
            purl=self.text(a.get("purl"), f"{place}.artifact.purl"),
        )  # fmt: skip
        fix = None
        if v.get("fix") is not None:
            f = self.obj(v.get("fix"), f"{place}.vulnerability.fix")
            state = self.text(f.get("state"), f"{place}.vulnerability.fix.state")
            if state not in FIX_STATES:
                raise BadInput(self.file, f"{place}.vulnerability.fix.state", f"unknown fix state {state[:40]!r}")
            versions = self.texts(f.get("versions"), f"{place}.vulnerability.fix.versions")
            fix = Fix(versions=versions, state=FIX_STATES[state])  # type: ignore[arg-type]
        return VulnerabilityMatch(vulnerability=record, pkg=pkg, fix=fix), record.display_id, severity


def parse(file: Path, raw: bytes) -> tuple[VulnReport, dict[str, list[str]]]:
    """The report (without raw bytes and lastSeen) and severity -> sorted vulnerability ids."""
    r = Reader(file)
    doc = r.obj(imports.load_json(file, raw), "$", required=True)
    if "matches" not in doc or "descriptor" not in doc:
        if "SchemaVersion" in doc and "Results" in doc:
            raise BadInput(file, "$", "a Trivy report: only Grype's JSON (grype -o json) is read")
        raise BadInput(file, "$", "not a Grype JSON report (no matches and descriptor)")
    d = r.obj(doc.get("descriptor"), "$.descriptor", required=True)
    name = r.text(d.get("name"), "$.descriptor.name")
    if name != "grype":
        raise BadInput(file, "$.descriptor.name", f"scanner {name[:40]!r} is not grype")
    db = r.obj(d.get("db"), "$.descriptor.db")
    built, built_place = db.get("built"), "$.descriptor.db.built"
    if built is None and isinstance(db.get("status"), dict):  # Grype 0.88+: db.status.built
        built, built_place = db["status"].get("built"), "$.descriptor.db.status.built"
    matches = r.items(doc.get("matches"), "$.matches")
    if len(matches) > MAX_MATCHES:
        raise BadInput(file, "$.matches", f"{len(matches)} matches is over the limit of {MAX_MATCHES}")
    report = VulnReport(
        id=hashlib.sha256(raw).hexdigest(),
        vulnerability_db_last_build_time=timestamp(file, built_place, built) if built else None,
        scanner=Scanner(name=name, version=r.text(d.get("version"), "$.descriptor.version")),
        report_generation=timestamp(file, "$.descriptor.timestamp", d.get("timestamp")),
    )
    counts: dict[str, set[str]] = {s: set() for s in SEVERITIES.values()}
    for i, m in enumerate(matches):
        match, vid, severity = r.match(m, f"$.matches[{i}]")
        report.vulnerability_matches.append(match)
        counts[severity].add(vid)
    return report, {s: sorted(ids) for s, ids in counts.items()}


async def run(job: imports.Job) -> imports.Summary:
    repo, digest, file = job.args.repo_uid, job.args.digest, job.args.file
    if not validate.is_digest(digest):
        raise BadInput(file, "", f"digest {digest[:80]!r} is not sha256:<64 lowercase hex digits>")
    raw = imports.read_file(file, limit=MAX_REPORT)
    report, counts = parse(file, raw)
    job.progress.total = 1
    summary = imports.Summary()
    async with job.rt.db.transaction() as tx:
        await repo_or_bad(tx, repo)
        if not await images.known(tx, repo, digest):
            raise BadInput(file, "", f"image {digest} is not known in repo {repo} (import its OCI content first)")
        size = await images.size_of(tx, repo, digest)
        summary.tally("reports", await vulnreports.put(tx, repo, digest, report, counts, size, raw))
    job.progress.advance()
    return summary
