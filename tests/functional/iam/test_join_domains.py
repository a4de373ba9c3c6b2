"""`platform-api domains verify|challenge|check|ls|rm` (issue 19, 1b): only organizations hold domains, never a
blocked one, and a domain is verified for one organization at most. The DNS TXT check resolves through a name
server the test runs on loopback (no query leaves the machine), named with `--nameserver`/`--dns-port`.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from platform_api.ctl import exit_codes
from tests.helpers import Server, mk_group, mk_org, run_cli, unique


class TxtServer:
    """A UDP name server on loopback answering TXT questions from `records` (NXDOMAIN otherwise). A name in
    `cnames` answers its CNAME and, as a recursive server does, the TXT records of the name it leads to; a name
    in `strays` answers, besides its own, the TXT records of another name (owned by that name)."""

    def __init__(self) -> None:
        self.records: dict[str, list[str]] = {}
        self.cnames: dict[str, str] = {}
        self.strays: dict[str, str] = {}
        self.questions: list[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            query = dns.message.from_wire(data)
            question = query.question[0]
            name = question.name.to_text(omit_final_dot=True).lower()
            self.questions.append(name)
            answer = dns.message.make_response(query)
            target = self.cnames.get(name)
            if target is not None:
                answer.answer.append(dns.rrset.from_text(question.name, 60, "IN", "CNAME", target + "."))
            owner = target or name
            values = self.records.get(owner)
            if values is not None and question.rdtype == dns.rdatatype.TXT:
                quoted = [json.dumps(v) for v in values]
                answer.answer.append(dns.rrset.from_text(owner + ".", 60, "IN", "TXT", *quoted))
                stray = self.strays.get(name)
                if stray is not None:
                    theirs = [json.dumps(v) for v in self.records[stray]]
                    answer.answer.append(dns.rrset.from_text(stray + ".", 60, "IN", "TXT", *theirs))
            elif values is None:
                answer.set_rcode(dns.rcode.NXDOMAIN)
            self.sock.sendto(answer.to_wire(), peer)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def txt() -> Iterator[TxtServer]:
    s = TxtServer()
    yield s
    s.close()


def domains(server: Server, *args: str) -> Any:
    return json.loads(server.cli("domains", *args))


def refused(server: Server, *args: str, code: int = exit_codes.GENERIC) -> str:
    """The one-line refusal of a `domains` command that must fail (exit status 1, a domain's refusal, unless
    `code`: the exit-code table both CLIs share)."""
    r = run_cli("domains", *args, "--database", server.database_url)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    return r.stderr.strip()


def domain() -> str:
    return unique("corp") + ".example"


def test_verify_is_for_one_organization_at_a_time(server: Server) -> None:
    dom, first, second = domain(), mk_org(server.http), mk_org(server.http)
    shown = domains(server, "verify", "--group", first, "--domain", dom.upper() + ".")
    assert shown["domain"] == dom and shown["state"] == "VERIFIED" and shown["group"] == first
    assert domains(server, "verify", "--group", first, "--domain", dom)["state"] == "VERIFIED"  # again: no change
    assert "already verified by another organization" in refused(server, "verify", "--group", second, "--domain", dom)
    # A challenge by the second is allowed, but its check cannot take the domain either.
    assert domains(server, "challenge", "--group", second, "--domain", dom)["state"] == "PENDING"
    assert [d["group"] for d in domains(server, "ls") if d["domain"] == dom and d["state"] == "VERIFIED"] == [first]
    # Once the first lets go, the second may verify it.
    assert domains(server, "rm", "--group", first, "--domain", dom) == {}
    assert "no domain" in refused(server, "rm", "--group", first, "--domain", dom, code=exit_codes.NOT_FOUND)
    assert domains(server, "verify", "--group", second, "--domain", dom)["group"] == second
    assert [d["domain"] for d in domains(server, "ls", "--group", second)] == [dom]


def test_only_organizations_and_real_domains(server: Server) -> None:
    org = mk_org(server.http)
    team = mk_group(server.http, org)["uid"]
    assert "not a root group" in refused(server, "verify", "--group", team, "--domain", domain())
    assert "no organization" in refused(server, "verify", "--group", "ab" * 20, "--domain", domain())
    no_such = refused(server, "verify", "--group", "nope", "--domain", domain(), code=exit_codes.NOT_FOUND)
    assert "--group: no organization named 'nope'" in no_such, no_such
    for free in ("gmail.com", "mail.Outlook.com", "proton.me"):
        assert "blocked (free-mail) domain" in refused(server, "verify", "--group", org, "--domain", free)
        assert "blocked" in refused(server, "challenge", "--group", org, "--domain", free)
    extra = domain()
    flag = ("--blocked-email-domains", extra)
    assert "blocked" in refused(server, "verify", "--group", org, "--domain", extra, *flag)
    for bad in ("localhost", "-x.example", "a..b", "under_score.example", "x" * 64 + ".example", "a b.example"):
        assert "is not a domain name" in refused(server, "verify", "--group", org, "--domain=" + bad)
    assert domains(server, "ls", "--group", org) == []


def test_dns_txt_check(server: Server, txt: TxtServer) -> None:
    org, dom = mk_org(server.http), domain()
    dns_at = ("--nameserver", "127.0.0.1", "--dns-port", str(txt.port))
    assert "challenge" in refused(server, "check", "--group", org, "--domain", dom, *dns_at)
    pending = domains(server, "challenge", "--group", org, "--domain", dom)
    value = pending["txt"]
    assert pending["state"] == "PENDING" and value.startswith("platform-api-verification=")
    assert domains(server, "challenge", "--group", org, "--domain", dom)["txt"] == value  # kept, not renewed
    # Nothing published yet; then other records, a near miss: refused, still pending.
    assert "no TXT record" in refused(server, "check", "--group", org, "--domain", dom, *dns_at)
    txt.records[dom] = ["v=spf1 -all", value + "x", "platform-api-verification=" + "0" * 32]
    assert "no TXT record" in refused(server, "check", "--group", org, "--domain", dom, *dns_at)
    assert domains(server, "ls", "--group", org)[0]["state"] == "PENDING"
    # Published: verified.
    txt.records[dom] = ["v=spf1 -all", value]
    shown = domains(server, "check", "--group", org, "--domain", dom, *dns_at)
    assert shown["state"] == "VERIFIED" and "txt" not in shown and shown["verifyTime"]
    assert dom in txt.questions
    # The same token published for another organization proves nothing to it (its own challenge differs).
    other = mk_org(server.http)
    domains(server, "challenge", "--group", other, "--domain", dom)
    assert "no TXT record" in refused(server, "check", "--group", other, "--domain", dom, *dns_at)
    # An unreachable name server is a refusal naming the problem, not a hang.
    closed = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    closed.bind(("127.0.0.1", 0))
    port = str(closed.getsockname()[1])
    closed.close()
    nowhere = ("--nameserver", "127.0.0.1", "--dns-port", port, "--dns-timeout", "0.5")
    err = refused(server, "check", "--group", other, "--domain", dom, *nowhere)
    assert "cannot resolve" in err


def test_dns_check_reads_the_name_itself_only(server: Server, txt: TxtServer) -> None:
    """Issue 26 (info): a CNAME at the domain is not followed to a third party's TXT records, and records of
    another owner name in the answer are ignored."""
    org, dom, third = mk_org(server.http), domain(), domain()
    dns_at = ("--nameserver", "127.0.0.1", "--dns-port", str(txt.port))
    value = domains(server, "challenge", "--group", org, "--domain", dom)["txt"]
    txt.cnames[dom], txt.records[third] = third, [value]
    assert "no TXT record" in refused(server, "check", "--group", org, "--domain", dom, *dns_at)
    # A stray record of another name carrying the value, beside the name's own records without it
    del txt.cnames[dom]
    txt.records[dom], txt.strays[dom] = ["v=spf1 -all"], third
    assert "no TXT record" in refused(server, "check", "--group", org, "--domain", dom, *dns_at)
    assert domains(server, "ls", "--group", org)[0]["state"] == "PENDING"
    txt.records[dom] = [value]
    assert domains(server, "check", "--group", org, "--domain", dom, *dns_at)["state"] == "VERIFIED"
