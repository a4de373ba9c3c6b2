"""What a setting may hold. A rule reads the text of a PLATFORM_API_* variable or a flag as a typed value,
says whether a value is acceptable (given the other settings, for the few that depend on one), and says
in words what it expects: the refusal at start and the generated settings table (core/settings_table.py)
use the same words. `bad` is a value the rule refuses: tests feed it to every setting, so a new setting is
covered by the test that a wrong value stops the start."""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import idna

from platform_api.core import netcheck, patterns

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})
LOOPBACK_FLAG = "insecure_allow_loopback"
_HOST_CHARS = patterns.LETTERS + patterns.DIGITS + "-."


class InvalidSetting(ValueError):
    """A setting with a value it cannot take: the message names the variable (or flag), the value and what
    it expects, on one line. The entry points print it and exit 1 (cli.main)."""

    def __init__(self, source: str, value: object, expected: str) -> None:
        super().__init__(f"platform-api: invalid setting {source}={shown(value)}: expected {expected}")
        self.source = source
        self.value = value
        self.expected = expected


def shown(value: object) -> str:
    """The value as written, escaped where it holds what a terminal would not show on one line."""
    text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
    return text if text.isprintable() else repr(text)[1:-1]


@dataclass(frozen=True)
class Rule:
    """Free text: any printable characters (no line breaks or other control characters)."""

    expects: str = "printable text (no control characters)"
    kind: str = "text"
    bad: str = "tab\there"

    def read(self, text: str) -> object:
        """The value `text` stands for; ValueError when it stands for none."""
        return text

    def write(self, value: object) -> str:
        """The text `read` takes back to `value` (worker processes rebuild settings from the environment)."""
        return str(value)

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, str) and value.isprintable()


@dataclass(frozen=True)
class Flag(Rule):
    expects: str = "a boolean (1/0, true/false, yes/no, on/off)"
    kind: str = "boolean"
    bad: str = "flase"

    def read(self, text: str) -> object:
        word = text.strip().lower()
        if word not in TRUE | FALSE:
            raise ValueError(text)
        return word in TRUE

    def write(self, value: object) -> str:
        return str(value).lower()

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, bool)


@dataclass(frozen=True)
class Number(Rule):
    """A finite number from `low` up (above it, with `above`), at most `high`; whole with `whole`."""

    whole: bool = False
    low: float = 0
    above: bool = False
    high: float = math.inf

    def read(self, text: str) -> object:
        return int(text) if self.whole else float(text)

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if isinstance(value, bool) or not isinstance(value, int if self.whole else (int, float)):
            return False
        if not math.isfinite(value) or value > self.high:
            return False
        return value > self.low if self.above else value >= self.low


def number(*, whole: bool = False, positive: bool = False, port: bool = False) -> Number:
    """The number rules settings use: not negative (0 often meaning off), above zero, or a port."""
    noun = "a whole number" if whole else "a finite number"
    if port:
        return Number("a port number (0-65535)", "integer", "70000", whole=True, high=65535)
    if positive:
        return Number(noun + " above zero", "integer" if whole else "number", "0", whole=whole, above=True)
    return Number(noun + ", not negative", "integer" if whole else "number", "-1", whole=whole)


@dataclass(frozen=True)
class Choice(Rule):
    """One of `options`, in any case (kept as written)."""

    options: tuple[str, ...] = ()
    bad: str = "none-of-these"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, str) and value.lower() in {o.lower() for o in self.options}


def choice(*options: str) -> Choice:
    return Choice("one of " + ", ".join(repr(o) for o in options), "text", options=options)


def host_name(host: str) -> bool:
    """A DNS name (ASCII letters, digits, hyphens; dot-separated labels), or an IP address (IPv6 bracketed or
    not): what a listener binds or a domain names."""
    try:
        ipaddress.ip_address(host[1:-1] if host.startswith("[") and host.endswith("]") else host)
        return True
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    return (
        0 < len(host) <= 253
        and patterns.only(host, _HOST_CHARS)
        and all(0 < len(x) <= 63 and not x.startswith("-") and not x.endswith("-") for x in labels)
    )


@dataclass(frozen=True)
class Host(Rule):
    expects: str = "a host name or IP address ([::] or :: for every IPv6 address)"
    bad: str = "no such host!"
    optional: bool = False

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, str) and ((self.optional and not value) or host_name(value))


@dataclass(frozen=True)
class Domain(Rule):
    """A domain name of two labels or more; non-ASCII ones as IDNA writes them (iam/domains.py normalizes)."""

    expects: str = "a domain name of two labels or more (example.com)"
    bad: str = "not a domain"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str) or "." not in value.strip(".") or not value.isprintable():
            return False
        try:
            ascii_name = value if value.isascii() else idna.encode(value, uts46=True, transitional=False).decode()
        except idna.IDNAError:
            return False
        try:
            ipaddress.ip_address(ascii_name.strip("[]"))
            return False
        except ValueError:
            return host_name(ascii_name) and netcheck.host_canonical(ascii_name)


@dataclass(frozen=True)
class DatabaseUrl(Rule):
    expects: str = "sqlite:///path or postgresql://..."
    bad: str = "mysql://db/x"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str) or not value.isprintable():
            return False
        return value.startswith("sqlite://") or value.startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class WebUrl(Rule):
    """An absolute http:// or https:// URL with a host."""

    expects: str = "an http:// or https:// URL"
    bad: str = "localhost:8080"
    optional: bool = False

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str) or not value.isprintable():
            return False
        if self.optional and not value:
            return True
        try:
            parts = urlsplit(value)
            return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in value
        except ValueError:
            return False


@dataclass(frozen=True)
class OutboundUrl(Rule):
    """A URL the server connects to: https://, or http:// on a loopback host with --insecure-allow-loopback
    (core/netcheck.py's rule for issuers and sinks). The bare `accounts.google.com` is Google's issuer."""

    expects: str = "an https:// URL (http:// on a loopback host only with --insecure-allow-loopback)"
    bad: str = "http://example.com"
    optional: bool = False

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str):
            return False
        if (self.optional and not value) or value == "accounts.google.com":
            return True
        return value.isprintable() and netcheck.url_allowed(value, bool(others.get(LOOPBACK_FLAG)))


@dataclass(frozen=True)
class Origin(Rule):
    """A web origin, written as browsers send it: lower case, no path (read: trailing `/` dropped)."""

    expects: str = "an origin, http(s)://host[:port] without a path"
    bad: str = "console.example.com"

    def read(self, text: str) -> object:
        return text.strip().rstrip("/").lower()

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str) or value != value.lower() or not value.isprintable():
            return False
        try:
            parts = urlsplit(value)
            return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.path == "" and "?" not in value
        except ValueError:
            return False


@dataclass(frozen=True)
class Word(Rule):
    """One token: visible ASCII, no spaces or commas (a scope, a document id, a name)."""

    expects: str = "visible ASCII without spaces or commas"
    bad: str = "two words"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, str) and bool(value) and all("!" <= c <= "~" and c != "," for c in value)


@dataclass(frozen=True)
class Network(Rule):
    expects: str = "a network in CIDR notation (10.0.0.0/8, fd00::/8)"
    kind: str = "network"
    bad: str = "garbage"

    def read(self, text: str) -> object:
        return ipaddress.ip_network(text.strip(), strict=False)

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, (ipaddress.IPv4Network, ipaddress.IPv6Network))


@dataclass(frozen=True)
class ReadableFile(Rule):
    """A file read at start (empty: none)."""

    expects: str = "a readable file"
    bad: str = "/nonexistent/platform-api-setting"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        if not isinstance(value, str):
            return False
        return not value or (value.isprintable() and os.path.isfile(value) and os.access(value, os.R_OK))


@dataclass(frozen=True)
class RequiredWith(Rule):
    """Printable text, not empty when the setting `needed_by` is set."""

    needed_by: str = ""
    bad: str = "tab\there"

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return super().allows(value, others) and bool(value or not others.get(self.needed_by))


def required_with(needed_by: str, what: str) -> RequiredWith:
    return RequiredWith(f"{what} (required with --{needed_by.replace('_', '-')})", needed_by=needed_by)


@dataclass(frozen=True)
class Items(Rule):
    """A list, written comma-separated (spaces around items and empty items ignored), each item by `item`."""

    item: Rule = Rule()

    def read(self, text: str) -> object:
        return tuple(self.item.read(x.strip()) for x in text.split(",") if x.strip())

    def write(self, value: object) -> str:
        return ",".join(self.item.write(x) for x in value) if isinstance(value, tuple) else str(value)

    def allows(self, value: object, others: Mapping[str, object]) -> bool:
        return isinstance(value, tuple) and all(self.item.allows(x, others) for x in value)


def items(item: Rule) -> Items:
    return Items(f"comma-separated; each {item.expects}", f"list of {item.kind}", item.bad, item=item)
