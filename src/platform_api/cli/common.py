"""What every `platform-api` command shares: the options most take (--database, the issuer's, -o), the
settings they and the environment give (Invocation), one database session per command, the commands' own
refusals with their exit codes (the table both CLIs share: ctl/exit_codes.py), and data written in
platformctl's formats (ctl/output.py)."""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from platform_api.core.settings import Settings
from platform_api.ctl import exit_codes, output
from platform_api.iam import group_paths
from platform_api.store import db
from platform_api.store.db import Conn
from platform_api.store.migrate import migrate

T = TypeVar("T")
# -o of the commands whose output is data: platformctl's formats (but `wide`, which adds nothing to columns
# taken from the data itself). JSON by default: these commands' outputs are read by scripts.
FORMATS = ("json", "yaml", "table")


class CliError(Exception):
    """A refusal of a command: one line, and its exit code from the shared table."""

    def __init__(self, message: str, code: int = exit_codes.GENERIC) -> None:
        super().__init__(message)
        self.code = code


def database_option(p: argparse.ArgumentParser) -> None:
    """--database, which every command but `routes` takes."""
    p.add_argument(
        "--database",
        dest="database_url",
        help="sqlite:///path (default sqlite:///platform-api.db) or postgresql://...; env PLATFORM_API_DATABASE_URL",
    )


def issuer_options(p: argparse.ArgumentParser) -> None:
    """--public-url and --audience, for the commands that issue or check tokens."""
    p.add_argument("--public-url", help="external base URL of this service, the issuer of its tokens")
    p.add_argument("--audience", help="audience of access tokens (default: the public URL)")


def output_format(p: argparse.ArgumentParser, *extra: str, aliases: Sequence[str] = (), default: str = "json") -> None:
    """-o/--output, as platformctl's: json, yaml or table, and the command's `extra` formats."""
    p.add_argument("-o", "--output", *aliases, dest="output", choices=[*FORMATS, *extra], default=default,
                   help=f"output format: {', '.join([*FORMATS, *extra])} (default {default})")  # fmt: skip


def group_option(p: argparse.ArgumentParser, help: str, required: bool = True) -> None:
    """--group, as platformctl's: a uid, or the path of names from the organization down (my-org/team)."""
    p.add_argument("--group", required=required, default="", help=f"{help}: its uid, or its path (my-org/team)")


async def group_uid(conn: Conn, ref: str) -> str:
    """The uid of the group `ref` names (a uid as given); a path that names none is NOT_FOUND."""
    try:
        return await group_paths.resolve(conn, ref)
    except group_paths.Unresolved as e:
        raise CliError(f"--group: {e}", exit_codes.NOT_FOUND) from None


def emit(value: Any, fmt: str) -> None:
    """`value` (a record, or a list of records) on stdout as platformctl writes it with `-o fmt`; a table's
    columns are the records' fields (createTime: CREATE_TIME)."""
    rows = value if isinstance(value, list) else [value]
    keys = list(dict.fromkeys(k for row in rows if isinstance(row, dict) for k in row))
    output.emit(value, fmt, [(_header(k), k) for k in keys], many=isinstance(value, list))


def _header(key: str) -> str:
    return "".join(f"_{c}" if c.isupper() else c.upper() for c in key).lstrip("_")


@dataclass
class Invocation:
    """What every command starts from: its parsed arguments and the settings they and the environment give."""

    args: argparse.Namespace
    settings: Settings
    overrides: dict[str, Any]  # the settings given as flags (serve's --port keeps these listeners where asked)
    explicit_url: bool  # --public-url or PLATFORM_API_PUBLIC_URL given, rather than the recorded issuer


def invocation(ns: argparse.Namespace) -> Invocation:
    """Settings from the environment, overridden by the flags given (unset flags leave the environment's)."""
    overrides = {k: v for k, v in vars(ns).items() if k in Settings.__dataclass_fields__ and v is not None}
    if getattr(ns, "trusted_issuer_list", None):
        overrides["trusted_issuers"] = ",".join(ns.trusted_issuer_list)
    if getattr(ns, "login_console_origin_list", None):
        overrides["login_console_origins"] = ",".join(ns.login_console_origin_list)
    if getattr(ns, "no_grpc", False):
        overrides["grpc_enabled"] = False
    if getattr(ns, "no_dispatcher", False):
        overrides["dispatcher"] = False
    settings = Settings.from_env(**overrides)
    explicit_url = "public_url" in overrides or "PLATFORM_API_PUBLIC_URL" in os.environ
    return Invocation(ns, settings, overrides, explicit_url)


def with_database(settings: Settings, work: Callable[[Any, list[str]], Awaitable[T]]) -> T:
    """Connects, applies pending migrations, runs `work(db, applied)`, closes. Errors go up to `main`, which
    gives each its line and exit code."""

    async def go() -> T:
        database = await db.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
        try:
            applied = await migrate(database)
            return await work(database, applied)
        finally:
            await database.close()

    return asyncio.run(go())
