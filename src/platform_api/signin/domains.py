"""E-mail domains verified for root organizations, and the access requests made to them (the tables
`group_domains` and `group_access_requests`; signin/joining.py serves the RPCs that read them).

An organization's owner proves a domain in one of two ways (docs/joining.md):
- the operator's word: `platform-api domains verify --group <root> --domain example.com` (with the
  database: trusted, no DNS);
- DNS: `platform-api domains challenge` records a random token and prints the TXT record
  `platform-api-verification=<token>` to publish at the domain itself; `platform-api domains check` resolves
  the domain's TXT records and verifies the domain when one of them is that value. The resolver is a
  parameter (`Resolve`): the command uses dnspython, tests a loopback name server or a function.
Only root groups hold domains, a blocked (free-mail) domain never, and a domain is verified for at most one
organization: a second organization's verification is refused (DOMAIN_TAKEN), also under a race (a partial
unique index on verified domains).
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import dns.asyncresolver
import dns.exception
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.resolver
import idna

from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records.iam_v2 import Identity
from platform_api.iam import groups, identities
from platform_api.store import rows
from platform_api.store.db import Conn, Database

PENDING, VERIFIED = 0, 1
STATE_NAMES = {PENDING: "PENDING", VERIFIED: "VERIFIED"}
TXT_PREFIX = "platform-api-verification="
# Free-mail providers: anyone can have an address there, so the domain says nothing about an employer.
BUILTIN_BLOCKED = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "yahoo.com",
    "ymail.com", "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com", "pm.me",
    "gmx.com", "gmx.net", "gmx.de", "web.de", "mail.com", "yandex.com", "yandex.ru", "mail.ru", "zoho.com",
    "qq.com", "163.com", "126.com", "fastmail.com", "tutanota.com", "tuta.io", "hey.com",
})  # fmt: skip
MAX_DOMAIN = 253
# Answers of the listing commands stop here (newest first for requests).
MAX_LISTED = 1000

# A resolver: the TXT strings published at a domain (each record's strings joined, as DNS TXT values are).
Resolve = Callable[[str], Awaitable[list[str]]]


class DomainError(Exception):
    """A refusal of a domain command, with a message for the operator."""


def normalize(domain: str) -> str | None:
    """The domain in lower-case ASCII (IDNA2008 A-labels) without a trailing dot, or None when it is not a
    host name of at least two labels. Plain string checks, no regular expression: it runs on e-mail
    domains from tokens too. A domain is taken only as IDNA2008 writes it (UTS-46 without transitional
    mapping): `straße.de` is xn--strae-oqa.de, never strasse.de; invisible characters (zero-width space, soft
    hyphen, joiners, bidi controls, ...) are refused rather than dropped, and so is any other form the mapping
    would change (full-width letters, decomposed accents) or an A-label that does not decode and encode back
    to itself: two different strings never become one domain."""
    domain = domain.rstrip(".").lower()
    if not domain or len(domain) > MAX_DOMAIN:
        return None
    try:
        if not domain.isascii():
            if any(_invisible(c) for c in domain):
                return None
            a_labels = idna.encode(domain, uts46=True, transitional=False).decode("ascii")
            if idna.decode(a_labels) != domain:
                return None
            domain = a_labels
        elif "xn--" in domain and idna.encode(idna.decode(domain)).decode("ascii") != domain:
            return None
    except UnicodeError:  # idna.IDNAError is one
        return None
    labels = domain.split(".")
    if len(labels) < 2 or len(domain) > MAX_DOMAIN:
        return None
    for label in labels:
        if not 1 <= len(label) <= 63 or label[0] == "-" or label[-1] == "-":
            return None
        if any(not (c.isalnum() or c == "-") for c in label):
            return None
    return domain


# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties): drawn as nothing, so never part of a name
# a person can read; those outside the categories _invisible refuses anyway.
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip


def _invisible(c: str) -> bool:
    """A character that shows nothing: a format or control character (zero-width space and joiners, soft
    hyphen, bidi controls, BOM, tags), a space or separator, a private, surrogate or unassigned code point,
    or another default-ignorable one (combining grapheme joiner, variation selectors, Hangul fillers)."""
    if unicodedata.category(c)[0] in "CZ":
        return True
    n = ord(c)
    return any(lo <= n <= hi for lo, hi in _IGNORABLE)


def blocked_domains(extra: Iterable[str]) -> frozenset[str]:
    """The built-in list plus the setting's domains (normalized; the setting refuses what is no domain)."""
    return BUILTIN_BLOCKED | {d for d in map(normalize, extra) if d}


def is_blocked(domain: str, blocked: frozenset[str]) -> bool:
    """`domain` or a domain above it is blocked (mail.gmail.com is gmail's as much as gmail.com)."""
    labels = domain.split(".")
    return any(".".join(labels[i:]) in blocked for i in range(len(labels) - 1))


def txt_value(token: str) -> str:
    return TXT_PREFIX + token


DNS_TIMEOUT = 5.0
MAX_TXT = 100  # TXT records read of one answer


def dns_resolver(nameservers: list[str], port: int = 53, timeout: float = DNS_TIMEOUT) -> Resolve:
    """A Resolve over dnspython: the given name servers (the system's when none), answers within `timeout`
    seconds; a name without TXT records (or that does not exist) has none. Only TXT records owned by the
    domain itself count: a CNAME at the domain is not followed (the records it leads to are another name's,
    perhaps another party's), and records of other names in the answer are ignored."""
    resolver = dns.asyncresolver.Resolver(configure=not nameservers)
    if nameservers:
        resolver.nameservers = list(nameservers)
    resolver.port = port
    resolver.lifetime = timeout

    async def resolve(domain: str) -> list[str]:
        name = dns.name.from_text(domain)  # absolute: no search domain is appended
        try:
            answer = await resolver.resolve(name, "TXT", search=False, raise_on_no_answer=False)
        except dns.resolver.NXDOMAIN:
            return []
        except (dns.exception.DNSException, OSError) as e:
            raise DomainError(f"cannot resolve the TXT records of {domain}: {e}") from None
        response = answer.response
        try:
            own = response.find_rrset(response.answer, name, dns.rdataclass.IN, dns.rdatatype.TXT)
        except KeyError:
            return []
        return [b"".join(record.strings).decode("utf-8", "replace") for record in list(own)[:MAX_TXT]]

    return resolve


# ------------------------------------------------------------------------------------------- reads


async def verified_group(conn: Conn, domain: str) -> str | None:
    """The organization that verified `domain`, if any."""
    uid = await conn.fetchval("SELECT group_uid FROM group_domains WHERE domain = $1 AND state = 1", domain)
    return str(uid) if uid is not None else None


async def listing(conn: Conn, group: str = "") -> list[dict[str, Any]]:
    """The domains of `group` (every group's when empty), at most MAX_LISTED."""
    sql = "SELECT group_uid, domain, state, token, create_time, verify_time FROM group_domains"
    args: list[Any] = []
    if group:
        sql += " WHERE group_uid = $1"
        args.append(group)
    found = await conn.fetch(sql + f" ORDER BY group_uid, domain LIMIT {MAX_LISTED}", *args)
    return [_shown(r) for r in found]


def _shown(r: Any) -> dict[str, Any]:
    out = {"group": r["group_uid"], "domain": r["domain"], "state": STATE_NAMES.get(r["state"], "UNKNOWN"),
           "createTime": r["create_time"]}  # fmt: skip
    if r["state"] == VERIFIED:
        out["verifyTime"] = r["verify_time"]
    else:
        out["txt"] = txt_value(r["token"])
    return out


# ------------------------------------------------------------------------------------------- writes


async def _root(conn: Conn, group: str) -> None:
    try:
        validate.uid(group, "group")
    except errors.ApiError:
        raise DomainError(f"{group!r} is not a group uid") from None
    if uidp.parent(group):
        raise DomainError(f"{group} is not a root group (organization): only organizations verify domains")
    if not await groups.exists(conn, group):
        raise DomainError(f"no organization {group}")


def _domain(domain: str, blocked: frozenset[str]) -> str:
    """The operator's domain argument (spaces around it allowed), normalized; refused when it is not one."""
    d = normalize(domain.strip())
    if d is None:
        raise DomainError(f"{domain!r} is not a domain name")
    if is_blocked(d, blocked):
        raise DomainError(f"{d} is a blocked (free-mail) domain: it cannot belong to one organization")
    return d


async def _mark_verified(tx: Conn, group: str, domain: str) -> None:
    """Verifies (group, domain) inside `tx`; refused when another organization holds it verified."""
    other = await verified_group(tx, domain)
    if other is not None and other != group:
        raise DomainError(f"{domain} is already verified by another organization ({other}); remove it there first")
    if other == group:
        return
    now = clock.now()
    await tx.execute(
        "INSERT INTO group_domains (group_uid, domain, state, token, create_time, verify_time)"
        " VALUES ($1, $2, 1, $3, $4, $4)"
        " ON CONFLICT (group_uid, domain) DO UPDATE SET state = 1, verify_time = excluded.verify_time",
        group, domain, secrets.token_hex(16), now,
    )  # fmt: skip


async def verify(db: Database, group: str, domain: str, blocked: frozenset[str]) -> dict[str, Any]:
    """The operator's verification (no DNS)."""
    d = _domain(domain, blocked)
    try:
        async with db.transaction() as tx:
            await _root(tx, group)
            await _mark_verified(tx, group, d)
    except Exception as e:
        if isinstance(e, DomainError) or not rows.is_unique_violation(e):
            raise
        raise DomainError(f"{d} was verified by another organization meanwhile") from None
    return await _one(db, group, d)


async def challenge(db: Database, group: str, domain: str, blocked: frozenset[str]) -> dict[str, Any]:
    """A pending row with a random token (kept if one exists); the TXT value to publish."""
    d = _domain(domain, blocked)
    async with db.transaction() as tx:
        await _root(tx, group)
        await tx.execute(
            "INSERT INTO group_domains (group_uid, domain, state, token, create_time) VALUES ($1, $2, 0, $3, $4)"
            " ON CONFLICT (group_uid, domain) DO NOTHING",
            group, d, secrets.token_hex(16), clock.now(),
        )  # fmt: skip
    return await _one(db, group, d)


async def check(db: Database, group: str, domain: str, blocked: frozenset[str], resolve: Resolve) -> dict[str, Any]:
    """Verifies a challenged domain when its TXT records carry the challenge's value."""
    d = _domain(domain, blocked)
    token = await db.fetchval("SELECT token FROM group_domains WHERE group_uid = $1 AND domain = $2", group, d)
    if token is None:
        raise DomainError(f"no challenge for {d} at {group}: run `platform-api domains challenge` first")
    want = txt_value(token)
    found = await resolve(d)
    if want not in (v.strip() for v in found):
        raise DomainError(f"no TXT record {want!r} at {d} ({len(found)} TXT records found)")
    return await verify(db, group, d, blocked)


async def remove(db: Database, group: str, domain: str) -> bool:
    d = normalize(domain.strip()) or domain
    return await db.execute("DELETE FROM group_domains WHERE group_uid = $1 AND domain = $2", group, d) > 0


async def _one(conn: Conn, group: str, domain: str) -> dict[str, Any]:
    r = await conn.fetchrow(
        "SELECT group_uid, domain, state, token, create_time, verify_time FROM group_domains"
        " WHERE group_uid = $1 AND domain = $2",
        group, domain,
    )  # fmt: skip
    assert r is not None
    return _shown(r)


# ------------------------------------------------------------------------------------- access requests


async def record_request(tx: Conn, group: str, identity: str, now: str, cutoff: str) -> str | None:
    """Records that `identity` asked `group` for access at `now`, unless it asked after `cutoff` (the
    cool-down): then None and nothing changes. One statement, so two concurrent requests cannot both pass."""
    done = await tx.fetchval(
        "INSERT INTO group_access_requests (group_uid, identity_uid, request_time) VALUES ($1, $2, $3)"
        " ON CONFLICT (group_uid, identity_uid) DO UPDATE SET request_time = excluded.request_time"
        " WHERE group_access_requests.request_time <= $4 RETURNING request_time",
        group, identity, now, cutoff,
    )  # fmt: skip
    return None if done is None else str(done)


async def last_request(conn: Conn, group: str, identity: str) -> str | None:
    t = await conn.fetchval(
        "SELECT request_time FROM group_access_requests WHERE group_uid = $1 AND identity_uid = $2", group, identity
    )
    return None if t is None else str(t)


async def requests(
    conn: Conn, group: str, limit: int = MAX_LISTED, after: tuple[str, str] | None = None, skip: int = 0
) -> list[dict[str, Any]]:
    """The access requests to `group`, newest first (at most `limit`, past `skip` of them, after the
    (request time, identity) key `after` of a previous page), with each identity's name and e-mail read from
    the identity (not copied into the request)."""
    sql = "SELECT identity_uid, request_time FROM group_access_requests WHERE group_uid = $1"
    args: list[Any] = [group]
    if after is not None:
        sql += " AND (request_time < $2 OR (request_time = $2 AND identity_uid > $3))"
        args += after
    found = await conn.fetch(
        sql + f" ORDER BY request_time DESC, identity_uid LIMIT {int(limit)} OFFSET {int(skip)}", *args
    )
    bodies = await identities.bodies(conn, {r["identity_uid"] for r in found})
    out = []
    for r in found:
        body = bodies.get(r["identity_uid"])
        ident = rows.decode(Identity, body) if body is not None else None
        out.append({
            "identity": r["identity_uid"],
            "name": ident.name if ident else "",
            "email": ident.email if ident else "",
            "requestTime": r["request_time"],
        })  # fmt: skip
    return out


async def delete_of_group(tx: Conn, group: str) -> None:
    """A deleted organization's domains and access requests go with it."""
    await tx.execute("DELETE FROM group_domains WHERE group_uid = $1", group)
    await tx.execute("DELETE FROM group_access_requests WHERE group_uid = $1", group)


async def delete_requests_of(tx: Conn, identity: str) -> None:
    await tx.execute("DELETE FROM group_access_requests WHERE identity_uid = $1", identity)
