"""Registry resources made over HTTP for the tests that need one, and the image reads by digest."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers.iam import ok, unique


def mk_repo(http: httpx.Client, parent: str, name: str | None = None, **fields: Any) -> dict[str, Any]:
    """A repo under the group `parent` with `fields`: the repo as created."""
    return ok(http.post(f"/registry/v2/repos/{parent}", json={"name": name or unique("repo"), **fields}))


def image_architectures(http: httpx.Client, repo: str, digest: str) -> httpx.Response:
    """GET the architectures of the image `digest` in `repo` (ImagesService)."""
    return http.get(f"/registry/v2/repos/{repo}/digests/{digest}/architectures")


def image_size(http: httpx.Client, repo: str, digest: str, arch: str = "") -> httpx.Response:
    """GET the size of the image `digest` in `repo`, of one architecture's manifest when `arch` is given."""
    params = {"architecture": arch} if arch else {}
    return http.get(f"/registry/v2/repos/{repo}/digests/{digest}/size", params=params)
