"""The command line `platform-api`, one module per command group (as platformctl's ctl/): serve_cmds (serve,
dispatch, migrate), access_cmds (bootstrap, token, grant, keys), registry_cmd (registry-config), domains_cmd
(domains), routes_cmd (routes), import_cmd (import <kind>); common.py holds what they share. Conventions are
platformctl's: `ls` (alias `list`) and `rm` (alias `delete`), `-o json|yaml|table` where the output is data
(JSON by default here), `--group` as a uid or a path, and its exit codes (ctl/exit_codes.py)."""

from __future__ import annotations

import argparse
import sys
from importlib import metadata

from platform_api.cli import access_cmds, domains_cmd, import_cmd, registry_cmd, routes_cmd, serve_cmds
from platform_api.cli.common import CliError, invocation
from platform_api.core.errors import ApiError
from platform_api.core.settings import InvalidSetting
from platform_api.ctl import exit_codes
from platform_api.ctl.common import Parser
from platform_api.store.errors import CannotConnect, Unavailable


def parser() -> argparse.ArgumentParser:
    """Every command's options; each subparser names the function that runs it (`run`)."""
    root = Parser(prog="platform-api", description="Platform Management API v2 server",
                  epilog=exit_codes.epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    root.add_argument("--version", action="version", version=f"platform-api {metadata.version('platform-api')}")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve_cmds.register(sub)
    access_cmds.register(sub)
    registry_cmd.register(sub)
    domains_cmd.register(sub)
    routes_cmd.register(sub)
    import_cmd.register(sub)
    return root


def main(argv: list[str] | None = None) -> int:
    """Entry point (`platform-api`): parses the command line, runs the chosen command's function, and turns
    its failure into one line and the exit code of its class (the table both CLIs share)."""
    ns = parser().parse_args(argv)
    try:
        return int(ns.run(invocation(ns)) or exit_codes.OK)
    except CliError as e:
        return _fail(ns, str(e), e.code)
    except ApiError as e:  # the service's own error (e.g. NOT_FOUND): the code of its status, as platformctl's
        return _fail(ns, e.message, exit_codes.for_status(e.code))
    except (CannotConnect, Unavailable) as e:  # one line (what, where, what to do), not the driver's traceback
        return _fail(ns, str(e), exit_codes.UNAVAILABLE)
    except InvalidSetting as e:  # one line naming the setting and what it expects (its text says "platform-api")
        print(e, file=sys.stderr)
        return exit_codes.GENERIC
    except KeyboardInterrupt:
        return exit_codes.INTERRUPTED


def _fail(ns: argparse.Namespace, message: str, code: int) -> int:
    print(f"{command_name(ns)}: {message}", file=sys.stderr)
    return code


def command_name(ns: argparse.Namespace) -> str:
    """The command as given, e.g. `platform-api import sbom`, `platform-api domains ls`: from the parsed
    arguments, never from sys.argv (main(argv) is called with its own)."""
    words = [ns.command, getattr(ns, "kind", None), getattr(ns, "action", None)]
    return " ".join(["platform-api", *(w for w in words if w)])
