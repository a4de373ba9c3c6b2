"""One settings object, from command-line flags and PLATFORM_API_* environment variables."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields

# Strings naming the reference's operator are not ours to hard-code; `compat_strings=reference`
# makes the service emit them for clients that match on them.
REFERENCE_DOMAIN = "chainguard.dev"
REFERENCE_TERMS_DOCUMENTS = frozenset({"guardener-tos.v1", "sfdpa.v1", "skills-tos.v1"})

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})
PORTS = frozenset({"http_port", "grpc_port", "port"})
# Numbers that must be above zero (the others may be zero, which for a rate or a port means off).
POSITIVE = frozenset({
    "front_sniff_timeout", "front_max_connections", "front_max_connections_per_client", "idle_timeout", "http_threads",
    "delivery_max_attempts", "delivery_connect_timeout",
    "delivery_timeout", "delivery_concurrency", "delivery_poll_seconds",
})  # fmt: skip
CHOICES = {
    "compat_strings": ("", "reference"),
    "sqlite_synchronous": ("OFF", "NORMAL", "FULL", "EXTRA"),
    "log_level": ("debug", "info", "warning", "error", "critical"),
}


class InvalidSetting(SystemExit):
    """A setting with a value it cannot take: the start stops, the message names the variable and the value.
    A SystemExit, so that any command stops with the message (exit status 1) rather than a traceback."""

    def __init__(self, source: str, value: object, expected: str) -> None:
        super().__init__(f"platform-api: invalid setting {source}={value!s}: expected {expected}")
        self.source = source
        self.value = value


@dataclass
class Settings:
    http_host: str = "0.0.0.0"
    http_port: int = 8080
    grpc_port: int = 9090
    # gRPC listen address; empty: the HTTP one (`--host`). `serve --port` moves it to loopback.
    grpc_host: str = ""
    # The one public port (`serve --port`): HTTP/1.1 and gRPC spliced per connection (api/front.py); 0: off.
    port: int = 0
    # Connections (README "Operations: connections"); every listener's descriptors come from one budget
    # (api/fd_budget.py).
    # Seconds a connection to `port` may take to show its first bytes (HTTP/1.1 or the HTTP/2 preface).
    front_sniff_timeout: float = 10.0
    # Open connections on `port` beyond which new ones are closed at once (also capped by the fd limit).
    front_max_connections: int = 10000
    # Open connections on `port` from one client address (an IPv6 client: its /64) beyond which its new
    # ones are closed at accept.
    front_max_connections_per_client: int = 256
    # Seconds a connection may stay idle: on `port`, no byte either way; on gRPC, no call in flight
    # (grpc.max_connection_idle_ms); on HTTP, no complete request head (Granian's header-read timeout,
    # at most 30 s there).
    idle_timeout: float = 300.0
    # Granian's Rust runtime threads per HTTP worker (its socket I/O beside the Python thread); chosen by
    # bench/run.py (bench/README.md "Server settings").
    http_threads: int = 2
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
    # Human login (GET /oauth, README "Signing in (people)"): the server-wide upstream OIDC provider used when
    # the login names no organization identity provider; empty: logins need `idp_id`.
    login_issuer: str = ""
    login_client_id: str = ""
    # A file holding the client secret (read at start; never a flag value, which `ps` shows); empty: PKCE only.
    login_client_secret_file: str = ""
    # Scopes asked of that provider beyond "openid email profile" (comma-separated).
    login_scopes: str = ""
    # Origins (comma-separated, e.g. https://console.example.com) whose pages may receive a login's token,
    # beside the loopback callbacks (http://127.0.0.1:<any port>/..., localhost, [::1]) always accepted.
    login_console_origins: str = ""
    # Refresh tokens (people's logins only): a refresh chain ends this many seconds after the login it came from.
    refresh_token_max_age: float = 30 * 24 * 3600.0
    # Joining an organization by e-mail domain (iam/joining.py): e-mail domains never eligible, added
    # (comma-separated) to the built-in free-mail list; and the seconds before the same caller may ask the
    # same organization for access again (RESOURCE_EXHAUSTED before; 0: no cool-down).
    blocked_email_domains: str = ""
    access_request_cooldown: float = 86400.0
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
    # Routes that need no token (every RPC whose method has auth disabled, /openapi.json, /.well-known/*): a
    # token bucket per client address, refilled at `anon_rate` per second up to `anon_burst`; 0 disables.
    anon_rate: float = 20.0
    anon_burst: int = 100
    # The `service` of the Distribution registry our `/registry/token` serves (its tokens' audience).
    registry_service: str = "platform-api-registry"
    # Where we read that registry back (manifests and configs, after its notifications); empty: what
    # `platform-api registry-config` recorded.
    registry_url: str = ""
    # CheckAccountAssociation (iam/account_association_check.py): the clouds' token services where a token of
    # ours is exchanged (AWS STS, GCP STS, the Azure AD login host: <url>/<tenant>/oauth2/v2.0/token), each call's
    # timeout in seconds (above zero), and a token bucket per association refilled at `association_check_rate`
    # checks per second up to `association_check_burst` (0 disables).
    aws_sts_url: str = "https://sts.amazonaws.com/"
    gcp_sts_url: str = "https://sts.googleapis.com/v1/token"
    azure_login_url: str = "https://login.microsoftonline.com"
    association_check_timeout: float = 5.0
    association_check_rate: float = 0.1
    association_check_burst: int = 5
    # The names an association's cloud resources start with (`<prefix>-canary`, `<prefix>-pool`, ...); empty:
    # `platform-api`, or the reference's `chainguard` under compat_strings=reference.
    association_name_prefix: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def grpc_bind_host(self) -> str:
        """Where gRPC listens: its own host if set, else the HTTP one."""
        return self.grpc_host or self.http_host

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
        """Settings from PLATFORM_API_* variables, then `overrides` (command-line flags); InvalidSetting on a
        value that does not parse or lies outside its range."""
        s = cls()
        for f in fields(cls):
            if f.name == "extra":
                continue
            name = env_name(f.name)
            env = os.environ.get(name)
            if env is not None:
                setattr(s, f.name, _check(f.name, name, _coerce(name, getattr(s, f.name), env), env))
        for k, v in overrides.items():
            if v is not None:
                setattr(s, k, _check(k, "--" + k.replace("_", "-"), v))
        return s

    def to_env(self) -> dict[str, str]:
        """For worker processes started by the server, which rebuild settings from the environment."""
        return {
            env_name(f.name): str(getattr(self, f.name)).lower()
            if isinstance(getattr(self, f.name), bool)
            else str(getattr(self, f.name))
            for f in fields(self)
            if f.name != "extra"
        }


def env_name(name: str) -> str:
    return "PLATFORM_API_" + name.upper()


def _coerce(source: str, default: object, text: str) -> object:
    """`text` as the type of the field's default."""
    if isinstance(default, bool):
        word = text.strip().lower()
        if word not in TRUE | FALSE:
            raise InvalidSetting(source, text, "a boolean (1/0, true/false, yes/no, on/off)")
        return word in TRUE
    try:
        if isinstance(default, float):
            return float(text)
        if isinstance(default, int):
            return int(text)
    except ValueError:
        raise InvalidSetting(source, text, "a number" if isinstance(default, float) else "an integer") from None
    return text


def _check(name: str, source: str, value: object, text: str | None = None) -> object:
    """`value` if the field `name` may take it (bool is not a number here); `text`: as written, for the message."""
    shown = value if text is None else text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or value < 0:
            raise InvalidSetting(source, shown, "a finite number, not negative")
        if name in POSITIVE and value <= 0:
            raise InvalidSetting(source, shown, "a number above zero")
        if name in PORTS and value > 65535:
            raise InvalidSetting(source, shown, "a port number (0-65535)")
    choices = CHOICES.get(name)
    if choices is not None and str(value).lower() not in {c.lower() for c in choices}:
        raise InvalidSetting(source, shown, "one of " + ", ".join(repr(c) for c in choices))
    return value
