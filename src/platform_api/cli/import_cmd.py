"""`import <kind>`: security data from files in their published formats, one importer (app.IMPORTERS) over
one input."""

from __future__ import annotations

from typing import Any

from platform_api.api import schema
from platform_api.app import IMPORTERS
from platform_api.cli.common import CliError, Invocation, database_option, emit, output_format, with_database
from platform_api.ctl import exit_codes
from platform_api.service import imports
from platform_api.service.runtime import Runtime
from platform_api.store.db import Database


def register(sub: Any) -> None:
    imp = sub.add_parser("import", help="import security data from files in their published formats")
    kinds = imp.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, importer in IMPORTERS.items():
        one = kinds.add_parser(kind, help=importer.HELP, description=importer.HELP)
        one.set_defaults(run=import_command, importer=importer)
        database_option(one)
        importer.arguments(one)
        output_format(one)


def import_command(inv: Invocation) -> int:
    """`import <kind>`: prints the summary. Exit 0 when everything was applied, 9 (partly done) when some units
    were rejected (the summary says which), 7 when the input was refused (nothing applied; `{"error": ...}` on
    stdout, and a line on stderr naming the file, the place in it and the problem)."""
    importer = inv.args.importer
    progress = imports.Progress(f"import {inv.args.kind}")

    async def run(database: Database, _: list[str]) -> imports.Summary:
        # No page-token key: imports write, they never list.
        rt = Runtime(settings=inv.settings, db=database)
        job = imports.Job(rt, inv.args, progress, lambda name: schema.methods()[name])
        summary: imports.Summary = await importer.run(job)
        return summary

    try:
        summary = with_database(inv.settings, run)
    except imports.BadInput as e:
        progress.finish()
        emit({"error": e.as_json()}, inv.args.output)
        raise CliError(str(e), exit_codes.INVALID) from None
    progress.finish()
    emit(summary.as_json(), inv.args.output)
    return exit_codes.PARTIAL if summary.rejected else exit_codes.OK
