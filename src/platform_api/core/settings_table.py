"""The settings as a Markdown table, from the fields themselves (core/settings.py): variable, flag, type,
default, what a value must be (the words of the refusal at start) and what it does. The README's table is
this text (tests/unit/core/test_settings_table.py), so a new setting or a changed default shows there."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from platform_api.core.settings import env_name, rule_of, setting_fields

# `serve` flags whose destination is not the setting's own name: the setting they give.
FLAG_ALIASES = {
    "trusted_issuer_list": "trusted_issuers",
    "login_console_origin_list": "login_console_origins",
    "no_grpc": "grpc_enabled",
    "no_dispatcher": "dispatcher",
}


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Setting name -> the flag(s) of `parser` (serve's) that give it, e.g. `--trusted-issuer` (repeatable)."""
    flags: dict[str, list[str]] = {}
    for action in parser._actions:
        name = FLAG_ALIASES.get(action.dest, action.dest)
        if action.option_strings and name in {f.name for f in setting_fields()}:
            repeat = " (repeatable)" if isinstance(action, argparse._AppendAction) else ""
            flags.setdefault(name, []).append(f"`{max(action.option_strings, key=len)}`{repeat}")
    return {name: ", ".join(spelled) for name, spelled in flags.items()}


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
