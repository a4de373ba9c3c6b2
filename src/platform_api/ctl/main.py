"""`platformctl`: the entry point. Parses the command line, runs the command, maps errors to exit codes (the
table both CLIs share: exit_codes.py)."""

from __future__ import annotations

import argparse
import functools
import sys
from importlib import metadata

from platform_api.client import ApiError
from platform_api.ctl import api_cmd, auth_cmds, complete, config, exit_codes, extra, images, joining, resources, specs
from platform_api.ctl.common import GENERIC, INTERRUPTED, USAGE, CtlError, Ctx, Parser, add_globals, exit_code, group

EXAMPLES = """examples:
  platformctl config set server http://localhost:8080
  platformctl auth login
  platformctl iam groups create my-org
  platformctl config set org my-org
  platformctl registry repos create nginx
  platformctl registry repos ls -o json
  platformctl iam identities create ci-bot --issuer https://token.actions.githubusercontent.com \\
    --subject repo:acme/app:ref:refs/heads/main
  platformctl iam role-bindings create --identity ci-bot --role viewer
"""


# The distributions that install platformctl: the whole service, or the client alone (clients/python).
DISTRIBUTIONS = ("platform-api", "platform-api-client")


def version() -> str:
    for name in DISTRIBUTIONS:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "(not installed)"


# Built once per process: about 7,000 argparse calls (35 ms), which a process that calls main() more than once
# (tests, a program embedding platformctl) paid at every call. Nothing in it depends on the environment or the
# configuration, which are read when a command runs.
@functools.cache
def parser() -> argparse.ArgumentParser:
    root = Parser(prog="platformctl", description="The command-line client of the Platform Management API v2.",
                  epilog=f"{EXAMPLES}\n{exit_codes.epilog()}",
                  formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_globals(root, None)
    root.add_argument("--version", action="version", version=f"platformctl {version()}")
    root.set_defaults(func=None)
    sub = root.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    auth_cmds.register(sub)
    iam = group(sub, "iam", "groups, identities, roles, role bindings, invites, identity providers, group mappings",
                ["platformctl iam groups ls", "platformctl iam roles ls -o wide"])  # fmt: skip
    for spec in specs.IAM:
        resources.register(iam, spec)
    joining.register(iam)
    registry = group(sub, "registry", "repos, tags and images' facts", ["platformctl registry repos ls"])
    for spec in specs.REGISTRY:
        resources.register(registry, spec)
    images.register(registry)
    resources.register(sub, specs.ADVISORIES)
    events = group(sub, "events", "webhook subscriptions and their deliveries", ["platformctl events subscriptions ls"])
    for spec in specs.EVENTS:
        resources.register(events, spec)
    deliveries = resources.register(events, specs.DELIVERIES)
    extra.register_redeliver(deliveries)
    extra.register_config(sub)
    api_cmd.register(sub)
    extra.register_completion(sub, root)
    complete.register(sub)
    return root


def main(argv: list[str] | None = None) -> int:
    root = parser()
    for arg in sys.argv[1:] if argv is None else argv:
        if not arg.isascii():
            try:
                arg.encode()
            except UnicodeEncodeError:  # bytes that are no UTF-8, as Python hands them over (surrogates)
                print(f"platformctl: error: {arg.encode(errors='replace').decode()!r} is not valid UTF-8",
                      file=sys.stderr)  # fmt: skip
                return USAGE
    try:
        args = root.parse_args(argv)
    except KeyboardInterrupt:
        return INTERRUPTED
    if args.func is None:
        root.print_help(sys.stderr)
        return USAGE
    ctx = Ctx(args)
    try:
        ctx.settings = config.load()
        return int(args.func(ctx) or 0)
    except CtlError as e:
        print(f"platformctl: {e}", file=sys.stderr)
        return e.code
    except config.ConfigError as e:
        print(f"platformctl: {e}", file=sys.stderr)
        return GENERIC
    except ApiError as e:
        print(f"platformctl: {e}", file=sys.stderr)
        for v in e.field_violations:
            if v.description not in e.message:
                print(f"  {v.field}: {v.description}", file=sys.stderr)
        return exit_code(e)
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:  # `platformctl ... | head`
        return GENERIC
    except Exception as e:  # the last resort: one line, never a traceback (a bug to report)
        print(f"platformctl: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return GENERIC
    finally:
        ctx.close()


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
