"""The settings as a Markdown table, from the fields themselves (core/settings.py): variable, flag, type,
default, what a value must be (the words of the refusal at start) and what it does. The table in
docs/reference/settings.md is this text (tests/unit/core/test_settings_table.py), so a new setting or a changed
default shows there."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from platform_api.core.settings import env_name, flag_name, rule_of, setting_fields


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Setting name -> its flag as `parser` (serve's) has it, e.g. `--trusted-issuer` (repeatable)."""
    setting_of = {flag_name(f.name): f.name for f in setting_fields()}
    flags: dict[str, str] = {}
    for action in parser._actions:
        for option in action.option_strings:
            if option in setting_of:
                repeat = " (repeatable)" if isinstance(action, argparse._AppendAction) else ""
                flags[setting_of[option]] = f"`{option}`{repeat}"
    return flags


def markdown(flags: Mapping[str, str]) -> str:
    """One row per setting, in the fields' order; `flags` from flags_of (settings without one: env only)."""
    rows = [
        "| Variable | `serve` flag | Type | Default | Value | Meaning |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for f in setting_fields():
        rule = rule_of(f.name)
        default = rule.write(f.default)
        cells = [f"`{env_name(f.name)}`", flags.get(f.name, ""), rule.kind, f"`{default}`" if default else "(empty)",
                 rule.expects, f.metadata["doc"]]  # fmt: skip
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"
