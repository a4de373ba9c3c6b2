"""Deleting a group removes the advisories imported into it (no API call deletes advisories, so the group
must not stay undeletable); the global feed's documents stay; a later import into another group works."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import imported, mk_group

ALPHABET = "23456789cfghjmpqrvwx"


def test_group_delete_removes_its_advisories(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    group = mk_group(http, org, "adv-" + secrets.token_hex(3))["uid"]
    package = "life-" + secrets.token_hex(4)
    cga = "CGA-" + "-".join("".join(random.choice(ALPHABET) for _ in range(4)) for _ in range(3))
    (tmp_path / f"{package}.advisories.yaml").write_text(
        f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n  - id: {cga}\n"
        "    aliases: [CVE-2031-7777777]\n    events:\n      - timestamp: 2031-01-03T00:00:00Z\n"
        "        type: fix-not-planned\n        data:\n          note: n\n"
    )
    assert imported(server, "advisories", str(tmp_path), "--group", group)["created"] == 1
    listed = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org}).json()
    assert [a["advisoryId"] for a in listed["advisories"]] == [cga] and listed["totalCount"] == "1"
    uid = listed["advisories"][0]["uid"]

    r = http.delete(f"/iam/v2/groups/{group}")
    assert r.status_code == 200, r.text
    assert http.get(f"/vulnerabilities/v2/advisories/{uid}").status_code == 404
    after = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org}).json()
    assert after.get("advisories", []) == [] and after["totalCount"] == "0"
    feed = httpx.get(server.base_url + "/advisory/v2/documents", params={"id": package}).json()
    assert [d["id"] for d in feed["documents"]] == [package]
    # The same input imports again into another group, as new advisories.
    assert imported(server, "advisories", str(tmp_path), "--group", org)["created"] == 1
