"""In-process tests of the pure parts behind ListVulnerabilityMetadata: CVSS vectors and the v3 base score
(FIRST.org formula against published examples), the OSV parser's decisions, and
vulnerabilities.metadata.severities() (what Advisory.severities is filled from) on a real SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from platform_api.gen.records.vulnerabilities_v2 import Severity
from platform_api.store import db as store
from platform_api.store.migrate import migrate
from platform_api.vulnerabilities import metadata, osv, osv_cvss


@pytest.mark.parametrize(
    ("vector", "score"),
    [
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1),
        ("CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 7.8),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H", 7.5),
        ("CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N", 5.9),
        ("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 8.8),
        ("CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H", 7.2),
        ("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", 5.3),
        ("CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N", 1.6),
        ("CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0.0),
        ("CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", 8.8),
        # temporal and environmental metrics do not change the base score
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:R/CR:H/MAV:L", 9.8),
    ],
)
def test_v3_base_score(vector: str, score: float) -> None:
    assert osv_cvss.base_score_v3(vector) == score


def test_v31_roundup_avoids_floating_point_artefacts() -> None:
    assert osv_cvss._roundup_31(4.000000000000001) == 4.0
    assert osv_cvss._roundup_30(4.000000000000001) == 4.1
    assert osv_cvss._roundup_31(4.02) == 4.1


@pytest.mark.parametrize(
    ("parse", "vector", "problem"),
    [
        (osv_cvss.base_score_v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H", "base metric(s) A missing"),
        (osv_cvss.base_score_v3, "CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "AV appears twice"),
        (osv_cvss.base_score_v3, "CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "AV:X is not a valid value"),
        (osv_cvss.base_score_v3, "CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "starts with CVSS:3.0/ or CVSS:3.1/"),
        (osv_cvss.base_score_v3, "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "starts with CVSS:3.0/"),
        (osv_cvss.base_score_v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:1", "unknown metric ZZ"),
        (osv_cvss.base_score_v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A", "not a metric:value pair"),
        (osv_cvss.base_score_v3, "", "empty vector"),
        (osv_cvss.parse_v2, "CVSS:2.0/AV:N/AC:L/Au:N/C:P/I:P/A:P", "has no prefix"),
        (osv_cvss.parse_v2, "AV:N/AC:L/Au:N/C:P/I:P", "base metric(s) A missing"),
        (osv_cvss.parse_v4, "CVSS:3.1/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", "starts with CVSS:4.0/"),
        (osv_cvss.parse_v4, "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N", "base metric(s) SA missing"),
        (osv_cvss.parse_v4, "CVSS:4.0/" + "/".join(["AV:N"] * 200), "longer than 256 characters"),
    ],
)
def test_bad_vectors(parse: Any, vector: str, problem: str) -> None:
    with pytest.raises(osv_cvss.BadVector, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse(vector)


def test_valid_v2_and_v4_vectors() -> None:
    assert osv_cvss.parse_v2("AV:N/AC:M/Au:N/C:P/I:P/A:P/E:POC/RL:OF/RC:C")["Au"] == "N"
    v4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:A/MSI:S/U:Amber"
    assert osv_cvss.parse_v4(v4)["U"] == "Amber"
    assert [osv_cvss.rating(s) for s in (0.0, 3.9, 4.0, 7.0, 9.0)] == ["NONE", "LOW", "MEDIUM", "HIGH", "CRITICAL"]


def test_parser_decisions() -> None:
    r = osv.parse(
        {
            "id": "GHSA-aaaa-bbbb-cccc",
            "modified": "2024-01-02T03:04:05.678901+01:00",
            "aliases": ["CVE-2024-1", "GHSA-aaaa-bbbb-cccc", "CVE-2024-1"],
            "severity": [
                {"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"},
                {"type": "Ubuntu", "score": "high"},
                {"type": "SOMETHING_NEW", "score": "7/10"},
            ],
            "affected": [{"severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}]}],
            "references": [{"type": "GIT", "url": "https://x.example/r.git"}, {"type": "NEWTYPE", "url": "https://y"}],
            "withdrawn": "2024-02-01T00:00:00Z",
            "credits": [{"name": "someone"}],
        }
    )
    assert r.modified == "2024-01-02T02:04:05.678Z" and r.withdrawn == "2024-02-01T00:00:00.000Z"
    assert r.aliases == ["CVE-2024-1"]  # own id and duplicates dropped
    assert [(s.type, s.score) for s in r.metadata.severities] == [
        ("TYPE_CVSS_V3", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"),  # the affected[] copy merged away
        ("TYPE_UNSPECIFIED", "high"),
        ("TYPE_UNSPECIFIED", "7/10"),
    ]
    assert [ref.type for ref in r.metadata.references] == ["TYPE_UNSPECIFIED", "TYPE_UNSPECIFIED"]
    # The digest covers the content: any change shows.
    again = osv.parse({"id": "GHSA-aaaa-bbbb-cccc", "modified": "2024-01-02T02:04:05.678Z"})
    assert (
        again.digest() != r.digest()
        and again.digest() == osv.parse({"id": "GHSA-aaaa-bbbb-cccc", "modified": "2024-01-02T02:04:05.678Z"}).digest()
    )


@pytest.mark.parametrize(
    ("doc", "path", "problem"),
    [
        ({"modified": "2024-01-01T00:00:00Z"}, "$.id", "must be a string, got null"),
        ({"id": "", "modified": "2024-01-01T00:00:00Z"}, "$.id", "must not be empty"),
        ({"id": "A/B", "modified": "2024-01-01T00:00:00Z"}, "$.id", "is not a vulnerability id"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00"}, "$.modified", "time zone"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "summary": "x" * 9000}, "$.summary", "longer than 8192"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "affected": [3]}, "$.affected[0]", "must be an object"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "severity": [{"type": "CVSS_V3"}]},
         "$.severity[0].score", "must be a string, got null"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "references": [{"type": 1, "url": "https://x"}]},
         "$.references[0].type", "must be a string, got a number"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "references": [{"type": "WEB", "url": "no url"}]},
         "$.references[0].url", "is not a URL"),
        ({"id": "A-1", "modified": "2024-01-01T00:00:00Z", "aliases": [f"CVE-{i}" for i in range(1001)]},
         "$.aliases", "more than 1000 items"),
    ],
)  # fmt: skip
def test_parser_rejections(doc: dict[str, Any], path: str, problem: str) -> None:
    with pytest.raises(osv.Invalid) as e:
        osv.parse(doc)
    assert e.value.path == path and problem in e.value.problem


V3 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
V2 = "AV:N/AC:L/Au:N/C:P/I:P/A:P"


def test_severities_by_id_or_alias(tmp_path: Path) -> None:
    """What the Advisory resource uses: severities of the record answering to each id (its own or an alias)."""

    async def go() -> dict[str, list[Severity]]:
        database = await store.connect(f"sqlite:///{tmp_path / 'unit.db'}")
        try:
            await migrate(database)
            docs = [
                {"id": "GHSA-1", "modified": "2024-01-01T00:00:00Z", "aliases": ["CVE-1", "CGA-1"],
                 "severity": [{"type": "CVSS_V3", "score": V3}]},
                {"id": "CVE-2", "modified": "2024-01-01T00:00:00Z", "severity": [{"type": "CVSS_V2", "score": V2}]},
                {"id": "GHSA-2", "modified": "2024-05-01T00:00:00Z", "aliases": ["CVE-2"]},
                {"id": "NOSEV-1", "modified": "2024-01-01T00:00:00Z"},
            ]  # fmt: skip
            async with database.transaction() as tx:
                outcomes = await metadata.apply(tx, [osv.parse(d) for d in docs])
            assert outcomes == ["created"] * 4
            return await metadata.severities(database, ["CGA-1", "CVE-1", "CVE-2", "GHSA-2", "NOSEV-1", "CVE-404"])
        finally:
            await database.close()

    found = asyncio.run(go())
    v3, v2 = [Severity(type="TYPE_CVSS_V3", score=V3)], [Severity(type="TYPE_CVSS_V2", score=V2)]
    assert found == {
        "CGA-1": v3,  # an alias of GHSA-1
        "CVE-1": v3,
        "CVE-2": v2,  # the record with exactly that id wins over the (newer) GHSA-2 aliasing it
        "GHSA-2": [],
        "NOSEV-1": [],
    }
    assert all(isinstance(s, Severity) for sevs in found.values() for s in sevs)
