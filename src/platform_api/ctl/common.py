"""What every command group shares: the command context (settings, the client, output), parser helpers that
put examples in every `--help`, and the CLI's own errors with their exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from platform_api.client import Client, errors
from platform_api.ctl import exit_codes
from platform_api.ctl.exit_codes import (
    CONFLICT,
    DENIED,
    GENERIC,
    INTERRUPTED,
    INVALID,
    NOT_FOUND,
    OK,
    UNAUTHENTICATED,
    UNAVAILABLE,
    USAGE,
)

# The exit codes by error class are re-exported for the command modules (the one table both CLIs share is
# exit_codes.py).
__all__ = [
    "CONFLICT",
    "DENIED",
    "GENERIC",
    "INTERRUPTED",
    "INVALID",
    "NOT_FOUND",
    "OK",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "USAGE",
    "CtlError",
    "Ctx",
    "Parser",
    "add_globals",
    "command",
    "exit_code",
    "group",
]


def exit_code(e: errors.ApiError) -> int:
    return exit_codes.for_status(e.code)


class Parser(argparse.ArgumentParser):
    """The parser of both CLIs (platform-api's too): a refused value is one line saying what the flag takes."""

    def error(self, message: str) -> NoReturn:
        # A flag's value refused ("argument --ttl: '1h2' is not a duration: give ..."): the line says what it
        # takes, the usage would bury it. Other errors (a flag missing, unknown) show the usage first.
        if not message.startswith("argument "):
            self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(USAGE)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # Python 3.11's argparse quotes each choice as a Python repr ("choose from 'json', 'yaml'"); here they
        # are as one types them (as newer Pythons' argparse writes them too).
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(str(c) for c in action.choices)
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from {choices})")


class CtlError(Exception):
    """A refusal of the CLI itself (not the server's), with its exit code."""

    def __init__(self, message: str, code: int = GENERIC) -> None:
        super().__init__(message)
        self.code = code


Handler = Callable[["Ctx"], int | None]


@dataclass
class Ctx:
    args: argparse.Namespace
    settings: dict[str, str] = field(default_factory=dict)
    _client: Client | None = None

    @property
    def server(self) -> str:
        return str(self.args.server or os.environ.get("PLATFORM_API_URL") or self.settings.get("server")
                   or "http://localhost:8080").rstrip("/")  # fmt: skip

    @property
    def output(self) -> str:
        return str(self.args.output or self.settings.get("output") or "table")

    @property
    def org(self) -> str:
        return str(self.args.org or self.settings.get("org") or "")

    def client(self) -> Client:
        if self._client is None:
            transport = (
                self.args.transport or os.environ.get("PLATFORM_API_TRANSPORT") or self.settings.get("transport")
            )
            grpc = self.args.grpc or os.environ.get("PLATFORM_API_GRPC") or self.settings.get("grpc") or None
            self._client = Client(self.server, grpc=grpc, transport=transport or "grpc")
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def add_globals(p: argparse.ArgumentParser, default: Any) -> None:
    """The options every command takes, before or after its name (subcommands: default SUPPRESS, so a value
    given before the command is not reset by the subcommand's parser)."""
    p.add_argument("-o", "--output", choices=["table", "wide", "json", "yaml"], default=default,
                   help="output format (default: table, or `config set output`)")  # fmt: skip
    p.add_argument("--server", default=default, help="the server URL (default: $PLATFORM_API_URL, config, "
                   "http://localhost:8080)")  # fmt: skip
    p.add_argument("--grpc", default=default, help="the gRPC address host:port (default: $PLATFORM_API_GRPC, config, "
                   "else the port the server publishes at /.well-known/platform-api)")  # fmt: skip
    p.add_argument("--transport", choices=["grpc", "http"], default=default, help="grpc (default) or http")
    p.add_argument("--org", default=default, help="the default organization for this command (uid or name)")


GLOBALS = argparse.ArgumentParser(add_help=False)
add_globals(GLOBALS, argparse.SUPPRESS)


def command(sub: Any, name: str, help: str, examples: list[str], func: Handler | None = None,
            aliases: list[str] | None = None) -> argparse.ArgumentParser:  # fmt: skip
    """A subcommand whose `--help` ends with its examples."""
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples) if examples else None
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=help, epilog=epilog, aliases=aliases or [], parents=[GLOBALS],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    if func is not None:
        p.set_defaults(func=func)
    return p


def group(sub: Any, name: str, help: str, examples: list[str]) -> Any:
    """A command that only holds subcommands (`platformctl iam`): its subparsers action."""
    p = command(sub, name, help, examples)
    p.set_defaults(func=lambda ctx: _usage(p))
    return p.add_subparsers(title="commands", metavar="COMMAND")


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return USAGE
