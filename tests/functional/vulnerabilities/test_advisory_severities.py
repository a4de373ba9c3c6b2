"""Advisory.severities (OUT) come from OSV records joined through the advisory's id and aliases
(`import osv`, then `import advisories`, in either order), over both transports."""

from __future__ import annotations

import json
import random
import secrets
from pathlib import Path
from typing import Any

import httpx

from platform_api.gen.chainguard.platform.vulnerabilities.v2 import advisories_pb2, advisories_pb2_grpc
from tests.helpers import imported

ALPHABET = "23456789cfghjmpqrvwx"
V31 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
V40 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"


def _word() -> str:
    return "".join(random.choice(ALPHABET) for _ in range(4))


def test_severities_from_osv_by_alias(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    cve, other = (f"CVE-2031-{random.randrange(10**6, 10**7)}" for _ in range(2))
    ghsa = f"GHSA-{_word()}-{_word()}-{_word()}"
    cga, plain = (f"CGA-{_word()}-{_word()}-{_word()}" for _ in range(2))
    package = "sev-" + secrets.token_hex(4)
    osv = tmp_path / "osv"
    osv.mkdir()
    # The GHSA record names the CVE as its alias; the advisory names only the CVE.
    (osv / "ghsa.json").write_text(json.dumps({
        "id": ghsa, "modified": "2031-01-02T00:00:00Z", "aliases": [cve],
        "severity": [{"type": "CVSS_V3", "score": V31}, {"type": "CVSS_V4", "score": V40}],
    }))  # fmt: skip
    imported(server, "osv", str(osv))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / f"{package}.advisories.yaml").write_text(
        f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n"
        + "".join(
            f"  - id: {i}\n    aliases: [{alias}]\n    events:\n      - timestamp: 2031-01-03T00:00:00Z\n"
            "        type: fix-not-planned\n        data:\n          note: n\n"
            for i, alias in ((cga, cve), (plain, other))
        )
    )
    imported(server, "advisories", str(docs), "--group", org)

    r = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org, "artifact_names": package})
    assert r.status_code == 200, r.text
    by_id = {a["advisoryId"]: a for a in r.json()["advisories"]}
    expected = [{"type": "TYPE_CVSS_V3", "score": V31}, {"type": "TYPE_CVSS_V4", "score": V40}]
    assert by_id[cga]["severities"] == expected
    assert by_id[plain].get("severities", []) == []
    got = http.get(f"/vulnerabilities/v2/advisories/{by_id[cga]['uid']}")
    assert got.status_code == 200 and got.json()["severities"] == expected

    stub = advisories_pb2_grpc.AdvisoriesServiceStub(server.channel)
    one = stub.GetAdvisory(advisories_pb2.GetAdvisoryRequest(uid=by_id[cga]["uid"]), timeout=30)
    assert [(s.type, s.score) for s in one.severities] == [(2, V31), (3, V40)]
