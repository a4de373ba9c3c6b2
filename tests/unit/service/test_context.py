"""service.context: the host of a gRPC peer, the rate limit's address key over gRPC (as over HTTP)."""

from __future__ import annotations

from platform_api.service.context import peer_host


def test_peer_host() -> None:
    """The rate limit's address key over gRPC: the host of `context.peer()`, as over HTTP."""
    assert peer_host("ipv4:127.0.0.1:5555") == "127.0.0.1"
    assert peer_host("ipv6:[::1]:5555") == peer_host("ipv6:%5B::1%5D:5555") == "::1"
    assert peer_host("unix:/run/x.sock") == "unix:/run/x.sock"
    assert peer_host("") == ""
