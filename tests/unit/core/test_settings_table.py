"""The settings table (core/settings_table.py) is rendered from the fields: one row per setting with its
`serve` flag, and the documentation's copy (between `<!-- settings-table -->` and `<!-- /settings-table -->`
in README.md or docs/) is that text exactly."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from platform_api import cli
from platform_api.core import settings_table
from platform_api.core.settings import env_name, setting_fields

ROOT = Path(__file__).resolve().parents[3]
START, END = "<!-- settings-table -->\n", "<!-- /settings-table -->"


def serve_parser() -> argparse.ArgumentParser:
    commands = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = commands.choices["serve"]
    return parser


def table() -> str:
    return settings_table.markdown(settings_table.flags_of(serve_parser()))


def test_one_row_per_setting_with_its_flag() -> None:
    rows = table().splitlines()[2:]
    assert [r.split(" | ")[0] for r in rows] == [f"| `{env_name(f.name)}`" for f in setting_fields()]
    flags = settings_table.flags_of(serve_parser())
    assert flags["trusted_issuers"] == "`--trusted-issuer` (repeatable)"
    assert flags["http_host"] == "`--host`" and flags["grpc_enabled"] == "`--no-grpc`"
    # Every serve flag is a setting's (settings.FLAGS spells those not `--<name>`), but --workers and --help.
    options = {o for a in serve_parser()._actions for o in a.option_strings if o.startswith("--")}
    assert options - {"--help", "--workers"} == {f.strip("`").split("`")[0] for f in flags.values()}


def test_the_documentation_table_is_the_rendered_one() -> None:
    copies = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))] if p.is_file()
              and START in p.read_text()]  # fmt: skip
    if not copies:
        pytest.skip("no settings table in README.md or docs/ yet (markers: " + START.strip() + ")")
    for path in copies:
        text = path.read_text()
        copy = text.split(START, 1)[1].split(END, 1)[0]
        assert copy == table(), f"{path.name}: paste this between the markers:\n{table()}"
