"""Vulnerability reports per (repo, digest, generation time): written by `import vulnreport`, read by the
v1 GetVulnReport (the latest report of a digest), ListVulnCountReports (per repo, tag and day), ListVulnReports
and GetRawVulnReport (every generation, by repo, digest, tag and time). Their table is `queries`'s (its
counts join the repos and the tags)."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

import msgspec

from platform_api.gen.records.tenant import VulnReport
from platform_api.registry import queries
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
    old = await queries.report_sha(tx, repo, digest, generated)
    if old == sha:
        return "unchanged"
    body, counted = rows.body(report), json.dumps({"size": size, "ids": counts}, sort_keys=True)
    await queries.write_report(tx, repo, digest, generated, sha, body, counted, raw, new=old is None)
    return "created" if old is None else "updated"


async def latest(conn: Conn, repo: str, digest: str) -> VulnReport | None:
    """The most recent report on `digest` in `repo`, with its raw bytes and lastSeen."""
    row = await queries.latest_report(conn, repo, digest)
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
    filters = (repo_name, tag, since, until, roots, MAX_COUNT_ROWS + 1)
    sizes = await queries.report_counts(conn, "length(v.counts) AS n", *filters)
    if len(sizes) > MAX_COUNT_ROWS:
        raise TooMany()
    if sum(int(r["n"]) for r in sizes) > budget:
        raise TooLarge()
    found = await queries.report_counts(conn, "v.repo, r.name AS repo_name, t.name AS tag, v.day, v.counts", *filters)
    if len(found) > MAX_COUNT_ROWS or sum(len(r["counts"]) for r in found) > budget:  # an import in between
        raise TooLarge()
    out: dict[tuple[str, str, str], Counted] = {}
    for r in found:  # later generations of a day replace earlier ones
        c = json.loads(r["counts"])
        out[(r["repo"], r["tag"], r["day"])] = Counted(
            r["repo_name"], r["tag"], r["day"], int(c["size"]), c["ids"], len(r["counts"])
        )
    return list(out.values())


class TooManyReports(Exception):
    """More than the `limit` a list call answers: `matched` is how many were found (limit + 1 at most)."""

    def __init__(self, matched: int) -> None:
        self.matched = matched


@dataclass
class Listed:
    """One stored report as a list answers it: its digest and the report (without raw bytes)."""

    digest: str
    report: VulnReport


async def listed(
    conn: Conn, repo: str, digest: str, tag: str, since: str, roots: list[str] | None, limit: int, budget: int
) -> list[Listed]:
    """Every report (each generation) filtered by repo uid, digest, tag, generation from `since` (to the
    second) and, when `roots` is not None, repos under those groups; ordered by repo, digest, generation.
    TooManyReports beyond `limit`; TooLarge when their stored bodies take more than `budget` characters,
    known from their lengths before any is read."""
    filters = (repo, digest, tag, since, "", roots, limit + 1)
    sizes = await queries.reports(conn, "length(v.body) AS n", *filters)
    if len(sizes) > limit:
        raise TooManyReports(len(sizes))
    if sum(int(r["n"]) for r in sizes) > budget:
        raise TooLarge()
    found = await queries.reports(conn, "v.digest, v.body", *filters)
    if len(found) > limit or sum(len(r["body"]) for r in found) > budget:  # an import in between
        raise TooLarge()
    return [Listed(r["digest"], _decode(r["body"])) for r in found]


async def raw(conn: Conn, digest: str, at: str, roots: list[str] | None) -> tuple[VulnReport, bytes] | None:
    """The report on `digest` generated exactly `at` ("" for the most recent one) in a repo under `roots`
    (None: anywhere), with its raw bytes. A digest in several repos: the most recent of them."""
    found = await queries.reports(conn, "v.body, v.raw", "", digest, "", "", at, roots, 1, newest_first=True)
    if not found:
        return None
    return _decode(found[0]["body"]), bytes(found[0]["raw"])
