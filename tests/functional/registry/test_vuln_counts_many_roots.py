"""ListVulnCountReports for a caller holding vuln_report.list on over 1,000 organizations (the unconfined
owner, who owns each organization it creates): the visibility condition over that many roots is a balanced
OR (SQLite refuses expressions deeper than 1,000), so the call answers, with the reports the caller sees."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import BACKENDS, Server, mk_org, start_server, stop_server
from tests.helpers.registry import GRYPE_REPORT as REPORT
from tests.helpers.registry import counts, image

ROOTS = 1_000


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own: on the run's shared one, the owner's 1,000 organizations would stay, and every later
    test there would see WhoAmI refuse the owner's token (over 1,000 capability entries)."""
    s = start_server(request.param, tmp_path_factory.mktemp(request.param))
    yield s
    stop_server(s)


def test_counts_over_a_thousand_visible_organizations(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    # Eight at a time: the server commits concurrent writes together (one at a time, each waited for its own).
    with ThreadPoolExecutor(8) as pool:
        orgs = list(pool.map(lambda _: mk_org(http), range(ROOTS)))
    repo, name, digest = image(server, http, orgs[-1], tmp_path, ("latest",))
    server.cli("import", "vulnreport", repo, digest, str(REPORT))
    assert [(i["repo"], i["tag"]) for i in counts(http, repo=name)] == [(name, "latest")]
    assert name in {i["repo"] for i in counts(http, tag="latest")}
    # A viewer of the first organization only does not see the last one's report.
    _, token = server.identity_with_role(orgs[0], "viewer")
    with server.client(token) as viewer:
        assert counts(viewer, repo=name) == []
