"""Every setting has a rule (core/setting_rules.py): a wrong value for any of them stops `platform-api serve`
before anything starts, with one line naming the variable or flag and what it expects (parametrized over
the fields, so a new setting is covered as it is added); lists and networks read as typed values and go
back to the environment unchanged (worker processes rebuild their settings from it)."""

from __future__ import annotations

import ipaddress
import os
import sys
from pathlib import Path

import pytest

from platform_api import cli
from platform_api.cli import common as cli_common
from platform_api.core.settings import InvalidSetting, Settings, env_name, rule_of, setting_fields
from tests.helpers.run_cli import run_entry

# Were a wrong value taken, `serve` would stop here (nothing listens on port 1), not start a server.
UNREACHABLE_DB = "postgresql://nobody@127.0.0.1:1/none"


def serve(env: dict[str, str], *args: str) -> tuple[int, list[str]]:
    """`platform-api serve <args>` in this process with `env` added: its exit code and stderr lines."""
    base = {
        k: v for k, v in os.environ.items() if not k.startswith("PLATFORM_API_") or k.startswith("PLATFORM_API_TEST")
    }
    r = run_entry(cli.main, [sys.executable, "-m", "platform_api.cli"], "platform-api", ["serve", *args],
                  env={**base, "PLATFORM_API_DATABASE_URL": UNREACHABLE_DB, **env})  # fmt: skip
    return r.returncode, r.stderr.strip().splitlines()


@pytest.mark.parametrize("name", [f.name for f in setting_fields()])
def test_a_wrong_value_of_any_setting_stops_serve_with_one_line(name: str) -> None:
    rule = rule_of(name)
    code, lines = serve({env_name(name): rule.bad})
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"platform-api: invalid setting {env_name(name)}="), lines
    assert lines[0].endswith(f": expected {rule.expects}"), lines


def test_garbage_networks_stop_the_start() -> None:
    """Issue 28: this started, /readyz said 200, and sinks failed later."""
    code, lines = serve({"PLATFORM_API_SINK_ALLOWED_NETWORKS": "10.0.0.0/8,garbage"})
    assert (code, lines) == (1, ["platform-api: invalid setting PLATFORM_API_SINK_ALLOWED_NETWORKS=10.0.0.0/8,"
                                 "garbage: expected comma-separated; each a network in CIDR notation (10.0.0.0/8,"
                                 " fd00::/8)"])  # fmt: skip


@pytest.mark.parametrize(
    ("flag", "value", "shown"),
    [("--blocked-email-domains", "corp.example, not a domain", "--blocked-email-domains"),
     ("--login-console-origin", "https://console.example/app", "--login-console-origin"),
     ("--trusted-issuer", "http://issuer.example", "--trusted-issuer"),
     ("--host", "a host", "--host"),
     ("--sts-burst", "-3", "--sts-burst")],
)  # fmt: skip
def test_a_wrong_flag_names_the_flag(flag: str, value: str, shown: str) -> None:
    code, lines = serve({}, flag, value)
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"platform-api: invalid setting {shown}="), lines


def test_a_client_id_is_required_with_a_login_issuer() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(login_issuer="https://accounts.example")
    assert caught.value.source == "PLATFORM_API_LOGIN_CLIENT_ID"
    assert Settings(login_issuer="https://accounts.example", login_client_id="c").login_client_id == "c"


def test_loopback_token_services_only_with_the_insecure_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLATFORM_API_AWS_STS_URL", "http://127.0.0.1:9/")
    with pytest.raises(InvalidSetting) as caught:
        Settings.from_env()
    assert str(caught.value).startswith("platform-api: invalid setting PLATFORM_API_AWS_STS_URL=http://127.0.0.1:9/:")
    assert Settings.from_env(insecure_allow_loopback=True).aws_sts_url == "http://127.0.0.1:9/"


def test_the_secret_file_must_be_readable(tmp_path: Path) -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings.from_env(login_client_secret_file=str(tmp_path / "missing"))
    assert caught.value.source == "--login-client-secret-file" and caught.value.expected == "a readable file"
    (tmp_path / "secret").write_text("s3cret\n")
    assert Settings.from_env(login_client_secret_file=str(tmp_path / "secret")).login_client_secret_file


def test_lists_read_as_typed_values(monkeypatch: pytest.MonkeyPatch) -> None:
    given = {"SINK_ALLOWED_NETWORKS": " 10.20.0.0/16 ,, fd00::/8", "LOGIN_CONSOLE_ORIGINS": "https://Console.Example/",
             "BLOCKED_EMAIL_DOMAINS": "corp.example , straße.de", "LOGIN_SCOPES": "groups,offline_access",
             "TRUSTED_ISSUERS": "https://issuer.example,accounts.google.com", "TERMS_DOCUMENTS": ""}  # fmt: skip
    for k, v in given.items():
        monkeypatch.setenv("PLATFORM_API_" + k, v)
    s = Settings.from_env()
    assert s.sink_allowed_networks == (ipaddress.ip_network("10.20.0.0/16"), ipaddress.ip_network("fd00::/8"))
    assert s.login_console_origins == ("https://console.example",)
    assert s.blocked_email_domains == ("corp.example", "straße.de")
    assert s.login_scopes == ("groups", "offline_access")
    assert s.trusted_issuers == ("https://issuer.example", "accounts.google.com")
    assert s.terms_documents == () and s.terms_document_ids == frozenset()
    assert Settings().terms_documents == ("tos.v1", "dpa.v1")


def test_workers_rebuild_lists_and_networks(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings(sink_allowed_networks=(ipaddress.ip_network("10.0.0.0/8"),), trusted_issuers=("https://a.example",
                 "https://b.example"), login_scopes=("x",), blocked_email_domains=("corp.example",),
                 login_console_origins=("https://console.example",), terms_documents=())  # fmt: skip
    for k, v in s.to_env().items():
        monkeypatch.setenv(k, v)
    assert Settings.from_env() == s


@pytest.mark.parametrize("name", [f.name for f in setting_fields()])
def test_defaults_fit_their_rules_and_read_back(name: str) -> None:
    """Each default is a value its rule accepts, and reading its written form gives it back."""
    default = Settings.__dataclass_fields__[name].default
    rule = rule_of(name)
    assert rule.allows(default, vars(Settings()))
    assert rule.read(rule.write(default)) == default


def test_direct_construction_is_checked_too() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(http_port=70000)
    assert caught.value.source == "PLATFORM_API_HTTP_PORT" and isinstance(caught.value, ValueError)
    assert not isinstance(caught.value, SystemExit)


def test_the_domains_commands_domain_is_not_the_domain_setting() -> None:
    """`domains verify --domain x` names the e-mail domain; it once also replaced the `domain` setting (the base
    of error domains and event types), and the setting's rule would now refuse a one-label domain there."""
    args = cli.parser().parse_args(["domains", "verify", "--group", "g", "--domain", "localhost"])
    assert args.email_domain == "localhost"
    assert cli_common.invocation(args).settings.domain == "platform-api.local"
