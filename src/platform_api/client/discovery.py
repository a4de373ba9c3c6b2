"""Where a server's gRPC is, when no address is set: what it publishes at `/.well-known/platform-api` (the
server's api/well_known.py), read once per server URL for the process. A server started with other ports
than the defaults (`serve --http-port 19080`) is then reached without a second setting, where the old rule
(transport.derive_grpc_target) dialled gRPC on the HTTP port and failed with `Socket closed`.

- an http URL: the document's port on the URL's host (the host the caller reached, never one the server
  names: loopback and NAT keep working); `sharesHttpPort` (`serve --port`): the URL's own host and port.
- an https URL is a TLS proxy's, whose ports the server does not know: the same host and port, with TLS.
- no document (a server older than it, 404): the old rule, kept for that URL.
- the document unreadable (no connection, a 5xx, the rate limit): the old rule for this call only, and the
  document asked again on the next, so a server that comes up later is found."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

from platform_api.client import errors
from platform_api.client.contract import Method
from platform_api.client.transport import GrpcTransport, derive_grpc_target, host_port

PATH = "/.well-known/platform-api"
TIMEOUT = 3.0  # seconds: the document is a few bytes from settings; a server slower than this is not there
MAX_BODY = 4096


@dataclass(frozen=True)
class GrpcAddress:
    target: str  # host:port; "" when the server serves no gRPC
    tls: bool
    source: str  # how it was chosen, for error messages ("published by http://h:1/.well-known/platform-api")
    final: bool = True  # False: a fallback while the document could not be read: ask again next call


_cache: dict[str, GrpcAddress] = {}
_lock = threading.Lock()


def explicit(url: str, target: str) -> GrpcAddress:
    return GrpcAddress(target, url.startswith("https:"), "the gRPC address set")


def _derived(url: str, why: str, final: bool) -> GrpcAddress:
    target, tls = derive_grpc_target(url)
    return GrpcAddress(target, tls, f"derived from the server URL {url}, {why}", final)


def from_document(url: str, data: Any) -> GrpcAddress | None:
    """The address a document names for a server reached at `url` (an http URL); None if it is not one."""
    if not isinstance(data, dict) or "grpc" not in data:
        return None
    source = f"published by {url}{PATH}"
    grpc = data["grpc"]
    if grpc is None:
        return GrpcAddress("", False, source)
    if not isinstance(grpc, dict):
        return None
    same = host_port(url)
    if grpc.get("sharesHttpPort") is True:
        return GrpcAddress(same, False, source)
    port = grpc.get("port")
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        return None
    return GrpcAddress(f"{same.rsplit(':', 1)[0]}:{port}", False, source)


def grpc_address(url: str, http: httpx.Client) -> GrpcAddress:
    """The gRPC address of the server at `url` (no trailing slash), asking it through `http` (a client of that
    server) unless known already."""
    with _lock:
        known = _cache.get(url)
    if known is not None:
        return known
    if url.startswith("https:"):
        found = _derived(url, "a TLS proxy's: the same host and port, with TLS", True)
    else:
        found = _ask(url, http)
    if found.final:
        with _lock:
            _cache[url] = found
    return found


def _ask(url: str, http: httpx.Client) -> GrpcAddress:
    try:
        with http.stream("GET", url + PATH, timeout=TIMEOUT) as r:
            body = b""
            for chunk in r.iter_bytes():
                body += chunk
                if len(body) > MAX_BODY:
                    break
            status = r.status_code
    except httpx.TransportError as e:
        return _derived(url, f"whose {PATH} did not answer: {type(e).__name__}: {e}", False)
    if status == 404:  # a server from before the document
        return _derived(url, f"which publishes no {PATH}", True)
    if status != 200:
        error = errors.from_http(status, body[:MAX_BODY])
        return _derived(url, f"whose {PATH} answered HTTP {status}: {error}", False)
    try:
        found = from_document(url, msgspec.json.decode(body))
    except msgspec.DecodeError:
        found = None
    return found or _derived(url, f"whose {PATH} is not a platform-api document", True)


class DiscoveredGrpc:
    """The gRPC transport of a server known by its URL: its address found at the first call (above), and
    found again at each call while it is only a fallback."""

    def __init__(self, url: str, http: httpx.Client, user_agent: str) -> None:
        self.url, self.http, self.user_agent = url, http, user_agent
        self.address: GrpcAddress | None = None
        self._transport: GrpcTransport | None = None

    def resolve(self) -> GrpcAddress:
        if self.address is None or not self.address.final:
            found = grpc_address(self.url, self.http)
            if self._transport is not None and found != self.address:
                self._transport.close()
                self._transport = None
            self.address = found
        return self.address

    def call(self, m: Method, request: Any, token: str | None, timeout: float) -> Any:
        address = self.resolve()
        if not address.target:
            raise errors.Unimplemented(
                f"the server at {self.url} serves no gRPC ({address.source}: it runs with --no-grpc); use "
                "HTTP/JSON: PLATFORM_API_TRANSPORT=http (platformctl --transport http)"
            )
        if self._transport is None:
            # The server URL unanswered too: that may well be the setting to fix.
            hint = errors.GRPC_SETTING if address.final else f"{errors.HTTP_SETTING}; or {errors.GRPC_SETTING}"
            self._transport = GrpcTransport(address.target, tls=address.tls, user_agent=self.user_agent,
                                            source=address.source, hint=hint)  # fmt: skip
        return self._transport.call(m, request, token, timeout)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def forget() -> None:
    """Drops what was learnt (tests; a server moved to other ports under the same URL)."""
    with _lock:
        _cache.clear()
