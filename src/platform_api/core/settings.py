"""One settings object, from command-line flags and PLATFORM_API_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

# Strings naming the reference's operator are not ours to hard-code; `compat_strings=reference`
# makes the service emit them for clients that match on them.
REFERENCE_DOMAIN = "chainguard.dev"
REFERENCE_TERMS_DOCUMENTS = frozenset({"guardener-tos.v1", "sfdpa.v1", "skills-tos.v1"})


@dataclass
class Settings:
    http_host: str = "0.0.0.0"
    http_port: int = 8080
    grpc_port: int = 9090
    # gRPC listen address ("[::]": every address, as HTTP's default 0.0.0.0); `serve --port` sets loopback.
    grpc_host: str = "[::]"
    # The one public port (`serve --port`): HTTP/1.1 and gRPC spliced per connection (api/front.py); 0: off.
    port: int = 0
    # Seconds a connection to `port` may take to show its first bytes (HTTP/1.1 or the HTTP/2 preface).
    front_sniff_timeout: float = 10.0
    # Open connections on `port` beyond which new ones are closed at once (also capped by the fd limit).
    front_max_connections: int = 10000
    database_url: str = "sqlite:///platform-api.db"
    public_url: str = "http://localhost:8080"
    # Base of ErrorInfo domains ("iam.<domain>") and event types.
    domain: str = "platform-api.local"
    compat_strings: str = ""  # "" or "reference"
    sqlite_synchronous: str = "FULL"
    grpc_enabled: bool = True
    log_level: str = "info"
    # Audience of our access tokens; empty means the public URL.
    audience: str = ""
    # Development only: allow http:// upstream issuers and webhook sinks on loopback addresses.
    insecure_allow_loopback: bool = False
    # Upstream OIDC issuers (comma-separated) trusted for human logins and invite redemption.
    trusted_issuers: str = ""
    # Legal documents (comma-separated ids) an organization may accept through AcceptTerms.
    terms_documents: str = "tos.v1,dpa.v1"
    # Events: run the delivery dispatcher inside `serve` (`platform-api dispatch` runs it alone).
    dispatcher: bool = True
    # Multiplies every retry delay (tests use a small value); Retry-After answers are not scaled.
    delivery_backoff_scale: float = 1.0
    delivery_max_attempts: int = 10
    delivery_connect_timeout: float = 5.0
    # Whole attempt: connect, send, and the sink's answer.
    delivery_timeout: float = 15.0
    delivery_concurrency: int = 64
    # Seconds between outbox polls when no wake-up arrives (PostgreSQL NOTIFY, or this process's writes).
    delivery_poll_seconds: float = 1.0
    # Comma-separated networks (CIDR) that sinks may resolve to although private, e.g. 10.0.0.0/8.
    sink_allowed_networks: str = ""
    # Finished deliveries and their events are kept this long.
    event_retention_days: int = 7
    # Token exchange and registration routes: a token bucket per client address and one per requested
    # identity, refilled at `sts_rate` per second up to `sts_burst`; 0 disables.
    sts_rate: float = 10.0
    sts_burst: int = 60
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def issuer(self) -> str:
        return self.public_url.rstrip("/")

    @property
    def token_audience(self) -> str:
        return self.audience or self.issuer

    @property
    def terms_document_ids(self) -> frozenset[str]:
        ids = {d.strip() for d in self.terms_documents.split(",") if d.strip()}
        if self.compat_strings == "reference":
            ids |= REFERENCE_TERMS_DOCUMENTS
        return frozenset(ids)

    @property
    def error_domain_base(self) -> str:
        return REFERENCE_DOMAIN if self.compat_strings == "reference" else self.domain

    @property
    def event_type_prefix(self) -> str:
        """Ce-Type is `<prefix>.api.<suffix>`: the reference's `dev.chainguard`, or our domain reversed."""
        if self.compat_strings == "reference":
            return "dev.chainguard"
        return ".".join(reversed(self.domain.split(".")))

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        s = cls()
        for f in fields(cls):
            if f.name == "extra":
                continue
            env = os.environ.get("PLATFORM_API_" + f.name.upper())
            if env is not None:
                setattr(s, f.name, _coerce(getattr(s, f.name), env))
        for k, v in overrides.items():
            if v is not None:
                setattr(s, k, v)
        return s

    def to_env(self) -> dict[str, str]:
        """For worker processes started by the server, which rebuild settings from the environment."""
        return {
            "PLATFORM_API_" + f.name.upper(): str(getattr(self, f.name)).lower()
            if isinstance(getattr(self, f.name), bool)
            else str(getattr(self, f.name))
            for f in fields(self)
            if f.name != "extra"
        }


def _coerce(default: object, text: str) -> object:
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes", "on")
    if isinstance(default, float):
        return float(text)
    if isinstance(default, int):
        return int(text)
    return text
