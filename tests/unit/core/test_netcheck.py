"""core.netcheck, the address rules of every outbound connection a caller can cause (webhook sinks, upstream
issuers): IPv6 forms that embed a non-public IPv4 address (6to4, Teredo, NAT64, IPv4-compatible) are
refused, loopback only under the flag and only as itself, hosts only in their canonical spelling, and names
checked by what they resolve to (getaddrinfo, no connection)."""

from __future__ import annotations

import asyncio

import pytest

from platform_api.core import netcheck


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::1", False),  # 6to4 of 169.254.169.254 (cloud metadata)
        ("2002:a00:1::1", False),  # 6to4 of 10.0.0.1
        ("2002:808:808::1", True),  # 6to4 of a public address
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
        ("2001:0:7f00:1::1", False),  # Teredo, server 127.0.0.1
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of the metadata address
        ("64:ff9b:1::7f00:1", False),  # local-use NAT64
        ("::7f00:1", False),  # IPv4-compatible 127.0.0.1
        ("::a9fe:a9fe", False),  # IPv4-compatible metadata address
        ("::ffff:0:7f00:1", False),  # IPv4-translated
        ("::ffff:127.0.0.1", False),  # IPv4-mapped
        ("::ffff:169.254.169.254", False),
        ("::ffff:8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("8.8.8.8", True),
        ("169.254.169.254", False),
        ("127.0.0.1", False),
        ("::1", False),
    ],
)
def test_address_rule(address: str, allowed: bool) -> None:
    assert netcheck.address_allowed(address, allow_loopback=False) is allowed


def test_embedded_loopback_is_not_loopback_under_the_flag() -> None:
    """A 6to4 or NAT64 form of 127.0.0.1 goes through a relay, not to this host: the flag does not allow it."""
    for address in ("2002:7f00:1::1", "64:ff9b::7f00:1", "::7f00:1", "2001:0:7f00:1::1"):
        assert not netcheck.address_allowed(address, allow_loopback=True), address
    assert netcheck.address_allowed("::1", allow_loopback=True)
    assert netcheck.address_allowed("::ffff:127.0.0.1", allow_loopback=True)  # the very same host
    # Networks the operator lists win (an explicit choice).
    assert netcheck.address_allowed("2002:a00:1::1", False, [netcheck.ipaddress.ip_network("2002:a00::/24")])
    assert netcheck.embedded_ipv4(netcheck.ipaddress.IPv6Address("2002:a9fe:a9fe::1")) == [
        netcheck.ipaddress.IPv4Address("169.254.169.254")
    ]


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("2130706433", False),
        ("0x7f.1", False),
        ("017700000001", False),
        ("0x7f000001", False),
        ("127.1", False),
        ("0177.0.0.1", False),
        ("127.0.0.01", False),
        ("foo.123", False),
        ("fe80::1%eth0", False),
        ("127.0.0.1", True),
        ("::1", True),
        ("issuer.example", True),
        ("a1.example", True),
        ("token.actions.githubusercontent.com", True),
    ],
)
def test_host_spellings(host: str, canonical: bool) -> None:
    assert netcheck.host_canonical(host) is canonical


def test_non_canonical_hosts_refused_even_with_the_flag() -> None:
    for url in ("http://2130706433:8080/", "https://0x7f.1/", "http://017700000001/", "https://127.1/"):
        assert not netcheck.url_allowed(url, allow_loopback_http=True), url
    assert netcheck.url_allowed("http://127.0.0.1:8080/", allow_loopback_http=True)


def test_resolution_checks_what_the_resolver_returns() -> None:
    """`localhost` is a name; its addresses (from getaddrinfo, no connection) are what is checked."""

    async def go() -> None:
        with pytest.raises(netcheck.Refused, match="loopback"):
            await netcheck.resolve("https://localhost:9/x", allow_loopback=False)
        with pytest.raises(netcheck.Refused):
            await netcheck.resolve("https://2130706433:9/x", allow_loopback=True)
        t = await netcheck.resolve("http://localhost:9/x?y=1", allow_loopback=True)
        assert t.address in ("127.0.0.1", "::1") and t.host_header == "localhost:9" and t.path == "/x?y=1"

    asyncio.run(go())
