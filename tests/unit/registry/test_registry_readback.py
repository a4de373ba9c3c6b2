"""The registry read-back (notifications.Registry) goes through the async client it is given, and
waits for a pushed tag: Distribution notifies a push once the manifest is stored and links the tag after,
so the first look at the tag may still find the previous image (or none)."""

from __future__ import annotations

import asyncio
import hashlib
import json

import httpx

from platform_api.registry.dataplane import notifications

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = json.dumps({"architecture": "arm64", "os": "linux"}).encode()
CONFIG_DIGEST = "sha256:" + hashlib.sha256(CONFIG).hexdigest()
MANIFEST = json.dumps({
    "schemaVersion": 2, "mediaType": OCI_MANIFEST,
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": CONFIG_DIGEST, "size": len(CONFIG)},
    "layers": [],
}).encode()  # fmt: skip
DIGEST = "sha256:" + hashlib.sha256(MANIFEST).hexdigest()


class _Registry:
    """Answers 404 for the tag the first `unlinked` times it is asked, then the manifest."""

    def __init__(self, unlinked: int) -> None:
        self.unlinked, self.asked = unlinked, 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v2/org/app/manifests/latest":
            self.asked += 1
            if self.asked <= self.unlinked:
                return httpx.Response(404)
        if "/manifests/" in path:
            headers = {"docker-content-digest": DIGEST, "content-type": OCI_MANIFEST}
            if request.method == "HEAD":
                return httpx.Response(200, headers=headers | {"content-length": str(len(MANIFEST))})
            return httpx.Response(200, headers=headers, content=MANIFEST)
        if path == f"/v2/org/app/blobs/{CONFIG_DIGEST}":
            return httpx.Response(200, content=CONFIG)
        return httpx.Response(404)


def _read(registry: _Registry) -> tuple[str | None, list[str]]:
    async def go() -> tuple[str | None, list[str]]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(registry)) as client:
            reg = notifications.Registry("http://registry", lambda name: "token", client, False)
            top, content = await reg.read("org/app", "latest", DIGEST)
        return (top.digest if top else None), sorted(content.images) if content else []

    return asyncio.run(go())


def test_a_tag_linked_after_the_notification_is_read_once_linked() -> None:
    registry = _Registry(unlinked=2)
    assert _read(registry) == (DIGEST, [DIGEST])
    assert registry.asked == 3


def test_a_tag_never_linked_reads_as_gone_after_the_wait() -> None:
    registry = _Registry(unlinked=1000)
    assert _read(registry) == (None, [])
    assert registry.asked == notifications.LINK_TRIES + 1
