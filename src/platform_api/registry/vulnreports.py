"""Vulnerability reports per (repo, digest, generation time): written by `import vulnreport`, read by the
v1 GetVulnReport (the latest report of a digest) and ListVulnCountReports (per repo, tag and day)."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import msgspec

from platform_api.core import clock
from platform_api.gen.records.tenant import VulnReport
from platform_api.service import listing
from platform_api.store import rows
from platform_api.store.db import Conn

# Reports one counts call aggregates at most (v1 lists have no paging): beyond it the caller narrows.
MAX_COUNT_ROWS = 10_000


async def put(
    tx: Conn, repo: str, digest: str, report: VulnReport, counts: dict[str, list[str]], size: int, raw: bytes
) -> str:
    """Record `report`: "created", "updated" (same generation time, other content) or "unchanged"."""
    generated = report.report_generation or ""
    sha = hashlib.sha256(raw).hexdigest()
    old = await tx.fetchval(
        "SELECT raw_sha256 FROM vuln_reports WHERE repo = $1 AND digest = $2 AND generated = $3",
        repo,
        digest,
        generated,
    )
    if old == sha:
        return "unchanged"
    body, counted = rows.body(report), json.dumps({"size": size, "ids": counts}, sort_keys=True)
    if old is None:
        await tx.execute(
            "INSERT INTO vuln_reports (repo, digest, generated, day, raw_sha256, last_seen, body, counts, raw)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            repo, digest, generated, generated[:10], sha, clock.now(), body, counted, raw,
        )  # fmt: skip
        return "created"
    await tx.execute(
        "UPDATE vuln_reports SET raw_sha256 = $4, last_seen = $5, body = $6, counts = $7, raw = $8"
        " WHERE repo = $1 AND digest = $2 AND generated = $3",
        repo, digest, generated, sha, clock.now(), body, counted, raw,
    )  # fmt: skip
    return "updated"


async def latest(conn: Conn, repo: str, digest: str) -> VulnReport | None:
    """The most recent report on `digest` in `repo`, with its raw bytes and lastSeen."""
    row = await conn.fetchrow(
        "SELECT body, raw, last_seen FROM vuln_reports WHERE repo = $1 AND digest = $2 ORDER BY generated DESC LIMIT 1",
        repo, digest,
    )  # fmt: skip
    if row is None:
        return None
    report = _decode(row["body"])
    report.raw_vuln_report = base64.b64encode(bytes(row["raw"])).decode()
    report.last_seen = row["last_seen"]
    return report


def cvss_score(score: float) -> str:
    """A CVSS base score as the v1 contract carries it (a string): one decimal, as CVSS defines base scores."""
    return f"{score:.1f}"


def _decode(body: str) -> VulnReport:
    """A stored report. Reports imported before the v1 contract's messages hold CVSS scores as numbers (read
    as the contract's strings), and those imported before NaN and Infinity were refused the null msgspec
    wrote for such a score (read as no score)."""
    try:
        return rows.decode(VulnReport, body)
    except msgspec.ValidationError:
        doc = json.loads(body)
        for match in doc.get("vulnerabilityMatches", []):
            for cvss in (match.get("vulnerability") or {}).get("cvss", []):
                score = cvss.get("score", "")
                if score is None:
                    del cvss["score"]
                elif isinstance(score, int | float):
                    cvss["score"] = cvss_score(score)
        return msgspec.convert(doc, VulnReport)


@dataclass
class Counted:
    """One report's counts under one tag: the repo's name, the tag, the day, size, severity -> ids, and the
    characters of the stored counts (what they take of an answer's budget)."""

    repo: str
    tag: str
    day: str
    size: int
    ids: dict[str, list[str]]
    stored: int = 0


class TooMany(Exception):
    pass


class TooLarge(Exception):
    """The reports' counts would take the answer over its byte budget."""


async def counts(
    conn: Conn, repo_name: str, tag: str, since: str, until: str, roots: list[str] | None, budget: int
) -> list[Counted]:
    """The latest report per (repo, tag, day) of the tags naming a reported digest, filtered by repo name,
    tag, days (inclusive, `YYYY-MM-DD`) and, when `roots` is not None, to repos under those groups.
    Ordered by repo name, tag, day. TooMany beyond MAX_COUNT_ROWS reports; TooLarge when their stored
    counts (vulnerability ids: up to 100,000 per report) take more than `budget` characters, which is
    known from their lengths before any is read."""
    conds, args = [], []

    def p(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    if repo_name:
        conds.append(f"r.name = {p(repo_name)}")
    if tag:
        conds.append(f"t.name = {p(tag)}")
    if since:
        conds.append(f"v.day >= {p(since)}")
    if until:
        conds.append(f"v.day <= {p(until)}")
    if roots is not None:
        # A balanced OR: a caller may see hundreds of organizations, deeper than SQLite's expression limit.
        seen = [f"(v.repo > {p(r + '/')} AND v.repo < {p(r + '0')})" for r in roots]
        conds.append(listing.any_of(seen) if seen else "1 = 0")
    where = (" WHERE " + " AND ".join(conds)) if conds else ""
    sql = (
        "SELECT {} FROM vuln_reports v"
        " JOIN repos r ON r.uid = v.repo JOIN tags t ON t.parent = v.repo AND t.digest = v.digest"
        f"{where} ORDER BY r.name, t.name, v.day, v.generated LIMIT {MAX_COUNT_ROWS + 1}"
    )
    sizes = await conn.fetch(sql.format("length(v.counts) AS n"), *args)
    if len(sizes) > MAX_COUNT_ROWS:
        raise TooMany()
    if sum(int(r["n"]) for r in sizes) > budget:
        raise TooLarge()
    found = await conn.fetch(sql.format("v.repo, r.name AS repo_name, t.name AS tag, v.day, v.counts"), *args)
    if len(found) > MAX_COUNT_ROWS or sum(len(r["counts"]) for r in found) > budget:  # an import in between
        raise TooLarge()
    out: dict[tuple[str, str, str], Counted] = {}
    for r in found:  # later generations of a day replace earlier ones
        c = json.loads(r["counts"])
        out[(r["repo"], r["tag"], r["day"])] = Counted(
            r["repo_name"], r["tag"], r["day"], int(c["size"]), c["ids"], len(r["counts"])
        )
    return list(out.values())
