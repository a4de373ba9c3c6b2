"""Reading images back from a Distribution registry by digest, with the OCI import's checks (oci.Layout's
walk: media types, caps on documents, entries and nesting, each blob's sha256 and size), so that what we
record comes from the registry's own content, never from a notification's say-so.

The requests go through the process's async client (auth/upstream.Outbound) on the event loop; the walk over
what they return (oci.Layout's: parsing, hashing, the caps) runs in a worker thread, which asks the loop for
each document it needs (`blob`), so the loop never parses or hashes a document. Manifests and indexes
come from `/v2/<name>/manifests/<digest>`, config blobs from `/v2/<name>/blobs/<digest>` (object storage
behind the registry may redirect those: at most MAX_REDIRECTS, each target checked as an issuer's or a sink's
URL is, core/netcheck: https, a public address, connected to as checked; http and loopback only under
`--insecure-allow-loopback`); layers are never fetched (their sizes are their descriptors'). Every body is
read as a stream and dropped past its limit.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from pathlib import Path
from typing import Any

import httpx

from platform_api.core import netcheck
from platform_api.registry import oci
from platform_api.service import imports
from platform_api.service.imports import BadInput

ACCEPT = ", ".join(oci.MANIFESTS + oci.INDEXES)
TIMEOUT_SECONDS, CONNECT_SECONDS = 10.0, 5.0  # of each request of a read-back (the process's client's)
MAX_REDIRECTS = 3


class Unreachable(Exception):
    """The registry did not answer as it should (down, 5xx): the notification is to be delivered again."""


class RegistryLayout(oci.Layout):
    """One repository of a registry, read as a layout would be (the `root` only names it in messages)."""

    def __init__(self, client: httpx.AsyncClient, base: str, name: str, token: str, allow_loopback: bool) -> None:
        """Made on the event loop, whose client it uses; `allow_loopback`: netcheck.resolve's, for redirects."""
        super().__init__(Path(f"{base}/{name}"), imports.Progress("registry", stream=io.StringIO()))
        self.client, self.base, self.name, self.allow_loopback = client, base.rstrip("/"), name, allow_loopback
        self.headers = {"authorization": f"Bearer {token}"}
        self.loop = asyncio.get_running_loop()

    def has_blob(self, digest: str) -> bool:
        return True  # a registry holds every blob a manifest it accepted references

    def _layer(self, manifest_path: Path, i: int, d: oci.Descriptor) -> None:
        """Layers are not fetched: the registry checked their sizes when it accepted the manifest."""

    async def head(self, reference: str) -> oci.Descriptor | None:
        """The descriptor of the manifest or index `reference` (a tag or a digest) names now; None when the
        registry has none."""
        url = f"{self.base}/v2/{self.name}/manifests/{reference}"
        try:
            r = await self.client.head(url, headers=self._headers(True), follow_redirects=False)
        except httpx.HTTPError as e:
            raise Unreachable(f"HEAD {reference}: {e}") from e
        if r.status_code == 404:
            return None
        self._expect(r, reference)
        digest = r.headers.get("docker-content-digest", "")
        media = r.headers.get("content-type", "").split(";")[0].strip()
        try:
            size = int(r.headers.get("content-length", "-1"))
        except ValueError:
            size = -1
        if not digest.startswith("sha256:") or media not in oci.MANIFESTS + oci.INDEXES or not size >= 0:
            raise BadInput(self.root, reference, f"the registry described it as {media[:80]!r}, {digest[:80]!r}")
        return oci.Descriptor(media, digest, size, {}, {})

    async def read_image(self, top: oci.Descriptor) -> oci.Content:
        """The images `top` consists of (itself, its entries, their configs' platforms)."""
        await asyncio.to_thread(self._visit, top, 1)
        return self.content

    def blob(self, d: oci.Descriptor, limit: int) -> tuple[Path, bytes]:
        """The manifest, index or config blob of `d`, checked against its digest and size (in the walk's thread:
        the request is made on the loop)."""
        where = self.blob_path(d.digest)
        if d.size > limit:
            raise BadInput(where, "", f"descriptor size {d.size} is over the limit of {limit} bytes")
        document = d.media_type in oci.MANIFESTS + oci.INDEXES
        url = f"{self.base}/v2/{self.name}/{'manifests' if document else 'blobs'}/{d.digest}"
        get = self._get(url, self._headers(document), limit, where, d.digest, 0 if document else MAX_REDIRECTS)
        data = asyncio.run_coroutine_threadsafe(get, self.loop).result()
        if len(data) != d.size:
            raise BadInput(where, "", f"{len(data)} bytes, but its descriptor says {d.size}")
        if hashlib.sha256(data).hexdigest() != d.digest.removeprefix("sha256:"):
            raise BadInput(where, "", f"content does not match its digest {d.digest}")
        return where, data

    async def _get(
        self, url: str, headers: dict[str, str], limit: int, where: Path, what: str, redirects: int
    ) -> bytes:
        """A body of at most `limit` bytes; a redirect (object storage) is followed without our token, to a
        target that passes the outbound checks, connected to at the address checked."""
        named = url  # the URL as named (a relative Location is resolved against it), `url` the one connected to
        extensions: dict[str, Any] = {}
        for hop in range(redirects + 1):
            try:
                async with self.client.stream(
                    "GET", url, headers=headers, extensions=extensions, follow_redirects=False
                ) as r:
                    if r.is_redirect:
                        if hop == redirects:
                            break
                        location = r.headers.get("location", "")
                        named, url, headers, extensions = await self._redirected(named, location, where, what)
                        continue
                    self._expect(r, what)
                    data = bytearray()
                    async for chunk in r.aiter_bytes():
                        data += chunk
                        if len(data) > limit:
                            raise BadInput(where, "", f"over the limit of {limit} bytes")
                    return bytes(data)
            except httpx.HTTPError as e:
                raise Unreachable(f"GET {what}: {e}") from e
        raise Unreachable(f"more than {redirects} redirects for {what}")

    async def _redirected(
        self, named: str, location: str, where: Path, what: str
    ) -> tuple[str, str, dict[str, str], dict[str, Any]]:
        """The request a redirect from `named` to `location` leads to: its URL as named, the URL to connect to
        (pinned to the address its check found: the Host header and TLS server name stay the name's), headers
        and extensions. BadInput when it is refused: delivering the notification again would be refused again."""
        try:
            named = str(httpx.URL(named).join(location))
            target = await netcheck.resolve(named, self.allow_loopback)
        except (netcheck.Refused, httpx.InvalidURL, ValueError) as e:
            raise BadInput(where, "", f"{what} redirected to {location[:200]!r}, which is refused: {e}") from None
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        return named, target.url, {"host": target.host_header}, extensions

    def _headers(self, document: bool) -> dict[str, str]:
        return {**self.headers, "accept": ACCEPT} if document else self.headers

    def _expect(self, r: httpx.Response, what: str) -> None:
        if r.status_code >= 500 or r.status_code in (401, 403, 429):
            raise Unreachable(f"the registry answered {r.status_code} for {what}")
        if r.status_code != 200:
            raise BadInput(self.root, what, f"the registry answered {r.status_code}")
