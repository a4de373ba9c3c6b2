"""Which hosts the server may connect to on a caller's say-so (SSRF): webhook sinks and upstream OIDC issuers
(discovery documents, JWKS). One set of rules for both:

- The URL is `https://`, or `http://` on a loopback host when the server runs with
  `--insecure-allow-loopback` (development only); no user info.
- The host is a DNS name, a dotted-quad IPv4 address or a bracketed IPv6 address without zone. Other
  spellings of IPv4 that resolvers accept (`2130706433`, `0x7f.1`, `017700000001`, `127.1`) are refused:
  they exist to slip past name checks.
- The host is resolved now, and every address it resolves to must be globally routable: private,
  loopback, link-local (169.254.169.254 cloud metadata), multicast, reserved, unspecified, shared (CGNAT)
  and documentation ranges are refused — except loopback under the insecure flag, and networks the
  operator lists (`PLATFORM_API_SINK_ALLOWED_NETWORKS`, for sinks only).
- IPv6 addresses that embed an IPv4 address are judged by it as well: IPv4-mapped (`::ffff:a.b.c.d`) is
  that IPv4 address; IPv4-compatible (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), 6to4
  (`2002::/16`), Teredo (`2001::/32`, server and client) and well-known NAT64 (`64:ff9b::/96`) pass only if
  the IPv6 address passes and every embedded IPv4 address is public (never loopback, whatever the flag:
  such an address is routed through a relay, not to this host). Local-use NAT64 (`64:ff9b:1::/48`), where
  the IPv4 address sits where the local prefix puts it, is refused outright.
- The caller connects to the address that was checked (pinned: `Target.url`), with the original host name
  in the Host header and as TLS server name (`Target.host_header`, `Target.host`), so a DNS answer that
  changes between check and connect cannot redirect it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from platform_api.core import patterns

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
RESOLVE_TIMEOUT_SECONDS = 5.0

_TEREDO = ipaddress.ip_network("2001::/32")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")


# A last label that resolvers read as a number makes the whole name an IPv4 address (WHATWG URL "ends in
# a number"): decimal, octal or hex, with or without dots.
def _numeric_label(label: str) -> bool:
    """0x<hex digits, maybe none> or decimal digits (octal included), in any case."""
    if label[:2].lower() == "0x":
        return patterns.only(label[2:], "0123456789abcdefABCDEF")
    return patterns.digits(label)


class Refused(Exception):
    """The URL or address may not be connected to; the message says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as written in the URL (the TLS server name and Host header)
    port: int
    path: str  # path and query
    address: str  # the checked IP address to connect to

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == default else f"{name}:{self.port}"

    @property
    def url(self) -> str:
        """The URL to connect to: the pinned address instead of the name."""
        addr = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{addr}:{self.port}{self.path}"

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port


def _public(ip: IP) -> bool:
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified or ip.is_link_local)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (empty if none); IPv4-mapped is handled by the caller."""
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip in _TEREDO:
        server, client = ip.teredo or (None, None)
        return [a for a in (server, client) if a is not None]
    if ip in _NAT64 or ip in _IPV4_TRANSLATED or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return []


def address_allowed(address: str, allow_loopback: bool, allowed: Iterable[Network] = ()) -> bool:
    """Whether an address (as getaddrinfo returns it) may be connected to."""
    ip: IP = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # the same host, reached over a dual-stack socket
    if any(ip.version == net.version and ip in net for net in allowed):
        return True
    if ip.is_loopback:
        return allow_loopback
    if not _public(ip):
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _NAT64_LOCAL:
            return False
        return all(_public(v4) for v4 in embedded_ipv4(ip))
    return True


def host_canonical(host: str) -> bool:
    """A DNS name, a dotted-quad IPv4 address or an IPv6 address without zone (host as urlsplit gives it)."""
    if not host or "%" in host:
        return False
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return False
        return True
    try:
        ipaddress.IPv4Address(host)  # rejects leading zeros, so only the canonical spelling passes
        return True
    except ValueError:
        pass
    last = host.rstrip(".").rsplit(".", 1)[-1]
    return not _numeric_label(last)


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_allowed(url: str, allow_loopback_http: bool) -> bool:
    """An issuer or sink URL: https, or (development only) http on a loopback host; a canonical host."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if not parts.hostname or parts.username or parts.password or not host_canonical(parts.hostname):
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and allow_loopback_http and is_loopback_host(parts.hostname)


def split(url: str, allow_loopback_http: bool) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of an acceptable URL; Refused otherwise."""
    if not all("!" <= c <= "~" for c in url):
        # What an HTTP/1.1 request target may hold (RFC 9112: visible ASCII); urlsplit would silently drop
        # tabs and line breaks, so a URL stored with them would name another resource than the one checked.
        raise Refused("must be visible ASCII only: no spaces or control characters (percent-encode them)")
    if not url_allowed(url, allow_loopback_http):
        raise Refused(
            "must be an https:// URL without user info"
            + (" (or http:// on a loopback host)" if allow_loopback_http else "")
        )
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("has an invalid port") from None
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    assert parts.hostname is not None
    return parts.scheme, parts.hostname, port, path


async def resolve(url: str, allow_loopback: bool, allowed: Iterable[Network] = ()) -> Target:
    """Check `url` and resolve its host now; every address it resolves to must be allowed. The Target
    connects to the first of them."""
    scheme, host, port, path = split(url, allow_loopback)
    try:
        ipaddress.ip_address(host)
        addresses = [host]
    except ValueError:
        try:
            infos = await asyncio.wait_for(
                asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM),
                RESOLVE_TIMEOUT_SECONDS,
            )
        except (OSError, UnicodeError, TimeoutError) as e:
            raise Refused(f"host {host!r} does not resolve: {e}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise Refused(f"host {host!r} does not resolve")
    allowed = tuple(allowed)
    refused = [a for a in addresses if not address_allowed(a, allow_loopback, allowed)]
    if refused:
        raise Refused(
            f"host {host!r} resolves to {refused[0]}, a private, loopback, link-local or otherwise non-public address"
        )
    return Target(scheme, host, port, path, addresses[0])
