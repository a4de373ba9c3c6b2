"""Ping's v1 call (`chainguard.platform.ping.PingService`, `/ping/v1/ping`): an adapter over the v2
implementation (service/v1.py says how the dialects differ)."""
