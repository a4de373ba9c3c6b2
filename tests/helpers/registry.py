"""Registry resources made over HTTP for the tests that need one."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers.iam import ok, unique


def mk_repo(http: httpx.Client, parent: str, name: str | None = None, **fields: Any) -> dict[str, Any]:
    """A repo under the group `parent` with `fields`: the repo as created."""
    return ok(http.post(f"/registry/v2/repos/{parent}", json={"name": name or unique("repo"), **fields}))
