"""The pure rules of signin/domains.py (domain names, the blocked list) and the TXT check with an injected
resolver, in process over a scratch SQLite database."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from platform_api.signin import bootstrap, domains
from platform_api.store import db
from platform_api.store.migrate import migrate


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Example.COM.", "example.com"),
        ("a-b.c.example", "a-b.c.example"),
        (" a-b.c.example ", None),  # the commands strip their arguments; a domain from a token is taken as it is
        ("bücher.example", "xn--bcher-kva.example"),
        ("localhost", None),
        ("", None),
        ("a..example", None),
        ("-a.example", None),
        ("a-.example", None),
        ("a_b.example", None),
        ("a b.example", None),
        ("x" * 64 + ".example", None),
        (("a" * 60 + ".") * 5 + "example", None),  # over 253 characters
    ],
)
def test_normalize(given: str, expected: str | None) -> None:
    assert domains.normalize(given) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # IDNA2008 (UTS-46, non-transitional): ß is a letter of its own, not "ss" as IDNA2003 mapped it
        ("straße.de", "xn--strae-oqa.de"),
        ("STRASSE.de", "strasse.de"),
        ("Bücher.Example", "xn--bcher-kva.example"),
        ("xn--strae-oqa.de", "xn--strae-oqa.de"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        # invisible characters are refused, not dropped
        ("acme.com\u200b", None),
        ("ac\u200bme.com", None),
        ("\u200dacme.com", None),
        ("a\u200ccme.com", None),
        ("acme\u00ad.com", None),
        ("acme.com\ufeff", None),
        ("acme\u2060.com", None),
        ("\u202eacme.com", None),
        ("acme\u034f.com", None),
        ("acme\ufe0f.com", None),
        ("acme\u3164.com", None),
        ("acme.com\u3000", None),
        ("acme.com\U000e0041", None),
        # forms the mapping would change do not round-trip
        ("ａｃｍｅ.com", None),
        ("bu\u0308cher.example", None),
        ("xn--zz.de", None),
        ("xn--acme.com", None),
        ("xn--ss-sbb.de", None),
    ],
)
def test_normalize_is_idna2008_and_refuses_invisible_characters(given: str, expected: str | None) -> None:
    """Issue 26 item 14: straße.de never matches strasse.de, acme.com<U+200B> never matches acme.com."""
    assert domains.normalize(given) == expected


def test_blocked_domains_and_their_subdomains() -> None:
    blocked = domains.blocked_domains(["Corp-Mail.example", "not a domain"])
    assert "gmail.com" in blocked and "corp-mail.example" in blocked
    assert domains.is_blocked("gmail.com", blocked)
    assert domains.is_blocked("eu.mail.gmail.com", blocked)
    assert domains.is_blocked("corp-mail.example", blocked)
    assert not domains.is_blocked("notgmail.com", blocked)
    assert not domains.is_blocked("com", blocked)
    assert not domains.is_blocked("example.com", domains.blocked_domains(()))


def test_check_with_an_injected_resolver(tmp_path: Path) -> None:
    asked: list[str] = []
    published: dict[str, list[str]] = {}

    async def resolve(name: str) -> list[str]:
        asked.append(name)
        return published.get(name, [])

    async def go() -> None:
        database = await db.connect(f"sqlite:///{tmp_path / 't.db'}")
        try:
            await migrate(database)
            org = (await bootstrap.bootstrap(database, "http://x", "http://x", "org", "", ""))["organization"]
            blocked = domains.blocked_domains(())
            challenge = await domains.challenge(database, org, "Corp.Example", blocked)
            with pytest.raises(domains.DomainError, match="no TXT record"):
                await domains.check(database, org, "corp.example", blocked, resolve)
            published["corp.example"] = ["  " + challenge["txt"] + " "]
            shown = await domains.check(database, org, "corp.example.", blocked, resolve)
            assert shown["state"] == "VERIFIED"
            assert await domains.verified_group(database, "corp.example") == org
            assert asked == ["corp.example", "corp.example"]
        finally:
            await database.close()

    asyncio.run(go())
