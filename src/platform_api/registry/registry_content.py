"""Reading images back from a Distribution registry by digest, with the OCI import's checks (oci.Layout's
walk: media types, caps on documents, entries and nesting, each blob's sha256 and size), so that what we
record comes from the registry's own content, never from a notification's say-so.

Synchronous (httpx.Client): the notification handler runs a read in a worker thread. Manifests and indexes
come from `/v2/<name>/manifests/<digest>`, config blobs from `/v2/<name>/blobs/<digest>` (object storage
behind the registry may redirect those: at most MAX_REDIRECTS, each target checked as an issuer's or a sink's
URL is, core/netcheck: https, a public address, connected to as checked; http and loopback only under
`--insecure-allow-loopback`); layers are never fetched (their sizes are their descriptors'). Every body is
read as a stream and dropped past its limit.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from platform_api.core import netcheck
from platform_api.registry import oci
from platform_api.service import imports
from platform_api.service.imports import BadInput

ACCEPT = ", ".join(oci.MANIFESTS + oci.INDEXES)
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
MAX_REDIRECTS = 3


class Unreachable(Exception):
    """The registry did not answer as it should (down, 5xx): the notification is to be delivered again."""


class RegistryLayout(oci.Layout):
    """One repository of a registry, read as a layout would be (the `root` only names it in messages)."""

    def __init__(
        self, client: httpx.Client, base: str, name: str, token: str, redirect: Callable[[str], netcheck.Target]
    ) -> None:
        """`redirect`: the checked target of a redirect's URL (netcheck.resolve's rules; Refused otherwise)."""
        super().__init__(Path(f"{base}/{name}"), imports.Progress("registry", stream=io.StringIO()))
        self.client, self.base, self.name, self.redirect = client, base.rstrip("/"), name, redirect
        self.headers = {"authorization": f"Bearer {token}"}

    def has_blob(self, digest: str) -> bool:
        return True  # a registry holds every blob a manifest it accepted references

    def _layer(self, manifest_path: Path, i: int, d: oci.Descriptor) -> None:
        """Layers are not fetched: the registry checked their sizes when it accepted the manifest."""

    def head(self, reference: str) -> oci.Descriptor | None:
        """The descriptor of the manifest or index `reference` (a tag or a digest) names now; None when the
        registry has none."""
        url = f"{self.base}/v2/{self.name}/manifests/{reference}"
        try:
            r = self.client.head(url, headers=self._headers(True), follow_redirects=False)
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

    def read_image(self, top: oci.Descriptor) -> oci.Content:
        """The images `top` consists of (itself, its entries, their configs' platforms)."""
        self._visit(top, 1)
        return self.content

    def blob(self, d: oci.Descriptor, limit: int) -> tuple[Path, bytes]:
        """The manifest, index or config blob of `d`, checked against its digest and size."""
        where = self.blob_path(d.digest)
        if d.size > limit:
            raise BadInput(where, "", f"descriptor size {d.size} is over the limit of {limit} bytes")
        document = d.media_type in oci.MANIFESTS + oci.INDEXES
        url = f"{self.base}/v2/{self.name}/{'manifests' if document else 'blobs'}/{d.digest}"
        data = self._get(
            url, self._headers(document), limit, where, d.digest, redirects=0 if document else MAX_REDIRECTS
        )
        if len(data) != d.size:
            raise BadInput(where, "", f"{len(data)} bytes, but its descriptor says {d.size}")
        if hashlib.sha256(data).hexdigest() != d.digest.removeprefix("sha256:"):
            raise BadInput(where, "", f"content does not match its digest {d.digest}")
        return where, data

    def _get(self, url: str, headers: dict[str, str], limit: int, where: Path, what: str, redirects: int) -> bytes:
        """A body of at most `limit` bytes; a redirect (object storage) is followed without our token, to a
        target that passes the outbound checks, connected to at the address checked."""
        named = url  # the URL as named (a relative Location is resolved against it), `url` the one connected to
        extensions: dict[str, Any] = {}
        for hop in range(redirects + 1):
            try:
                with self.client.stream(
                    "GET", url, headers=headers, extensions=extensions, follow_redirects=False
                ) as r:
                    if r.is_redirect:
                        if hop == redirects:
                            break
                        location = r.headers.get("location", "")
                        named, url, headers, extensions = self._redirected(named, location, where, what)
                        continue
                    self._expect(r, what)
                    data = bytearray()
                    for chunk in r.iter_bytes():
                        data += chunk
                        if len(data) > limit:
                            raise BadInput(where, "", f"over the limit of {limit} bytes")
                    return bytes(data)
            except httpx.HTTPError as e:
                raise Unreachable(f"GET {what}: {e}") from e
        raise Unreachable(f"more than {redirects} redirects for {what}")

    def _redirected(
        self, named: str, location: str, where: Path, what: str
    ) -> tuple[str, str, dict[str, str], dict[str, Any]]:
        """The request a redirect from `named` to `location` leads to: its URL as named, the URL to connect to
        (pinned to the address its check found: the Host header and TLS server name stay the name's), headers
        and extensions. BadInput when it is refused: delivering the notification again would be refused again."""
        try:
            named = str(httpx.URL(named).join(location))
            target = self.redirect(named)
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
