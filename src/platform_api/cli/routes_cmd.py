"""`routes`: the app assembled (no database, no listener), its routes listed (api/routes_listing.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from platform_api.api import routes_listing
from platform_api.app import create_app
from platform_api.cli.common import Invocation, emit, output_format


def register(sub: Any) -> None:
    rts = sub.add_parser("routes", help=routes_listing.HELP, description=routes_listing.HELP)
    rts.set_defaults(run=routes_command)
    output_format(rts, default="table")  # read by people first: one line per route


def routes_command(inv: Invocation) -> None:
    found = routes_listing.lines(create_app(inv.settings))
    if inv.args.output == "table":
        print(routes_listing.render(found, "table"))  # its own columns: the handler last, unpadded
    else:
        emit([asdict(x) for x in found], inv.args.output)
