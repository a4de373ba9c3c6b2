"""One convention across the two command lines (issue 28 section 6): `platform-api` takes platformctl's verbs
(`ls`/`list`, `rm`/`delete`), `-o json|yaml|table` where its output is data, `--group` as a uid or a path, and
exits with the codes of the one table both share (ctl/exit_codes.py); no error line of either shows a Python
list, tuple or dict. Against a SQLite file of the test's own: these commands work on the database, no server."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from platform_api import app, cli
from platform_api.ctl import exit_codes
from platform_api.ctl import main as ctl_main
from platform_api.service import imports
from tests.helpers.run_cli import run_cli, run_entry

# What a Python repr of a list, tuple or dict of strings (or an empty one) looks like inside a line of text.
REPRS = ("['", "('", "{'", "[]", "()", "{}")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A bootstrapped database: its URL, the organization (my-org) and the owner identity."""
    url = f"sqlite:///{tmp_path_factory.mktemp('conventions') / 'pa.db'}"
    r = run_cli("bootstrap", "--database", url)
    assert r.returncode == 0, r.stderr
    boot = json.loads(r.stdout)
    yield {"url": url, "org": boot["organization"], "me": boot["identity"]}


def pa(db: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--database", db["url"])


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATFORM_API_")}
    env.update({"XDG_CONFIG_HOME": str(home), "HOME": str(home), "PLATFORM_API_TRANSPORT": "http"})
    return run_entry(ctl_main.main, [str(Path(sys.executable).parent / "platformctl")], "platformctl", list(args),
                     env=env)  # fmt: skip


def test_list_and_delete_verbs_are_aliases(db: dict[str, str]) -> None:
    assert pa(db, "keys", "ls").stdout == pa(db, "keys", "list").stdout != ""
    dom = "aliases.example"
    assert pa(db, "domains", "verify", "--group", db["org"], "--domain", dom).returncode == 0
    listed = pa(db, "domains", "list", "--group", db["org"])
    assert listed.returncode == 0 and dom in [d["domain"] for d in json.loads(listed.stdout)], listed
    assert listed.stdout == pa(db, "domains", "ls", "--group", db["org"]).stdout
    assert pa(db, "domains", "delete", "--group", db["org"], "--domain", dom).returncode == 0
    gone = pa(db, "domains", "rm", "--group", db["org"], "--domain", dom)
    assert gone.returncode == exit_codes.NOT_FOUND, gone
    assert gone.stderr == f"platform-api domains rm: no domain {dom} at {db['org']}\n"


def test_data_output_in_platformctls_formats(db: dict[str, str]) -> None:
    as_json = json.loads(pa(db, "keys", "ls").stdout)
    assert as_json and set(as_json[0]) == {"kid", "createTime", "retireTime"}
    assert yaml.safe_load(pa(db, "keys", "ls", "-o", "yaml").stdout) == as_json
    table = pa(db, "keys", "ls", "-o", "table").stdout.splitlines()
    assert table[0].split() == ["KID", "CREATE_TIME", "RETIRE_TIME"], table
    assert [line.split()[0] for line in table[1:]] == [k["kid"] for k in as_json]
    one = pa(db, "migrate", "-o", "yaml")
    assert (one.returncode, yaml.safe_load(one.stdout)) == (0, {"applied": []}), one
    # One record as a table: its fields as KEY value lines, as platformctl prints one.
    grant = pa(db, "grant", "--group", db["org"], "--identity", db["me"], "--role-name", "tables",
               "advisories.create", "-o", "table")  # fmt: skip
    assert grant.returncode == 0, grant.stderr
    assert [line.split()[0] for line in grant.stdout.splitlines()] == ["ROLE", "BINDING", "CREATED_ROLE"]
    routes = run_cli("routes", "-o", "yaml")
    assert routes.returncode == 0 and {"method", "url", "grpc", "handler", "line"} == set(
        yaml.safe_load(routes.stdout)[0]
    )


def test_bootstrap_format_is_output(db: dict[str, str]) -> None:
    """`--format env`, bootstrap's older flag, is now `-o env` under another name; both print the same lines."""
    older, newer = pa(db, "bootstrap", "--format", "env"), pa(db, "bootstrap", "-o", "env")
    keys = [line.split("=", 1)[0] for line in newer.stdout.splitlines()]
    assert keys == [line.split("=", 1)[0] for line in older.stdout.splitlines()] == ["export ORG", "export ME",
                                                                                       "export TOKEN"]  # fmt: skip


def test_group_takes_a_uid_or_a_path(db: dict[str, str]) -> None:
    by_path = pa(db, "grant", "--group", "my-org", "--identity", db["me"], "--role-name", "authors",
                 "advisories.create")  # fmt: skip
    assert by_path.returncode == 0, by_path.stderr
    # The same grant by uid: the binding the path made (so the same group), ALREADY_EXISTS's exit code.
    by_uid = pa(db, "grant", "--group", db["org"], "--identity", db["me"], "--role-name", "authors",
                "advisories.create")  # fmt: skip
    assert by_uid.returncode == exit_codes.CONFLICT and "already has this role" in by_uid.stderr, by_uid
    verified = pa(db, "domains", "verify", "--group", "my-org", "--domain", "by-path.example")
    assert json.loads(verified.stdout)["group"] == db["org"], verified.stderr
    nowhere = pa(db, "domains", "ls", "--group", "my-org/nope")
    assert nowhere.returncode == exit_codes.NOT_FOUND, nowhere
    assert nowhere.stderr == "platform-api domains ls: --group: no group named 'nope' under my-org\n"


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        (["token", "--identity", "nope"], exit_codes.NOT_FOUND,
         "platform-api token: Not found: chainguard.platform.iam.v2.Identity nope"),
        (["grant", "--group", "my-org", "--identity", "{me}", "--role-name", "r", "no.such"], exit_codes.INVALID,
         "platform-api grant: "),
        (["grant", "--group", "nope", "--identity", "{me}", "--role-name", "r", "advisories.create"],
         exit_codes.NOT_FOUND, "platform-api grant: --group: no organization named 'nope'"),
        (["import", "osv", "/nonexistent/osv"], exit_codes.INVALID,
         "platform-api import osv: /nonexistent/osv: no such file or directory"),
        (["domains", "verify", "--group", "my-org", "--domain", "gmail.com"], exit_codes.GENERIC,
         "platform-api domains verify: gmail.com is a blocked (free-mail) domain"),
        (["keys", "nope"], exit_codes.USAGE, "platform-api keys: error: argument ACTION: invalid choice: 'nope'"),
        (["keys", "ls", "-o", "wide"], exit_codes.USAGE, "platform-api keys ls: error: argument -o/--output: "),
        (["nope"], exit_codes.USAGE, "platform-api: error: argument COMMAND: invalid choice: 'nope'"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)  # fmt: skip
def test_platform_api_exits_by_the_shared_table(db: dict[str, str], args: list[str], code: int, line: str) -> None:
    r = pa(db, *[a.format(**db) for a in args])
    assert r.returncode == code, (r.returncode, r.stderr)
    assert r.stderr.splitlines()[-1].startswith(line), r.stderr
    assert not [x for x in REPRS if x in r.stderr], r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["iam", "groups", "ls", "-o", "nope"],
        ["iam", "nope"],
        ["iam", "invites", "create", "--ttl", "1h2"],
        ["iam", "groups", "get"],
        ["registry", "repos", "ls", "--server", "http://127.0.0.1:{closed}"],
        ["api", "NOPE", "/x"],
        ["config", "set", "nope", "x"],
    ],
    ids=" ".join,
)
def test_platformctl_error_lines_show_no_python_values(args: list[str], tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        r = ctl(*[a.format(closed=closed.getsockname()[1]) for a in args], home=tmp_path)
    assert r.returncode != 0 and r.stderr, r
    assert not [x for x in REPRS if x in r.stderr], r.stderr


def test_an_error_names_the_command_from_its_arguments(db: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """`main(argv)` names the command it ran, whatever sys.argv holds (here pytest's own arguments)."""
    assert cli.main(["token", "--identity", "nope", "--database", db["url"]]) == exit_codes.NOT_FOUND
    assert capsys.readouterr().err == "platform-api token: Not found: chainguard.platform.iam.v2.Identity nope\n"


def test_both_helps_end_with_the_one_table() -> None:
    table = exit_codes.epilog()
    assert run_cli("--help").stdout.endswith(table + "\n")
    assert ctl_main.parser().format_help().endswith(table + "\n")
    assert "  9    partly done" in table and "  8    UNAVAILABLE" in table


def test_an_import_that_rejects_units_exits_partly_done(
    db: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No importer rejects single units today (a bad input refuses the whole import); one that does exits 9
    with its summary, not UNAUTHENTICATED's 3. (cli.main itself: the importer exists in this process only.)"""

    async def run(job: Any) -> imports.Summary:
        summary = imports.Summary(created=1)
        summary.reject(imports.BadInput("units.json", "$[1]", "not a unit"))
        return summary

    def arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("path")

    fake = SimpleNamespace(HELP="a test importer", arguments=arguments, run=run)
    monkeypatch.setitem(app.IMPORTERS, "partly", fake)
    assert cli.main(["import", "partly", "units.json", "--database", db["url"]]) == exit_codes.PARTIAL
    assert json.loads(capsys.readouterr().out)["rejected"] == [
        {"file": "units.json", "place": "$[1]", "problem": "not a unit"}
    ]
    # As a table: the rejected units as JSON, never as Python's repr of a dict.
    assert cli.main(["import", "partly", "units.json", "--database", db["url"], "-o", "table"]) == exit_codes.PARTIAL
    table = capsys.readouterr().out
    assert '{"file": "units.json", "place": "$[1]", "problem": "not a unit"}' in table, table
