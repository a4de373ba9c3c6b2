"""`registry-config`: a Distribution registry's configuration pointing at this server (registry/dataplane/config.py)."""

from __future__ import annotations

from typing import Any

from platform_api.auth import issuer
from platform_api.cli.common import Invocation, database_option, emit, issuer_options, output_format, with_database
from platform_api.registry.dataplane import config as registry_config
from platform_api.store.db import Database


def register(sub: Any) -> None:
    reg = sub.add_parser("registry-config", help=registry_config.HELP, description=registry_config.DESCRIPTION)
    reg.set_defaults(run=registry_config_command)
    database_option(reg)
    issuer_options(reg)
    registry_config.arguments(reg)
    output_format(reg)


def registry_config_command(inv: Invocation) -> None:
    """registry.dataplane.config.write with this server's issuer and registry service; prints what it wrote."""

    async def run(database: Database, _: list[str]) -> dict[str, str]:
        iss = await issuer.issuer_of(database, inv.settings, inv.explicit_url)
        return await registry_config.from_arguments(database, inv.args, inv.settings, iss)

    emit(with_database(inv.settings, run), inv.args.output)
