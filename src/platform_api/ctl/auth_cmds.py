"""`platformctl auth login|status|token|logout`.

`login` runs the browser (or, with --headless, the device) flow of platform_api.client.login (headless: the
person types the confirmation code the browser shows), caches the token pair for this server URL (mode 0600)
and says who the server signed in (WhoAmI); `--token-stdin` caches a token read from standard input instead
(for scripts and tests: `platform-api token ... | platformctl auth login --token-stdin`)."""

from __future__ import annotations

import base64
import json
import sys
import time
import webbrowser
from typing import Any

from platform_api.client import Credentials, Unauthenticated, errors
from platform_api.client import auth as client_auth
from platform_api.client import login as login_flows
from platform_api.ctl import output
from platform_api.ctl.common import OK, UNAUTHENTICATED, USAGE, CtlError, Ctx, command, exit_code, group


def _subject(token: str) -> str:
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return str(claims.get("sub", ""))
    except (IndexError, ValueError, AttributeError):
        return ""


def login(ctx: Ctx) -> int:
    a = ctx.args
    if a.token_stdin:
        lines = [line.strip() for line in sys.stdin.read(64 << 10).splitlines() if line.strip()]
        if not lines:
            raise CtlError("--token-stdin: no token on standard input", USAGE)
        token, refresh_token = lines[0], (lines[1] if len(lines) > 1 else "")
        creds = Credentials(token, refresh_token, client_auth.jwt_expiry(token), "login")
    else:
        try:
            if a.headless:
                result = login_flows.headless_login(ctx.server, idp_id=a.idp_id or "", invite_code=a.invite_code or "",
                                                    show=_show, confirm=_ask, timeout=HEADLESS_TIMEOUT)  # fmt: skip
            else:
                result = login_flows.browser_login(ctx.server, idp_id=a.idp_id or "", invite_code=a.invite_code or "",
                                             identity=a.identity or "", open_browser=_open_browser)  # fmt: skip
        except login_flows.LoginRefused as e:  # before any browser: the server will not start this login
            raise CtlError(_refused(ctx.server, e, bool(a.idp_id)), exit_code(errors.make(e.code, str(e)))) from None
        except login_flows.LoginError as e:  # the server or the provider said no, or the person never finished
            raise CtlError(f"login failed: {e}", UNAUTHENTICATED) from None
        expiry = result.expiry.timestamp() if result.expiry else client_auth.jwt_expiry(result.token)
        creds = Credentials(result.token, result.refresh_token, expiry, "login")
    client_auth.save_login(ctx.server, creds)
    who = _subject(creds.token) or "(unknown identity)"
    if not a.token_stdin:  # the server's word (WhoAmI) on whose login came back, not only the token's claim
        me = login_flows.whoami(ctx.server, creds.token)
        who = f"{me['email']} ({me.get('subject', who)})" if me.get("email") else str(me.get("subject") or who)
    print(f"logged in to {ctx.server} as {who}", file=sys.stderr)
    return OK


def _refused(server: str, e: login_flows.LoginRefused, idp: bool) -> str:
    text = f"cannot log in to {server}: {e}"
    if e.code == errors.FailedPrecondition.code and not idp:
        # The server's words name its query parameter (idp_id): say what to do here instead.
        text += (" -- log in through an organization's identity provider (--idp-id UID), or cache a token: "
                 "platform-api token --identity UID | platformctl auth login --token-stdin")  # fmt: skip
    return text


HEADLESS_TIMEOUT = 600.0  # s: how long a headless login waits for the person


def _show(url: str) -> None:
    """The headless login's instructions: where to go, what comes back, how long it waits."""
    print(f"No browser is needed on this machine: sign in from a browser on any machine.\n"
          f"  1. Open this URL and sign in:\n     {url}\n"
          f"  2. The browser then shows a confirmation code: type it here, within {HEADLESS_TIMEOUT / 60:.0f} "
          f"minutes.", file=sys.stderr, flush=True)  # fmt: skip


def _ask(prompt: str) -> str:
    """The confirmation code, typed by the person (prompt on standard error, like the rest of the dialogue)."""
    print(prompt, end="", file=sys.stderr, flush=True)
    return sys.stdin.readline(256).strip()


def _open_browser(url: str) -> object:
    print(f"Opening {url}\n(if no browser opens, visit it yourself)", file=sys.stderr, flush=True)
    return webbrowser.open(url)


def status(ctx: Ctx) -> int:
    client = ctx.client()
    source = client.auth.source()
    info: dict[str, Any] = {"server": ctx.server, "source": source, "identity": "", "name": "", "email": "",
                            "expiry": None, "valid": False}  # fmt: skip
    code = UNAUTHENTICATED
    if source != "none":
        try:
            creds = client.auth.credentials()
            # A cheap authenticated call: the server, not the client, says whether the token is good.
            next(iter(client.iam.list_groups(page_size=1).pages()))
            creds = client.auth.credentials() or creds
            info["valid"], code = True, OK
        except Unauthenticated as e:
            info["error"] = e.message
            creds = None
        if creds is not None:
            info["identity"] = _subject(creds.token)
            if info["valid"]:  # the server's word (WhoAmI) on whose token it is: a uid alone tells a person little
                me = login_flows.whoami(ctx.server, creds.token)
                info["name"] = str((me.get("profile") or {}).get("name") or "")
                info["email"] = str(me.get("email") or "")
            if creds.expiry:
                info["expiry"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(creds.expiry))
    if ctx.output in ("json", "yaml"):
        output.emit(info, ctx.output, ())
    else:
        for k, v in info.items():
            print(f"{k + ':':10} {'' if v is None else str(v).lower() if isinstance(v, bool) else v}")
    return code


def token(ctx: Ctx) -> int:
    value = ctx.client().auth.token()
    if not value:
        raise CtlError(f"not logged in to {ctx.server}: run `platformctl auth login`", UNAUTHENTICATED)
    print(value)
    return OK


def logout(ctx: Ctx) -> int:
    if client_auth.forget_login(ctx.server):
        print(f"logged out of {ctx.server}", file=sys.stderr)
    else:
        print(f"not logged in to {ctx.server}", file=sys.stderr)
    return OK


def register(sub: Any) -> None:
    g = group(sub, "auth", "log in and out, show and print the token",
              ["platformctl auth login", "platformctl auth status",
               'curl -H "Authorization: Bearer $(platformctl auth token)" ...'])  # fmt: skip
    p = command(g, "login", "log in through the server's identity provider (browser, or --headless)",
                ["platformctl auth login", "platformctl auth login --idp-id <uid> --headless",
                 "platform-api token --identity <uid> | platformctl auth login --token-stdin"], login)  # fmt: skip
    p.add_argument("--idp-id", help="log in through this organization's identity provider")
    p.add_argument("--headless", action="store_true", help="no browser here: show a code to complete elsewhere")
    p.add_argument("--invite-code", help="accept this group invite while logging in")
    p.add_argument("--identity", help="act as this identity (uid) after logging in")
    p.add_argument("--token-stdin", action="store_true",
                   help="cache a token read from standard input (a second line: its refresh token)")  # fmt: skip
    command(g, "status", "who the token is for (uid, name, e-mail), where it comes from, when it expires (exit 3: "
            "none or refused)",
            ["platformctl auth status", "platformctl auth status -o json"], status)  # fmt: skip
    command(g, "token", "print the current access token (refreshed when near expiry)",
            ["export TOKEN=$(platformctl auth token)"], token)  # fmt: skip
    command(g, "logout", "forget the cached login for this server", ["platformctl auth logout"], logout)
