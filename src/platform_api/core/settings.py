"""One settings object, from command-line flags and PLATFORM_API_* environment variables.

Each field carries its rule (core/setting_rules.py: what it may hold, in words) and its description; both
are read once at start (`Settings.from_env`), so a value that does not fit stops the start with one line
naming the variable or flag. Lists are tuples (written comma-separated), networks are networks: the code
that uses a setting reads it typed. core/settings_table.py renders the fields as docs/reference/settings.md's table."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any, TypeVar

from platform_api.core.netcheck import Network
from platform_api.core.setting_rules import (
    DatabaseUrl,
    Domain,
    Flag,
    Host,
    InvalidSetting,
    Origin,
    OutboundUrl,
    ReadableFile,
    Rule,
    WebUrl,
    Word,
    choice,
    items,
    number,
    required_with,
)
from platform_api.core.setting_rules import Network as Cidr

__all__ = ["InvalidSetting", "Settings", "env_name", "flag_name", "rule_of", "setting_fields"]

# Strings naming the reference's operator are not ours to hard-code; `compat_strings=reference`
# makes the service emit them for clients that match on them.
REFERENCE_DOMAIN = "chainguard.dev"
REFERENCE_TERMS_DOCUMENTS = frozenset({"guardener-tos.v1", "sfdpa.v1", "skills-tos.v1"})

# Flags not spelled `--<name with dashes>` (cli.py turns them into the setting).
FLAGS = {
    "http_host": "--host",
    "database_url": "--database",
    "grpc_enabled": "--no-grpc",
    "dispatcher": "--no-dispatcher",
    "trusted_issuers": "--trusted-issuer",
    "login_console_origins": "--login-console-origin",
}
T = TypeVar("T")
TEXT = Rule()
PORT = number(port=True)
SECONDS = number(positive=True)
POSITIVE = number(whole=True, positive=True)
RATE = number()  # 0: off
BURST = number(whole=True)
OPTIONAL_HOST = Host("a host name or IP address, or empty", optional=True)
OPTIONAL_URL = WebUrl("an http:// or https:// URL, or empty", optional=True)
OPTIONAL_ISSUER = OutboundUrl(OutboundUrl.expects + ", or empty", optional=True)


def setting(default: T, rule: Rule, doc: str = "") -> T:
    """A field with its rule and its description (the settings table's)."""
    return field(default=default, metadata={"rule": rule, "doc": doc})  # type: ignore[no-any-return]


@dataclass
class Settings:
    http_host: str = setting("0.0.0.0", Host(), "where HTTP (and gRPC, unless `grpc_host`) listens")
    http_port: int = setting(8080, PORT, "HTTP/JSON port")
    grpc_port: int = setting(9090, PORT, "gRPC port")
    grpc_host: str = setting(
        "", OPTIONAL_HOST, "gRPC's listen address; empty: `http_host`'s (`serve --port` moves it to loopback)"
    )
    port: int = setting(
        0,
        PORT,
        "the one public port: HTTP/1.1 and gRPC spliced per connection (api/front.py);"
        " 0: off; the two listeners then listen on loopback unless their ports are given",
    )
    # Connections (docs/operate.md "Connections"); every listener's descriptors come from one budget
    # (api/fd_budget.py).
    front_sniff_timeout: float = setting(
        10.0,
        SECONDS,
        "seconds a connection to `port` may take to show its first bytes (HTTP/1.1 or the HTTP/2 preface)",
    )
    front_max_connections: int = setting(
        10000,
        POSITIVE,
        "open connections on `port` beyond which new ones are closed at once (also capped by the open-file limit)",
    )
    front_max_connections_per_client: int = setting(
        256,
        POSITIVE,
        "open connections on `port` from one client"
        " address (IPv6: its /64) beyond which its new ones are closed"
        " at accept",
    )
    idle_timeout: float = setting(
        300.0,
        SECONDS,
        "seconds a connection may stay idle: on `port`, no byte either"
        " way; on gRPC, no call in flight; on HTTP, no complete request head (at most"
        " 30 s there)",
    )
    http_threads: int = setting(
        2, POSITIVE, 'Granian\'s runtime threads per HTTP worker (bench/README.md "Server settings")'
    )
    database_url: str = setting("sqlite:///platform-api.db", DatabaseUrl(), "the database")
    public_url: str = setting(
        "http://localhost:8080", WebUrl(), "external base URL of this service, the issuer of its tokens"
    )
    domain: str = setting("platform-api.local", Domain(), "base of ErrorInfo domains (`iam.<domain>`) and event types")
    compat_strings: str = setting(
        "",
        choice("", "reference"),
        "`reference`: emit the reference API's own operator strings for clients that match on them",
    )
    sqlite_synchronous: str = setting(
        "FULL",
        choice("OFF", "NORMAL", "FULL", "EXTRA"),
        "SQLite's `synchronous` (FULL: an acknowledged write survives power loss)",
    )
    grpc_enabled: bool = setting(True, Flag(), "start the gRPC listener (`serve --no-grpc`: false)")
    log_level: str = setting("info", choice("debug", "info", "warning", "error", "critical"), "log level")
    audience: str = setting("", TEXT, "audience of our access tokens; empty: the public URL")
    insecure_allow_loopback: bool = setting(
        False,
        Flag(),
        "DEVELOPMENT ONLY: allow http:// upstream issuers, token services and webhook sinks on loopback addresses",
    )
    trusted_issuers: tuple[str, ...] = setting(
        (), items(OutboundUrl()), "upstream OIDC issuers trusted for people's logins and invite redemption"
    )
    # Human login (GET /oauth, docs/sign-in.md).
    login_issuer: str = setting(
        "",
        OPTIONAL_ISSUER,
        "the server-wide upstream OIDC provider for logins that name no identity provider; empty: logins need `idp_id`",
    )
    login_client_id: str = setting("", required_with("login_issuer", "a client id"), "our client id there")
    login_client_secret_file: str = setting(
        "",
        ReadableFile(),
        "a file holding the client secret (read at start; never a flag value, which `ps` shows); empty: PKCE only",
    )
    login_scopes: tuple[str, ...] = setting(
        (), items(Word()), "scopes asked of that provider beyond `openid email profile`"
    )
    login_console_origins: tuple[str, ...] = setting(
        (),
        items(Origin()),
        "origins whose pages may receive a login's token, beside the loopback callbacks always accepted",
    )
    refresh_token_max_age: float = setting(
        30 * 24 * 3600.0, RATE, "seconds after a person's login when its refresh chain ends"
    )
    # Joining an organization by e-mail domain (signin/joining.py).
    blocked_email_domains: tuple[str, ...] = setting(
        (),
        items(Domain()),
        "e-mail domains never eligible to join an organization, added to the built-in free-mail list",
    )
    access_request_cooldown: float = setting(
        86400.0, RATE, "seconds before the same caller may ask the same organization for access again (0: no cool-down)"
    )
    terms_documents: tuple[str, ...] = setting(
        ("tos.v1", "dpa.v1"), items(Word()), "legal documents an organization may accept through AcceptTerms"
    )
    # Events.
    dispatcher: bool = setting(
        True,
        Flag(),
        "run the delivery dispatcher inside `serve` (`serve"
        " --no-dispatcher`: false; `platform-api dispatch` runs it alone)",
    )
    delivery_backoff_scale: float = setting(
        1.0, RATE, "multiplies every retry delay (tests use a small value); Retry-After answers are not scaled"
    )
    delivery_max_attempts: int = setting(10, POSITIVE, "attempts per delivery")
    delivery_connect_timeout: float = setting(5.0, SECONDS, "seconds to connect to a sink")
    delivery_timeout: float = setting(15.0, SECONDS, "seconds per attempt: connect, send, and the sink's answer")
    delivery_concurrency: int = setting(64, POSITIVE, "attempts in flight per dispatcher")
    delivery_poll_seconds: float = setting(
        1.0,
        SECONDS,
        "seconds between outbox polls when no wake-up arrives (PostgreSQL NOTIFY, or this process's writes)",
    )
    sink_allowed_networks: tuple[Network, ...] = setting(
        (), items(Cidr()), "networks sinks may resolve to although private"
    )
    event_retention_days: int = setting(7, BURST, "days finished deliveries and their events are kept")
    # Token exchange and registration routes: a token bucket per client address and one per requested identity.
    sts_rate: float = setting(
        10.0, RATE, "token exchange/registration requests per second per client address and per identity (0: no limit)"
    )
    sts_burst: int = setting(60, BURST, "... and the burst allowed above that rate")
    # Routes that need no token (every RPC whose method has auth disabled, /openapi.json, /.well-known/*).
    anon_rate: float = setting(
        20.0, RATE, "requests per second per client address to the routes that need no token (0: no limit)"
    )
    anon_burst: int = setting(100, BURST, "... and the burst allowed above that rate")
    registry_service: str = setting(
        "platform-api-registry",
        Word(),
        "the `service` of the Distribution registry our `/registry/token` serves (its tokens' audience)",
    )
    registry_url: str = setting(
        "", OPTIONAL_URL, "where we read that registry back; empty: what `platform-api registry-config` recorded"
    )
    # CheckAccountAssociation (iam/account_association_check.py).
    aws_sts_url: str = setting(
        "https://sts.amazonaws.com/",
        OutboundUrl(),
        "AWS STS, where the account association check exchanges a token of ours",
    )
    gcp_sts_url: str = setting("https://sts.googleapis.com/v1/token", OutboundUrl(), "GCP STS, likewise")
    azure_login_url: str = setting(
        "https://login.microsoftonline.com",
        OutboundUrl(),
        "the Azure AD login host (`<url>/<tenant>/oauth2/v2.0/token`), likewise",
    )
    association_check_timeout: float = setting(
        5.0, SECONDS, "seconds each call of the account association check may take"
    )
    association_check_rate: float = setting(
        0.1, RATE, "account association checks per second per association (0: no limit)"
    )
    association_check_burst: int = setting(5, BURST, "... and the burst allowed above that rate")
    association_name_prefix: str = setting(
        "",
        TEXT,
        "the names an association's cloud resources start with"
        " (`<prefix>-canary`, `<prefix>-pool`); empty: `platform-api`, or"
        " `chainguard` under `compat_strings=reference`",
    )
    # Not a setting: what `serve` works out for its own processes (cli.py).
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _checked(vars(self), {})

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
        ids = set(self.terms_documents)
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
        """Settings from PLATFORM_API_* variables, then `overrides` (command-line flags: text is read as the
        variable's would be, other values are taken as they are); InvalidSetting, naming the variable or flag,
        on the first value that does not read or does not fit its rule."""
        values: dict[str, object] = {}
        sources: dict[str, tuple[str, object]] = {}
        given: list[tuple[str, str, object]] = [
            (f.name, env_name(f.name), os.environ.get(env_name(f.name))) for f in setting_fields()
        ]
        given += [(k, flag_name(k), v) for k, v in overrides.items()]
        for name, source, value in given:
            if value is None:
                continue
            rule = rule_of(name)
            sources[name] = (source, value)
            try:
                values[name] = rule.read(value) if isinstance(value, str) else value
            except ValueError:
                raise InvalidSetting(source, value, rule.expects) from None
        _checked({**{f.name: f.default for f in setting_fields()}, **values}, sources)
        return cls(**values)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """For worker processes started by the server, which rebuild settings from the environment."""
        return {env_name(f.name): rule_of(f.name).write(getattr(self, f.name)) for f in setting_fields()}


def _checked(values: Mapping[str, Any], sources: Mapping[str, tuple[str, object]]) -> None:
    """Every setting in `values` fits its rule (given the others); InvalidSetting naming the first that does
    not, by where it came from (`sources`: name -> (variable or flag, value as given); else its variable)."""
    for f in setting_fields():
        if not rule_of(f.name).allows(values[f.name], values):
            source, given = sources.get(f.name, (env_name(f.name), values[f.name]))
            raise InvalidSetting(source, given, rule_of(f.name).expects)


def setting_fields() -> tuple[Field[Any], ...]:
    """The settings' fields, in order (`extra` is not one)."""
    return _FIELDS


def rule_of(name: str) -> Rule:
    rule: Rule = Settings.__dataclass_fields__[name].metadata["rule"]
    return rule


_FIELDS = tuple(f for f in fields(Settings) if "rule" in f.metadata)


def env_name(name: str) -> str:
    return "PLATFORM_API_" + name.upper()


def flag_name(name: str) -> str:
    """The command-line flag that gives the setting `name` (refusals name it; the table shows it)."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))
