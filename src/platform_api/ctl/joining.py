"""`platformctl iam join`: joining your company's organization by your e-mail's domain (GroupsService
LookupGroup, then RequestGroupAccess; signin/joining.py). The server finds the organization from the signed-in
user's verified e-mail alone: there is nothing to name, and every way of not qualifying is the same NOT_FOUND
(it says nothing of which organizations exist), so the message says what qualifies."""

from __future__ import annotations

import sys
from typing import Any

from platform_api.client import NotFound
from platform_api.ctl import output
from platform_api.ctl.common import NOT_FOUND, OK, CtlError, Ctx, command

NO_ORGANIZATION = (
    "no organization takes your e-mail's domain. Joining by domain needs: a login through the server's login "
    "provider or a trusted issuer (`platformctl auth login`), an e-mail that issuer verified, and an "
    "organization that verified that domain (its administrator: `platform-api domains verify`). Otherwise ask "
    "an owner for an invite (`platformctl auth login --invite-code CODE`)"
)
COLUMNS = (("NAME", "group.name"), ("UID", "group.uid"), ("REQUESTED", "requested"))


def join(ctx: Ctx) -> int:
    client = ctx.client()
    try:
        found = client.iam.lookup_group()
    except NotFound:
        raise CtlError(NO_ORGANIZATION, NOT_FOUND) from None
    group: Any = found.group
    if not ctx.args.check:
        client.iam.request_group_access(group.uid)
    result = {"group": output.data(group), "requested": not ctx.args.check}
    if ctx.output in ("json", "yaml"):
        output.emit(result, ctx.output, ())
    elif ctx.output == "wide":
        output.emit(result, ctx.output, COLUMNS)
    elif ctx.args.check:
        print(f"you may ask to join {group.name} ({group.uid}): `platformctl iam join` asks")
    else:
        print(f"asked to join {group.name} ({group.uid})")
        print("platformctl: its owners are told (event iam.group.access_requested.v1); one of them grants you a "
              "role there", file=sys.stderr)  # fmt: skip
    return OK


def register(iam: Any) -> None:
    p = command(iam, "join", "ask to join the organization of your e-mail's domain (your verified e-mail)",
                ["platformctl iam join --check   # which organization, without asking",
                 "platformctl iam join"], join)  # fmt: skip
    p.add_argument("--check", action="store_true", help="only show the organization you may ask to join")
