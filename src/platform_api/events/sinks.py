"""Which webhook sinks may be called (SSRF): checked when a subscription is written and again at every
delivery, against the addresses the host resolves to at that moment.

- The URL is `https://`, or `http://` on a loopback host when the server runs with
  `--insecure-allow-loopback` (development only); no user info.
- Every address the host resolves to must be globally routable: private, loopback, link-local
  (169.254.169.254 cloud metadata), multicast, reserved, unspecified, shared (CGNAT) and documentation
  ranges are refused — except loopback under the insecure flag, and networks listed in
  `sink_allowed_networks` (a self-hosted receiver on the operator's private network).
- The delivery connects to the address that was checked (pinned), with the original host name in the
  Host header and as TLS server name, so a DNS answer that changes between check and connect cannot
  redirect it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from platform_api.auth.matching import url_allowed
from platform_api.core.settings import Settings

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_SINK = 2048


class SinkRefused(Exception):
    """The sink may not be called; the message says why (shown to the subscription's owner)."""


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


@cache
def _allowed_networks(spec: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(n.strip(), strict=False) for n in spec.split(",") if n.strip())


def address_allowed(address: str, settings: Settings) -> bool:
    ip: IP = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if any(ip in net for net in _allowed_networks(settings.sink_allowed_networks)):
        return True
    if ip.is_loopback:
        return settings.insecure_allow_loopback
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified or ip.is_link_local)


def parse(url: str, settings: Settings) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of an acceptable sink URL; SinkRefused otherwise."""
    if not url:
        raise SinkRefused("sink is required")
    if len(url) > MAX_SINK:
        raise SinkRefused(f"sink must be at most {MAX_SINK} characters")
    if not url_allowed(url, settings.insecure_allow_loopback):
        raise SinkRefused(
            "sink must be an https:// URL without user info"
            + (" (or http:// on a loopback host)" if settings.insecure_allow_loopback else "")
        )
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise SinkRefused("sink has an invalid port") from None
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    assert parts.hostname is not None
    return parts.scheme, parts.hostname, port, path


async def resolve(url: str, settings: Settings) -> Target:
    """Check `url` and resolve its host now; every address it resolves to must be allowed."""
    scheme, host, port, path = parse(url, settings)
    try:
        ipaddress.ip_address(host)
        addresses = [host]
    except ValueError:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as e:
            raise SinkRefused(f"sink host {host!r} does not resolve: {e}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise SinkRefused(f"sink host {host!r} does not resolve")
    refused = [a for a in addresses if not address_allowed(a, settings)]
    if refused:
        raise SinkRefused(
            f"sink host {host!r} resolves to {refused[0]}, a private, loopback, link-local or otherwise"
            " non-public address"
        )
    return Target(scheme, host, port, path, addresses[0])
