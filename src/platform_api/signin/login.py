"""Human login at our issuer (docs/sign-in.md).

`GET /oauth` starts a login: the client's parameters are checked (the `redirect` first: only loopback
callbacks, configured console origins and this server's own console at `<public URL>/console/`, refused
before anything else), and the browser is sent to the
upstream provider (an organization's identity provider named by `idp_id`, or the server-wide one of
`--login-issuer`) with authorization code + PKCE (S256), `state` and `nonce`. Nothing is stored: the pending
login (PKCE verifier, nonce, parameters) goes to the browser sealed in a cookie (signin/login_state.py). A browser
that reached /oauth at another address than our public URL is first sent to the public URL's /oauth, where
the cookie must live for the callback to receive it.

`GET /oauth/callback` is where the provider returns: the pending login is opened from the cookie of its
`state` and the state spent (once, on every process), the code is redeemed at the provider's token endpoint
and the ID token verified (signature through its JWKS, iss, aud = our client id, nonce, exp). The identity is
then found or registered as the token exchange does it (signin/sts.py: a provider's default role bound at first
login, its external group mappings granted for this session only), an invite code is redeemed, and the result
(`token`, `refresh_token` when asked for and when no session grants apply, `expiry`, the client's own `state`)
goes back to the client without ever sitting in a URL's query: to a loopback callback, and to our own console
(`POST /console/callback`, with the console page to return to), as an auto-submitted form POST; to a
configured console origin (`--login-console-origin`) in the page URL's fragment. A failure after the pending
login is found goes the same way as `error` and `error_description`; one before answers a google.rpc.Status
(400, or 401 for an unknown, spent or expired state, or a browser without its cookie).

With `headless_code` (a P-256 public key, auth/headless.py) no client callback is needed: the browser ends on a
page showing a confirmation code, the result is sealed for that key and that code and kept (headless_sessions,
10 minutes) until `GET /sts/headless_sessions` reads it, once, with proof of the key and the confirmation code
(5 wrong codes cancel it). A second browser finishing a login for the same code is told it was used.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import msgspec

from platform_api.auth import headless, matching, oidc_rp, upstream
from platform_api.auth.access import Access
from platform_api.core import clock, errors, setting_rules, settings, validate
from platform_api.gen.records.auth import GetHeadlessSessionRequest, HeadlessSession
from platform_api.gen.records.iam_v2 import Identity
from platform_api.iam import group_invites, identity_providers
from platform_api.service.context import Context, rpc
from platform_api.service.runtime import Runtime
from platform_api.signin import login_state, sts
from platform_api.signin.login_state import Pending

log = logging.getLogger(__name__)

HEADLESS_SECONDS = 600
MAX_CONFIRMATION_ATTEMPTS = 5
MAX_URL = 2048
MAX_PARAM = 256
MAX_SCOPES = 10
CALLBACK_PATH = "/oauth/callback"
CONSOLE_PATH = "/console/"
CONSOLE_CALLBACK = "callback"  # under CONSOLE_PATH: where our console receives a login's result (a form POST)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Set on the /oauth URL a browser is sent back to at our public URL, so that it is sent there once only (a
# proxy that rewrites the Host header would otherwise make every visit look like another address).
BOUNCED = "bounced"
# Parameters of the reference's hosted login that mean nothing here: accepted and ignored.
IGNORED = frozenset({"client_id", "screen_hint", "skip_registration", "prompt", "login_hint"})
SINGLE = ("audience", "idp_id", "connection", "redirect", "create_refresh_token", "invite", "identity", "exit",
          "headless_code", "state", BOUNCED)  # fmt: skip
SIGNED_IN = "Signed in. To finish, type this confirmation code into your terminal:"
CODE_USED = (
    "This login code was already used: a sign-in for it finished before yours. If that was not you, someone"
    " else saw the code: type no confirmation code into your terminal, and start the login there again."
)


@dataclass
class Outcome:
    """What the browser gets: a redirect (the provider; a console origin with the result in the fragment), a
    form its page posts to a loopback callback or to our own console, or a page (headless) with the error that
    made it, if any. The pending login's cookie is set (`cookie`: name, value) or cleared (`clear_cookie`: name)
    with it."""

    redirect: str = ""
    post_to: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    page: str = ""
    confirmation: str = ""
    error: errors.ApiError | None = None
    cookie: tuple[str, str] | None = None
    clear_cookie: str = ""


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _bool(value: str, name: str) -> bool:
    word = value.strip().lower()
    if word not in setting_rules.TRUE | setting_rules.FALSE:
        raise errors.invalid_argument(name, "must be true or false")
    return word in setting_rules.TRUE


def loopback_netloc(netloc: str) -> bool:
    """Exactly `127.0.0.1`, `localhost` or `[::1]`, then an optional `:port` of digits; nothing else (no user
    info, no `[::1]evil.com`, no trailing dot)."""
    netloc = netloc.lower()
    for host in LOOPBACK_HOSTS:
        if netloc == host:
            return True
        if netloc.startswith(host + ":"):
            port = netloc[len(host) + 1 :]
            return 0 < len(port) <= 5 and port.isascii() and port.isdigit() and int(port) <= 65535
    return False


class Login:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        s = rt.settings
        self.exchange = rt.part(sts.Exchange)
        self.rp = oidc_rp.RelyingParty(self.exchange.upstream)
        self.states = login_state.LoginStates(rt.db)
        self.callback_url = s.issuer + CALLBACK_PATH
        self.public_netloc = urlsplit(s.issuer).netloc.lower()
        self.origins = set(s.login_console_origins)  # as browsers send them (core/setting_rules.Origin)
        # Our own web console (console/) receives logins like a configured console origin, under its path only.
        self.own_console = s.issuer.rstrip("/") + CONSOLE_PATH
        self.console_callback = self.own_console + CONSOLE_CALLBACK
        self.server_wide: oidc_rp.Provider | None = None
        if s.login_issuer:
            secret = ""
            if s.login_client_secret_file:
                try:
                    secret = Path(s.login_client_secret_file).read_text().strip()
                except OSError as e:
                    raise settings.InvalidSetting(
                        "PLATFORM_API_LOGIN_CLIENT_SECRET_FILE", s.login_client_secret_file, f"a readable file ({e})"
                    ) from None
            self.server_wide = oidc_rp.Provider(s.login_issuer, s.login_client_id, secret, s.login_scopes)

    async def close(self) -> None:
        await self.rp.close()

    # ------------------------------------------------------------------ GET /oauth

    def check_redirect(self, redirect: str) -> str:
        """A loopback callback (http, any port), a page under a configured console origin, or a page of our own
        console; nothing else."""
        if not redirect:
            raise errors.invalid_argument("redirect", "a callback URL is required (or headless_code)")
        if len(redirect) > MAX_URL or not all("!" <= c <= "~" for c in redirect):
            raise errors.invalid_argument("redirect", f"must be visible ASCII, at most {MAX_URL} characters")
        try:
            parts = urlsplit(redirect)
        except ValueError:
            raise errors.invalid_argument("redirect", "is not a URL") from None
        if "@" in parts.netloc or parts.fragment or "#" in redirect:
            raise errors.invalid_argument("redirect", "must not carry user info or a fragment")
        if parts.scheme == "http" and loopback_netloc(parts.netloc):
            return redirect
        if parts.scheme in ("http", "https") and f"{parts.scheme}://{parts.netloc.lower()}" in self.origins:
            return redirect
        if self._own_console(redirect):
            return redirect
        raise errors.invalid_argument(
            "redirect", "only loopback callbacks (http://127.0.0.1:<port>/..., localhost, [::1]), the configured"
            " console origins and this server's /console/ may receive a login"
        )  # fmt: skip

    def _own_console(self, redirect: str) -> bool:
        """A page under our public URL's /console/ (no dot segments that would lead a browser out of it)."""
        rest = redirect[len(self.own_console) :] if redirect.startswith(self.own_console) else None
        return rest is not None and ".." not in rest and "%2e" not in rest.lower() and "\\" not in rest

    async def _provider(self, idp_uid: str) -> oidc_rp.Provider:
        if not idp_uid:
            if self.server_wide is None:
                raise errors.failed_precondition(
                    "LOGIN_PROVIDER", "this server has no login provider (--login-issuer): name one with idp_id"
                )
            return self.server_wide
        try:
            idp = await identity_providers.fetch(self.rt.db, idp_uid)
        except errors.ApiError:
            raise errors.not_found("identity provider", idp_uid) from None
        if idp.oidc is None or not idp.oidc.issuer or not idp.oidc.client_id:
            raise errors.failed_precondition("LOGIN_PROVIDER", "the identity provider has no OIDC client", idp_uid)
        o = idp.oidc
        return oidc_rp.Provider(o.issuer, o.client_id, o.client_secret, tuple(o.additional_scopes), o.groups_claim)

    async def begin(self, params: dict[str, list[str]], peer: str, here: str) -> Outcome:
        """The browser's way to the provider, with the sealed pending login as a cookie; `here` is the
        host (and port) the browser asked."""
        self.exchange.throttle(peer, "")
        for name in SINGLE:
            if len(params.get(name, [])) > 1:
                raise errors.invalid_argument(name, "give it at most once")
        one = {n: (params.get(n) or [""])[0] for n in SINGLE}
        code = one["headless_code"]
        redirect = "" if code and not one["redirect"] else self.check_redirect(one["redirect"])
        point = b""
        if code:
            try:
                point = headless.public_key(code)
            except headless.BadCode as e:
                raise errors.invalid_argument("headless_code", str(e)) from None
        audience = self.rt.settings.token_audience
        if one["audience"] and one["audience"].rstrip("/") != audience.rstrip("/"):
            raise errors.invalid_argument("audience", f"this issuer mints tokens for {audience!r} only")
        if one["exit"] not in ("", "redirect"):
            raise errors.invalid_argument("exit", "only exit=redirect is supported")
        idp = one["idp_id"] or one["connection"]
        if one["idp_id"] and one["connection"] and one["idp_id"] != one["connection"]:
            raise errors.invalid_argument("connection", "give idp_id or connection, not both")
        if idp:
            try:
                validate.uid(idp, "idp_id")
            except errors.ApiError:
                raise errors.invalid_argument(
                    "idp_id", "must be the uid of an identity provider (the reference's hosted connections such as"
                    " google-oauth2 do not exist here; leave it out for the server's login provider)"
                ) from None  # fmt: skip
        if one["identity"]:
            validate.uid(one["identity"], "identity")
            if idp:
                raise errors.invalid_argument("identity", "an identity provider's login is the user's own identity")
        for name in ("invite", "state"):
            if len(one[name]) > MAX_PARAM:
                raise errors.invalid_argument(name, f"at most {MAX_PARAM} characters")
        scopes = params.get("scope", [])
        if len(scopes) > MAX_SCOPES:
            raise errors.invalid_argument("scope", f"at most {MAX_SCOPES} scopes")
        for s in scopes:
            validate.uid(s, "scope")
        refresh = _bool(one["create_refresh_token"], "create_refresh_token") if one["create_refresh_token"] else False
        provider = await self._provider(idp)
        try:
            ends = await self.rp.endpoints(provider.issuer)
        except upstream.Rejected as e:
            log.warning("login provider %s unusable: %s", provider.issuer, e)
            raise errors.failed_precondition("LOGIN_PROVIDER", "the login provider cannot be reached") from None
        if point and await self._headless_used(code):
            return Outcome(page=CODE_USED, error=_code_used())
        verifier, challenge = oidc_rp.pkce_pair()
        state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires = int(clock.to_epoch(clock.now())) + login_state.PENDING_SECONDS
        pending = Pending(verifier, nonce, login_state.digest(matching.normalize_issuer(provider.issuer)), expires,
                          redirect, idp, refresh, one["invite"], one["identity"], code if point else "",
                          sorted(set(scopes)), one["state"])  # fmt: skip
        sealed = await self.states.seal(state, pending)
        if sealed is None:
            raise errors.invalid_argument(
                "redirect", "the login's parameters (redirect, invite, scope, state) are too long to keep in a cookie"
            )
        if here.lower() != self.public_netloc and not one[BOUNCED]:
            again = [(k, v) for k, values in params.items() for v in values]
            return Outcome(redirect=self.rt.settings.issuer + "/oauth?" + urlencode([*again, (BOUNCED, "1")]))
        url = oidc_rp.authorization_url(ends, provider, self.callback_url, state, nonce, challenge)
        return Outcome(redirect=url, cookie=(login_state.cookie_name(state), sealed))

    # ------------------------------------------------------------------ GET /oauth/callback

    async def finish(self, params: dict[str, str], cookies: dict[str, str], peer: str) -> Outcome:
        self.exchange.throttle(peer, "")
        state = params.get("state", "")
        if not state or len(state) > MAX_PARAM:
            raise errors.invalid_argument("state", f"required, at most {MAX_PARAM} characters")
        name = login_state.cookie_name(state)
        sealed = cookies.get(name, "")
        pending = await self.states.open(state, sealed) if sealed else None
        if pending is None or not await self.states.spend(state, pending):
            raise errors.unauthenticated("unknown, expired or already used login, or one this browser did not start")
        try:
            if params.get("error"):
                raise errors.permission_denied("the login provider refused: " + params["error"][:64])
            code = params.get("code", "")
            if not code or len(code) > 4096:
                raise errors.invalid_argument("code", "the provider returned no usable code")
            result = await self._complete(pending, code)
        except errors.ApiError as e:
            if pending.headless:
                return Outcome(page="Sign-in failed: " + e.message, error=e, clear_cookie=name)
            return self._deliver(pending, {"error": e.reason, "error_description": e.message}, name)
        if pending.headless:
            try:
                confirmation = await self._seal(pending.headless, result)
            except errors.ApiError as e:
                return Outcome(page=CODE_USED, error=e, clear_cookie=name)
            return Outcome(page=SIGNED_IN, confirmation=headless.shown(confirmation), clear_cookie=name)
        fields = {"token": result["token"], "expiry": result["expiry"]}
        if result.get("refreshToken"):
            fields["refresh_token"] = result["refreshToken"]
        return self._deliver(pending, fields, name)

    def _deliver(self, pending: Pending, fields: dict[str, str], cookie: str) -> Outcome:
        """The result (or error) with the client's own `state`: posted to a loopback callback (its server cannot
        see a fragment) and to our own console's callback, in the fragment of a configured console origin's page
        URL; never in a query."""
        if pending.state:
            fields = {**fields, "state": pending.state}
        parts = urlsplit(pending.redirect)
        if self._own_console(pending.redirect):
            # Our console is at our own origin: the result is posted to it like a loopback callback's, with the
            # page the login returns to (console/routes.py answers it; no URL ever holds the tokens).
            page = parts.path + ("?" + parts.query if parts.query else "")
            return Outcome(post_to=self.console_callback, fields={**fields, "page": page}, clear_cookie=cookie)
        if f"{parts.scheme}://{parts.netloc.lower()}" in self.origins:
            return Outcome(redirect=pending.redirect + "#" + urlencode(fields), clear_cookie=cookie)
        return Outcome(post_to=pending.redirect, fields=fields, clear_cookie=cookie)

    async def _complete(self, pending: Pending, code: str) -> dict[str, str]:
        try:
            provider = await self._provider(pending.idp)
            if login_state.digest(matching.normalize_issuer(provider.issuer)) != pending.issuer_hash:
                raise upstream.Rejected("the identity provider changed issuer during the login")
            id_token = await self.rp.redeem(provider, code, pending.verifier, self.callback_url)
            claims = await self.rp.verify_id_token(provider, id_token, pending.nonce)
            grants: list[tuple[str, str]] = []
            identity: Identity
            if pending.idp:
                identity, claims, grants = await self.exchange._idp_login(id_token, pending.idp, claims)
            elif pending.identity:
                identity, claims = await self.exchange._choose(id_token, claims, pending.identity)
            else:
                identity, _ = await self.exchange.ensure_user(claims)
        except upstream.Rejected as e:
            log.info("login refused: %s", e)
            raise errors.unauthenticated("login refused") from None
        if pending.invite:
            await group_invites.redeem(self.rt.db, pending.invite, identity.uid, self.exchange.vouched_email(identity))
            self.rt.grants_changed()
        await self.exchange.seen(identity.uid)
        act = {k: claims[k] for k in sts.ACT_CLAIMS if k in claims}
        audience = self.rt.settings.token_audience
        token, expiry = self.rt.part(Access).tokens.mint(
            identity.uid, audience=audience, scopes=pending.scopes, grants=grants, act=act
        )
        out = {"token": token, "expiry": clock.from_epoch(expiry)}
        if pending.refresh and not grants:  # session grants end with the access token
            stored = {"aud": audience, "scopes": pending.scopes, "cap_limit": [], "act": act}
            out["refreshToken"], _ = await self.exchange._new_refresh(identity.uid, secrets.token_hex(16), stored)
        return out

    # ------------------------------------------------------------------ headless

    async def _headless_used(self, code: str) -> bool:
        row = await self.rt.db.fetchrow(
            "SELECT 1 FROM headless_sessions WHERE code_hash = $1 AND expire_time > $2", _hash(code), clock.now()
        )
        return row is not None

    async def _seal(self, code: str, result: dict[str, str]) -> str:
        """Keeps the result sealed for `code`'s key and a new confirmation code, which it returns."""
        confirmation = headless.new_confirmation()
        eph, sealed = headless.seal(headless.public_key(code), msgspec.json.encode(result), confirmation)
        now = clock.now()
        expires = clock.from_epoch(clock.to_epoch(now) + HEADLESS_SECONDS)
        async with self.rt.db.transaction() as tx:
            await tx.execute("DELETE FROM headless_sessions WHERE expire_time <= $1", now)
            # The first finished login for a code is kept: a later one (someone who saw the code on screen) cannot
            # replace it with a session of their own, and is told so.
            added = await tx.execute(
                "INSERT INTO headless_sessions (code_hash, ecdh_public_key, encrypted, expire_time, confirmation_hash,"
                " attempts) VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (code_hash) DO NOTHING",
                _hash(code), eph.hex(), sealed.hex(), expires, _confirmation_hash(code, confirmation),
            )  # fmt: skip
        if not added:
            raise _code_used()
        return confirmation

    async def headless_session(self, request: GetHeadlessSessionRequest, peer: str) -> tuple[bytes, bytes]:
        """(ephemeral public key, sealed result) of the finished login for the request's code, once, to the
        holder of the code's key who types the confirmation code; NOT_FOUND before the login finished."""
        self.exchange.throttle(peer, "")
        code = request.code
        if not code or len(code) > MAX_PARAM:
            raise errors.invalid_argument("code", f"required, at most {MAX_PARAM} characters")
        try:
            timestamp = int(request.timestamp or "0")
        except ValueError:
            raise errors.invalid_argument("timestamp", "must be Unix seconds") from None
        # Before anything is looked up: whoever merely saw the code learns nothing and uses nothing up.
        problem = headless.check_proof(code, timestamp, request.signature)
        if problem:
            raise errors.invalid_argument("signature", problem)
        typed = headless.normalize_confirmation(request.confirmation)
        if not typed or len(typed) > MAX_PARAM:
            raise errors.invalid_argument("confirmation", "the code the browser showed at the end of the login")
        async with self.rt.db.transaction() as tx:
            row = await tx.fetchrow(
                "SELECT ecdh_public_key, encrypted, confirmation_hash, expire_time FROM headless_sessions"
                " WHERE code_hash = $1",
                _hash(code),
            )
            if row is None or row["expire_time"] <= clock.now():
                raise errors.not_found("headless session", "(no finished login for this code yet)")
            if not row["encrypted"]:
                raise errors.failed_precondition("HEADLESS_SESSION", "this login was already read, or cancelled")
            if row["confirmation_hash"] == _confirmation_hash(code, typed):
                taken = await tx.execute(
                    "UPDATE headless_sessions SET encrypted = '' WHERE code_hash = $1 AND encrypted = $2",
                    _hash(code), row["encrypted"],
                )  # fmt: skip
                if not taken:  # another read with the right code came first
                    raise errors.failed_precondition("HEADLESS_SESSION", "this login was already read")
                return bytes.fromhex(row["ecdh_public_key"]), bytes.fromhex(row["encrypted"])
            attempts = await tx.fetchval(
                "UPDATE headless_sessions SET attempts = attempts + 1 WHERE code_hash = $1 RETURNING attempts",
                _hash(code),
            )
            if attempts < MAX_CONFIRMATION_ATTEMPTS:
                left = MAX_CONFIRMATION_ATTEMPTS - attempts
                wrong = errors.invalid_argument("confirmation", f"wrong confirmation code ({left} attempts left)")
            else:
                await tx.execute("UPDATE headless_sessions SET encrypted = '' WHERE code_hash = $1", _hash(code))
                wrong = errors.failed_precondition(
                    "HEADLESS_SESSION", "too many wrong confirmation codes: this login is cancelled, start again"
                )
        raise wrong  # after the transaction: the count is kept


def _confirmation_hash(code: str, confirmation: str) -> str:
    return _hash(code + "\n" + headless.normalize_confirmation(confirmation))


def _code_used() -> errors.ApiError:
    return errors.failed_precondition("HEADLESS_CODE_USED", "a login already finished for this code")


@rpc("chainguard.platform.auth.Auth.GetHeadlessSession")
async def get_headless_session(request: GetHeadlessSessionRequest, ctx: Context) -> HeadlessSession:
    """Both transports (GET /sts/headless_sessions?code=&signature=&timestamp=&confirmation= over HTTP); bytes
    as protojson's base64."""
    key, sealed = await ctx.rt.part(Login).headless_session(request, ctx.peer)
    return HeadlessSession(
        ecdh_public_key=base64.b64encode(key).decode(), encrypted_idtoken=base64.b64encode(sealed).decode()
    )


def arguments(serve: argparse.ArgumentParser) -> None:
    """The flags of `serve` for people's logins (each also an environment variable: docs/sign-in.md)."""
    for flag, text in (
        ("--login-issuer", "server-wide upstream OIDC provider for human logins (GET /oauth without idp_id)"),
        ("--login-client-id", "our client id at that provider"),
        ("--login-client-secret-file", "file holding the client secret at that provider (none: PKCE only)"),
        ("--login-scopes", "scopes asked beyond 'openid email profile' (comma-separated)"),
    ):
        serve.add_argument(flag, help=f"{text}; env PLATFORM_API_{flag[2:].replace('-', '_').upper()}")
    serve.add_argument(
        "--login-console-origin",
        action="append",
        dest="login_console_origin_list",
        help="origin (https://console.example) whose pages may receive login tokens, beside loopback callbacks "
        "(repeatable); env PLATFORM_API_LOGIN_CONSOLE_ORIGINS (comma-separated)",
    )
    serve.add_argument(
        "--refresh-token-max-age",
        type=float,
        help="seconds after a person's login when its refresh chain ends (default 2592000 = 30 days); "
        "env PLATFORM_API_REFRESH_TOKEN_MAX_AGE",
    )
