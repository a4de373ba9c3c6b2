"""Human login at our issuer (reference 10.6; README "Signing in (people)").

`GET /oauth` starts a login: the client's parameters are checked (the `redirect` first: only loopback
callbacks and configured console origins, refused before anything else), a pending login is stored
(login_sessions: PKCE verifier, nonce, parameters; single use, 10 minutes) and the browser is sent to the
upstream provider (an organization's identity provider named by `idp_id`, or the server-wide one of
`--login-issuer`) with authorization code + PKCE (S256), `state` and `nonce`.

`GET /oauth/callback` is where the provider returns: the pending login is taken by its `state` (deleted in
the same statement, so a replayed state or code finds nothing, on every process), the code is redeemed at
the provider's token endpoint and the ID token verified (signature through its JWKS, iss, aud = our client
id, nonce, exp). The identity is then found or registered as the token exchange does it (iam/sts.py: a
provider's default role bound at first login, its external group mappings granted for this session only), an
invite code is redeemed, and the browser goes to `<redirect>?token=…&refresh_token=…` (the refresh token only
when asked for and when no session grants apply: those last one access token, ≤ 1 h). A failure after the
pending login is found goes to `<redirect>?error=<reason>&error_description=…`; one before answers a
google.rpc.Status (400, or 401 for an unknown or spent state).

With `headless_code` (a P-256 public key, auth/headless.py) no browser callback is needed: the result is
sealed for that key and kept (headless_sessions, 10 minutes) until `GET /sts/headless_sessions?code=` reads
it, once; before that it answers NOT_FOUND.
"""

from __future__ import annotations

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
from platform_api.core import clock, errors, settings, validate
from platform_api.gen.records.auth import GetHeadlessSessionRequest, HeadlessSession
from platform_api.gen.records.iam_v2 import Identity
from platform_api.iam import group_invites, identity_providers, sts
from platform_api.service.context import Context, rpc
from platform_api.service.runtime import Runtime

log = logging.getLogger("platform_api.login")

PENDING_SECONDS = 600
HEADLESS_SECONDS = 600
MAX_PENDING = 10_000  # pending logins over all clients (each client is also rate-limited)
MAX_URL = 2048
MAX_PARAM = 256
MAX_SCOPES = 10
CALLBACK_PATH = "/oauth/callback"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
# Parameters of the reference's hosted login that mean nothing here: accepted and ignored.
IGNORED = frozenset({"client_id", "screen_hint", "skip_registration", "prompt", "login_hint"})
SINGLE = ("audience", "idp_id", "connection", "redirect", "create_refresh_token", "invite", "identity", "exit",
          "headless_code")  # fmt: skip


class Pending(msgspec.Struct, frozen=True):
    """A login between /oauth and /oauth/callback (stored as JSON)."""

    verifier: str
    nonce: str
    issuer: str
    redirect: str = ""
    idp: str = ""
    refresh: bool = False
    invite: str = ""
    identity: str = ""
    headless: str = ""
    scopes: list[str] = msgspec.field(default_factory=list)


@dataclass
class Outcome:
    """Where the browser goes after the callback, or the page it gets (headless)."""

    redirect: str = ""
    page: str = ""
    query: dict[str, str] = field(default_factory=dict)


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _bool(value: str, name: str) -> bool:
    word = value.strip().lower()
    if word not in settings.TRUE | settings.FALSE:
        raise errors.invalid_argument(name, "must be true or false")
    return word in settings.TRUE


def with_query(url: str, params: dict[str, str]) -> str:
    return url + ("&" if urlsplit(url).query else "?") + urlencode(params)


class Login:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        s = rt.settings
        self.exchange = rt.part(sts.Exchange)
        self.rp = oidc_rp.RelyingParty(self.exchange.upstream)
        self.callback_url = s.issuer + CALLBACK_PATH
        self.origins = {o.strip().rstrip("/").lower() for o in s.login_console_origins.split(",") if o.strip()}
        self.server_wide: oidc_rp.Provider | None = None
        if s.login_issuer:
            if not s.login_client_id:
                raise settings.InvalidSetting("PLATFORM_API_LOGIN_CLIENT_ID", "", "a client id with --login-issuer")
            secret = ""
            if s.login_client_secret_file:
                try:
                    secret = Path(s.login_client_secret_file).read_text().strip()
                except OSError as e:
                    raise settings.InvalidSetting(
                        "PLATFORM_API_LOGIN_CLIENT_SECRET_FILE", s.login_client_secret_file, f"a readable file ({e})"
                    ) from None
            scopes = tuple(x.strip() for x in s.login_scopes.split(",") if x.strip())
            self.server_wide = oidc_rp.Provider(s.login_issuer, s.login_client_id, secret, scopes)

    async def close(self) -> None:
        await self.rp.close()

    # ------------------------------------------------------------------ GET /oauth

    def check_redirect(self, redirect: str) -> str:
        """A loopback callback (http, any port) or a page under a configured console origin; nothing else."""
        if not redirect:
            raise errors.invalid_argument("redirect", "a callback URL is required (or headless_code)")
        if len(redirect) > MAX_URL or not all("!" <= c <= "~" for c in redirect):
            raise errors.invalid_argument("redirect", f"must be visible ASCII, at most {MAX_URL} characters")
        try:
            parts = urlsplit(redirect)
            port = parts.port
        except ValueError:
            raise errors.invalid_argument("redirect", "is not a URL") from None
        host = (parts.hostname or "").lower()
        if parts.username is not None or parts.password is not None or parts.fragment:
            raise errors.invalid_argument("redirect", "must not carry user info or a fragment")
        if parts.scheme == "http" and host in LOOPBACK_HOSTS:
            return redirect
        origin = f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")
        if parts.scheme in ("http", "https") and origin in self.origins:
            return redirect
        raise errors.invalid_argument(
            "redirect", "only loopback callbacks (http://127.0.0.1:<port>/..., localhost, [::1]) and the"
            " configured console origins may receive a login"
        )  # fmt: skip

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

    async def begin(self, params: dict[str, list[str]], peer: str) -> str:
        """The provider's authorization URL for a new pending login."""
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
        if len(one["invite"]) > MAX_PARAM:
            raise errors.invalid_argument("invite", f"at most {MAX_PARAM} characters")
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
        verifier, challenge = oidc_rp.pkce_pair()
        state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        pending = Pending(verifier, nonce, provider.issuer, redirect, idp, refresh, one["invite"], one["identity"],
                          code if point else "", sorted(set(scopes)))  # fmt: skip
        await self._store(state, pending)
        return oidc_rp.authorization_url(ends, provider, self.callback_url, state, nonce, challenge)

    async def _store(self, state: str, pending: Pending) -> None:
        now = clock.now()
        expires = clock.from_epoch(clock.to_epoch(now) + PENDING_SECONDS)
        async with self.rt.db.transaction() as tx:
            await tx.execute("DELETE FROM login_sessions WHERE expire_time <= $1", now)
            if await tx.fetchval("SELECT COUNT(*) FROM login_sessions") >= MAX_PENDING:
                raise errors.rate_limited(60)
            await tx.execute(
                "INSERT INTO login_sessions (state_hash, data, create_time, expire_time) VALUES ($1, $2, $3, $4)",
                _hash(state), msgspec.json.encode(pending).decode(), now, expires,
            )  # fmt: skip

    async def _take(self, state: str) -> Pending | None:
        """The pending login of `state`, deleted as it is read (single use on every process); None if unknown,
        spent or expired."""
        async with self.rt.db.transaction() as tx:
            row = await tx.fetchrow(
                "DELETE FROM login_sessions WHERE state_hash = $1 RETURNING data, expire_time", _hash(state)
            )
        if row is None or row["expire_time"] <= clock.now():
            return None
        return msgspec.json.decode(row["data"], type=Pending)

    # ------------------------------------------------------------------ GET /oauth/callback

    async def finish(self, params: dict[str, str], peer: str) -> Outcome:
        self.exchange.throttle(peer, "")
        state = params.get("state", "")
        if not state or len(state) > MAX_PARAM:
            raise errors.invalid_argument("state", f"required, at most {MAX_PARAM} characters")
        pending = await self._take(state)
        if pending is None:
            raise errors.unauthenticated("unknown, expired or already used login")
        try:
            if params.get("error"):
                raise errors.permission_denied("the login provider refused: " + params["error"][:64])
            code = params.get("code", "")
            if not code or len(code) > 4096:
                raise errors.invalid_argument("code", "the provider returned no usable code")
            result = await self._complete(pending, code)
        except errors.ApiError as e:
            if pending.headless:
                raise
            return Outcome(redirect=with_query(pending.redirect, {"error": e.reason, "error_description": e.message}))
        if pending.headless:
            await self._seal(pending.headless, result)
            return Outcome(page="Signed in. You may close this window and return to your terminal.")
        query = {"token": result["token"]}
        if result.get("refreshToken"):
            query["refresh_token"] = result["refreshToken"]
        return Outcome(redirect=with_query(pending.redirect, query))

    async def _complete(self, pending: Pending, code: str) -> dict[str, str]:
        try:
            provider = await self._provider(pending.idp)
            if matching.normalize_issuer(provider.issuer) != matching.normalize_issuer(pending.issuer):
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
        if pending.refresh and not grants:  # session grants end with the access token (reference 6.8)
            stored = {"aud": audience, "scopes": pending.scopes, "cap_limit": [], "act": act}
            out["refreshToken"], _ = await self.exchange._new_refresh(identity.uid, secrets.token_hex(16), stored)
        return out

    # ------------------------------------------------------------------ headless

    async def _seal(self, code: str, result: dict[str, str]) -> None:
        eph, sealed = headless.seal(headless.public_key(code), msgspec.json.encode(result))
        now = clock.now()
        expires = clock.from_epoch(clock.to_epoch(now) + HEADLESS_SECONDS)
        async with self.rt.db.transaction() as tx:
            await tx.execute("DELETE FROM headless_sessions WHERE expire_time <= $1", now)
            # The first finished login for a code is kept: a later one (someone who saw the code on screen) cannot
            # replace it with a session of their own.
            added = await tx.execute(
                "INSERT INTO headless_sessions (code_hash, ecdh_public_key, encrypted, expire_time)"
                " VALUES ($1, $2, $3, $4) ON CONFLICT (code_hash) DO NOTHING",
                _hash(code), eph.hex(), sealed.hex(), expires,
            )  # fmt: skip
        if not added:
            raise errors.failed_precondition("HEADLESS_SESSION", "a login already finished for this code")

    async def headless_session(self, code: str, peer: str) -> tuple[bytes, bytes]:
        """(ephemeral public key, sealed result) of the finished login for `code`, once; NOT_FOUND before."""
        self.exchange.throttle(peer, "")
        if not code or len(code) > MAX_PARAM:
            raise errors.invalid_argument("code", f"required, at most {MAX_PARAM} characters")
        async with self.rt.db.transaction() as tx:
            row = await tx.fetchrow(
                "DELETE FROM headless_sessions WHERE code_hash = $1 RETURNING ecdh_public_key, encrypted, expire_time",
                _hash(code),
            )
        if row is None or row["expire_time"] <= clock.now():
            raise errors.not_found("headless session", "(no finished login for this code yet)")
        return bytes.fromhex(row["ecdh_public_key"]), bytes.fromhex(row["encrypted"])


@rpc("chainguard.platform.auth.Auth.GetHeadlessSession")
async def get_headless_session(request: GetHeadlessSessionRequest, ctx: Context) -> HeadlessSession:
    """Both transports (GET /sts/headless_sessions?code= over HTTP); bytes as protojson's base64."""
    key, sealed = await ctx.rt.part(Login).headless_session(request.code, ctx.peer)
    return HeadlessSession(
        ecdh_public_key=base64.b64encode(key).decode(), encrypted_idtoken=base64.b64encode(sealed).decode()
    )
