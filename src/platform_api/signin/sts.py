"""Token exchange: an upstream OIDC token in, an access token of ours out.

`/sts/exchange` (GET or POST; query or form parameters `aud`, `identity`, `scopes`/`scope`, `cap`,
`identity_provider`) with `Authorization: Bearer <upstream token>`:
- a token of an issuer the operator trusts (`--trusted-issuer`, `--login-issuer`) without `identity`: the
  person's own user identity, `lookupIdentity`'s uid for it, registered on first contact (no roles until
  bound), whatever other identities accept the token (another organization's identities never change
  what a person's own exchange answers);
- with `identity`: that identity must accept the token (its claimMatch, after verifying the token
  through the issuer's discovery and JWKS, or its staticKeys);
- otherwise: the identities whose exact (issuer, subject) or patterns could accept the token are tried; a
  root-level one (only the server makes those) wins, else exactly one must accept it;
- with `identity_provider`: a login through an organization's OIDC identity provider, which yields that
  provider's own identity in its group (see _idp_login), never a person's global one.
`/sts/exchange_refresh_token` with `Authorization: Bearer <refresh token>` rotates the refresh token;
`POST /oauth/revoke` (form `token=<refresh token>`, RFC 7009) ends its family: the console's sign-out.
`/auth/v1/register` redeems a group invite (and registers a trusted issuer's user on first contact).

Each operation is one function (`exchange`, `exchange_refresh_token`, `register` below) that both transports
call: the Starlette routes at the end of this module (query/form parameters, served before the API router)
and gRPC, where they implement `chainguard.platform.oidc.SecurityTokenService/Exchange`,
`.../ExchangeRefreshToken` and `chainguard.platform.auth.Auth/Register` (bearer in the `authorization`
metadata; their methods carry `iam.disabled`, so dispatch leaves the bearer to them). The rate limit is
in the shared functions, with one bucket table for both transports.

Every refusal of a token answers the same UNAUTHENTICATED error: which check failed is logged, not told.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from typing import Any
from urllib.parse import urlsplit

import msgspec

from platform_api.auth import capabilities as caps
from platform_api.auth import matching, upstream
from platform_api.auth.access import Access
from platform_api.core import clock, errors, ratelimit, uidp, validate
from platform_api.gen.records.auth import RegistrationRequest, Session
from platform_api.gen.records.iam_v2 import Identity, IdentityProvider
from platform_api.gen.records.iam_v2 import Identity_ClaimMatch as ClaimMatch
from platform_api.gen.records.oidc import ExchangeRefreshTokenRequest, ExchangeRequest, RawToken, TokenPair
from platform_api.iam import external_group_role_mappings, group_invites, identities, identity_providers, queries
from platform_api.service.context import Context, rpc
from platform_api.service.runtime import Runtime
from platform_api.store.db import Conn

log = logging.getLogger(__name__)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
# This module owns refresh_tokens: an identity's go with it (forget_identity).
REFRESH_TOKEN_SECONDS = 7 * 24 * 3600
REFRESH_PREFIX = "pat_rt_"
MAX_CANDIDATES = 50
# Upstream claims carried into our token's `act` claim (and event actors).
ACT_CLAIMS = ("iss", "sub", "aud", "email")
# Invite redemption and first registration: outside the v2 API, as the reference's v1 auth service.
REGISTER_PATH = "/auth/v1/register"
# Sign-out: a login's refresh token revoked (RFC 7009's route and form), outside the contract like /oauth.
REVOKE_PATH = "/oauth/revoke"


def refused() -> errors.ApiError:
    return errors.unauthenticated("token exchange refused")


class Exchange:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.upstream = upstream.UpstreamVerifier(rt.settings.insecure_allow_loopback)
        issuer = rt.settings.issuer
        # Upstream tokens are minted for us: our issuer URL, or its host name.
        self.default_audiences = {issuer, urlsplit(issuer).hostname or issuer}
        # The issuers whose users are people with global identities, and whose verified e-mail counts.
        self.trusted = matching.trusted_issuers(rt.settings.trusted_issuers, rt.settings.login_issuer)
        self.login_issuer = matching.normalize_issuer(rt.settings.login_issuer) if rt.settings.login_issuer else ""
        # One table for the three operations over both transports: keys are "a:<client address>" and
        # "i:<requested identity>".
        self.buckets = ratelimit.TokenBuckets(rt.settings.sts_rate, rt.settings.sts_burst)

    def throttle(self, peer: str, identity: str) -> None:
        """Refuses callers over their rate (RESOURCE_EXHAUSTED, RATE_LIMITED) before any token is looked at."""
        if not self.buckets.enabled:
            return
        keys = ["a:" + peer]
        if identity:
            keys.append("i:" + identity[:128])
        wait = max(self.buckets.take(k) for k in keys)
        if wait > 0:
            raise errors.rate_limited(ratelimit.retry_after_seconds(wait))

    async def close(self) -> None:
        await self.upstream.close()

    # ------------------------------------------------------------------ parameters

    def _restrictions(self, aud: list[str], scopes: list[str], cap: list[str]) -> tuple[str, list[str], list[str]]:
        audience = self.rt.settings.token_audience
        for a in aud:
            if a.rstrip("/") != audience.rstrip("/"):
                raise errors.invalid_argument("aud", f"this issuer mints tokens for {audience!r} only")
        for s in scopes:
            validate.uid(s, "scopes")
        unknown = caps.unknown(cap)
        if unknown:
            # A few of them, cut short: the message names what the caller sent, and must stay far below the
            # 8 KiB that gRPC clients accept in a status (217 long names made it larger).
            named = ", ".join(repr(u[:64]) for u in unknown[:5]) + (
                f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            )
            raise errors.invalid_argument("cap", f"unknown capabilities: {named}")
        return audience, sorted(set(scopes)), caps.names(caps.mask(cap)) if cap else []

    # ------------------------------------------------------------------ exchange

    async def exchange(
        self, token: str, aud: list[str], identity: str, scopes: list[str], cap: list[str], identity_provider: str
    ) -> RawToken:
        audience, scopes, cap_limit = self._restrictions(aud, scopes, cap)
        if identity:
            validate.uid(identity, "identity")
        if identity_provider:
            validate.uid(identity_provider, "identity_provider")
        try:
            unverified = upstream.unverified_claims(token)
            grants: list[tuple[str, str]] = []
            if identity_provider:
                chosen, claims, grants = await self._idp_login(token, identity_provider, unverified)
            else:
                chosen, claims = await self._choose(token, unverified, identity)
        except upstream.Rejected as e:
            log.info("token exchange refused: %s", e)
            raise refused() from None
        await self.seen(chosen.uid)
        act = {k: claims[k] for k in ACT_CLAIMS if k in claims}
        access, expiry = self.rt.part(Access).tokens.mint(
            chosen.uid, audience=audience, scopes=scopes, cap_limit=cap_limit, grants=grants, act=act
        )
        out = RawToken(token=access, expiry=clock.from_epoch(expiry))
        # Refresh tokens are for people's logins: a workload (an assumable or static-key identity) exchanges its
        # own short-lived upstream token again, and a refresh chain must not outlive it. Group-derived sessions
        # get none either.
        person = bool(identity_provider) or self.is_user(chosen, claims)
        if person and not grants:
            stored = {"aud": audience, "scopes": scopes, "cap_limit": cap_limit, "act": act}
            out.refresh_token, _ = await self._new_refresh(chosen.uid, secrets.token_hex(16), stored)
        return out

    def audiences_for(self, issuer: str) -> set[str]:
        """What a trusted issuer's token must be minted for to yield a person's identity: us (our issuer URL or its
        host name) or, from the server's login provider, our client there."""
        if issuer == self.login_issuer and self.rt.settings.login_client_id:
            return self.default_audiences | {self.rt.settings.login_client_id}
        return self.default_audiences

    async def _choose(self, token: str, unverified: dict[str, Any], wanted: str) -> tuple[Identity, dict[str, Any]]:
        raw_iss, sub = unverified["iss"], unverified["sub"]
        iss = matching.normalize_issuer(raw_iss)
        if iss in self.trusted and (not wanted or wanted == matching.user_uid(iss, sub)):
            # A person's own exchange: their user identity (registered on first contact). No other identity, of
            # whatever organization, that accepts the same token changes that answer; workloads name theirs.
            return await self._register_user(token, raw_iss)
        db = self.rt.db
        if wanted:
            found = await identities.find(db, wanted)
            if found is None:
                raise upstream.Rejected(f"no identity {wanted}")
            candidates = [found]
        else:
            candidates = await identities.matching_keys(db, iss, sub, MAX_CANDIDATES)
        verified: dict[str, Any] | None = None
        accepted: list[tuple[Identity, dict[str, Any]]] = []
        for ident in candidates:
            cm, sk = ident.claim_match, ident.static_keys
            if cm is not None and matching.issuer_may_match(cm, iss):
                if verified is None:
                    verified = await self.upstream.verify(token, raw_iss)
                if matching.claim_match_accepts(cm, verified, self.default_audiences):
                    accepted.append((ident, verified))
            elif sk is not None and sk.issuer == raw_iss and sk.subject == sub:
                if sk.expiration_time and clock.now() >= sk.expiration_time:
                    continue
                claims = upstream.verify_static(token, sk.issuer_keys, sk.issuer)
                allowed = set(sk.audiences) or self.default_audiences
                if set(matching.audiences(claims)) & allowed:
                    accepted.append((ident, claims))
        if not accepted:
            raise upstream.Rejected(f"no identity accepts iss={iss!r} sub={sub!r}")
        if len(accepted) > 1:
            # Root-level identities are the server's own making (no organization can create one): one of them is
            # the caller's own, whatever identities of organizations also accept the token.
            own = [a for a in accepted if not uidp.parent(a[0].uid)]
            if len(own) == 1:
                return own[0]
            raise errors.invalid_argument(
                "identity", "several identities accept this token; name one with the identity parameter"
            )
        return accepted[0]

    async def _register_user(self, token: str, raw_iss: str) -> tuple[Identity, dict[str, Any]]:
        """A trusted issuer's user: the user identity `lookupIdentity` announced, registered on first contact."""
        claims = await self.upstream.verify(token, raw_iss)
        if not set(matching.audiences(claims)) & self.audiences_for(matching.normalize_issuer(raw_iss)):
            raise upstream.Rejected("trusted-issuer token not minted for this service")
        identity, _ = await self.ensure_user(claims)
        return identity, claims

    async def _idp_login(
        self, token: str, idp_uid: str, unverified: dict[str, Any]
    ) -> tuple[Identity, dict[str, Any], list[tuple[str, str]]]:
        """A login through an organization's OIDC identity provider: the token is the
        provider's, minted for its client id. It yields the provider's own identity for the subject, under the
        provider's group (matching.member_uid), never a user identity nor another group's: the provider's
        settings are whatever its administrator typed, so they vouch for nothing outside that group. The first
        login creates the identity with the provider's default role at its group; the mappings of the groups the
        token carries grant roles for this session only."""
        try:
            idp = await identity_providers.fetch(self.rt.db, idp_uid)
        except errors.ApiError:
            raise upstream.Rejected(f"no identity provider {idp_uid}") from None
        oidc = idp.oidc
        if oidc is None or matching.normalize_issuer(unverified["iss"]) != matching.normalize_issuer(oidc.issuer):
            raise upstream.Rejected(f"token not issued by the provider {idp_uid}")
        claims = await self.upstream.verify(token, unverified["iss"])
        if oidc.client_id not in matching.audiences(claims):
            raise upstream.Rejected(f"token not minted for the client of {idp_uid}")
        identity = await self.ensure_member(idp, claims)
        carried = claims.get(oidc.groups_claim) if oidc.groups_claim else None
        names = [g for g in carried if isinstance(g, str)] if isinstance(carried, list) else []
        grants = await external_group_role_mappings.grants_for(self.rt.db, idp.uid, names)
        return identity, claims, grants

    async def caller_identity(self, token: str) -> Identity:
        """Who presents `token`: one of our access tokens, or (first contact) a token of a trusted issuer,
        which registers the user identity."""
        try:
            principal = await self.rt.part(Access).authenticate("Bearer " + token)
            return await identities.fetch(self.rt.db, principal.subject)
        except errors.ApiError as e:
            if e.code != errors.UNAUTHENTICATED:
                raise
        try:
            unverified = upstream.unverified_claims(token)
            if matching.normalize_issuer(unverified["iss"]) not in self.trusted:
                raise upstream.Rejected("neither our token nor one of a trusted issuer")
            identity, _ = await self._register_user(token, unverified["iss"])
        except upstream.Rejected as e:
            log.info("registration refused: %s", e)
            raise errors.unauthenticated("invalid or expired token") from None
        return identity

    def _person(self, uid: str, claims: dict[str, Any], claim_match: ClaimMatch) -> Identity:
        """A new identity for the person verified `claims` describe. Their e-mail counts as verified only when
        the upstream says so and its issuer is one the operator trusts: any other issuer's word is that of
        whoever configured it."""
        now = clock.now()
        email = claims.get("email") if isinstance(claims.get("email"), str) else ""
        verified = bool(email) and claims.get("email_verified") in (True, "true") and self.trusts_email(claims["iss"])
        local = "".join(c if c in _NAME_CHARS else "-" for c in (email or "").split("@")[0].lower()).strip("-")
        return Identity(
            uid=uid,
            name=local or "user",
            email=email if verified else "",
            email_unverified="" if verified else email,
            claim_match=claim_match,
            last_seen_time=now,
            create_time=now,
            update_time=now,
        )

    def is_user(self, identity: Identity, claims: dict[str, Any]) -> bool:
        """Whether `identity` is the user identity of the person verified `claims` describe (a trusted issuer's)."""
        iss = matching.normalize_issuer(str(claims.get("iss", "")))
        return iss in self.trusted and identity.uid == matching.user_uid(iss, str(claims.get("sub", "")))

    def trusts_email(self, issuer: str) -> bool:
        return matching.normalize_issuer(issuer) in self.trusted

    def vouched_email(self, identity: Identity) -> str:
        """The identity's e-mail where it counts (invites bound to an e-mail): verified, from an issuer trusted
        now. Identities registered before organizations' providers stopped vouching keep no say."""
        cm = identity.claim_match
        issuer = cm.issuer if cm is not None and isinstance(cm.issuer, str) else ""
        return identity.email if identity.email and issuer and self.trusts_email(issuer) else ""

    async def ensure_user(self, claims: dict[str, Any]) -> tuple[Identity, bool]:
        """The root-level user identity for verified upstream claims of a trusted issuer, created on first
        login (and whether it was created now)."""
        iss = matching.normalize_issuer(claims["iss"])
        if iss not in self.trusted:
            raise upstream.Rejected(f"issuer {iss!r} does not yield user identities")
        uid = matching.user_uid(iss, claims["sub"])
        existing = await identities.find(self.rt.db, uid)
        if existing is not None:
            return existing, False
        identity = self._person(uid, claims, ClaimMatch(issuer=iss, subject=claims["sub"]))
        async with self.rt.db.transaction() as tx:
            if await identities.exists(tx, uid):
                return identity, False  # registered concurrently
            await identities.insert(tx, identity, "")
        return identity, True

    async def ensure_member(self, idp: IdentityProvider, claims: dict[str, Any]) -> Identity:
        """The identity of the provider `idp` for verified claims of its issuer, created at the first login
        with the provider's default role bound at its group, in one transaction."""
        assert idp.oidc is not None
        uid = matching.member_uid(idp.uid, claims["sub"])
        existing = await identities.find(self.rt.db, uid)
        if existing is not None:
            return existing
        group = uidp.parent(idp.uid)
        match = ClaimMatch(
            issuer=matching.normalize_issuer(idp.oidc.issuer), subject=claims["sub"], audience=idp.oidc.client_id
        )
        identity = self._person(uid, claims, match)
        async with self.rt.db.transaction() as tx:
            if await identities.exists(tx, uid):
                return identity  # registered concurrently
            await identities.insert(tx, identity, group)
            if idp.default_role:
                await queries.insert_role_binding(tx, group, uid, idp.default_role, identity.create_time)
        self.rt.grants_changed()
        return identity

    async def seen(self, uid: str) -> None:
        """The identity has just logged in (or accepted an invite): its last_seen_time is now."""
        async with self.rt.db.transaction() as tx:
            ident = await identities.find(tx, uid)
            if ident is not None:
                ident.last_seen_time = clock.now()
                await identities.save_body(tx, ident)

    # ------------------------------------------------------------------ refresh tokens

    async def _new_refresh(self, identity: str, family: str, stored: dict[str, Any]) -> tuple[str, str]:
        """A new refresh token of `family`. Each lives a week, and no token of a family outlives the family's login
        by more than `refresh_token_max_age` (`stored["since"]`, set at the login): rotation renews the week, never
        the chain."""
        token = REFRESH_PREFIX + secrets.token_urlsafe(32)
        now = clock.now()
        since = stored.setdefault("since", clock.to_epoch(now))
        ends = min(clock.to_epoch(now) + REFRESH_TOKEN_SECONDS, since + self.rt.settings.refresh_token_max_age)
        expires = clock.from_epoch(ends)
        await self.rt.db.execute(
            "INSERT INTO refresh_tokens (token_hash, family, identity_uid, claims, create_time, expire_time)"
            " VALUES ($1, $2, $3, $4, $5, $6)",
            _hash(token), family, identity, msgspec.json.encode(stored).decode(), now, expires,
        )  # fmt: skip
        return token, expires

    async def refresh(self, token: str, aud: list[str], scopes: list[str], cap: list[str]) -> TokenPair:
        audience, req_scopes, req_caps = self._restrictions(aud, scopes, cap)
        db = self.rt.db
        row = await db.fetchrow(
            "SELECT family, identity_uid, claims, expire_time, used_time FROM refresh_tokens WHERE token_hash = $1",
            _hash(token),
        )
        if row is None or row["expire_time"] <= clock.now():
            raise refused()
        family, identity, stored_text, used = row["family"], row["identity_uid"], row["claims"], row["used_time"]
        claimed = await db.execute(
            "UPDATE refresh_tokens SET used_time = $2 WHERE token_hash = $1 AND used_time = ''",
            _hash(token), clock.now(),
        )  # fmt: skip
        if used or not claimed:
            # A spent refresh token came back: someone holds a copy. Revoke the whole family.
            log.warning("refresh token reuse for identity %s: family revoked", identity)
            await db.execute("DELETE FROM refresh_tokens WHERE family = $1", family)
            raise refused()
        stored = msgspec.json.decode(stored_text)
        scopes = stored["scopes"]
        if req_scopes:  # a refresh may narrow the token, never widen it
            if scopes and not all(any(uidp.is_ancestor_or_self(s, r) for s in scopes) for r in req_scopes):
                raise errors.invalid_argument("scopes", "scopes must lie within the original token's scopes")
            scopes = req_scopes
        cap_limit = stored["cap_limit"]
        if req_caps:
            if cap_limit and caps.mask(req_caps) & ~caps.mask(cap_limit):
                raise errors.invalid_argument("cap", "cap must be within the original token's capabilities")
            cap_limit = req_caps
        if not await identities.exists(db, identity):
            raise refused()
        if uidp.parent(identity) and not await queries.binding_roles(db, identity):
            # An organization's person whose last binding was removed has left it: the chain ends with that.
            raise refused()
        access, expiry = self.rt.part(Access).tokens.mint(
            identity, audience=audience, scopes=scopes, cap_limit=cap_limit, act=stored["act"]
        )
        new, new_expiry = await self._new_refresh(
            identity, family, {**stored, "aud": audience, "scopes": scopes, "cap_limit": cap_limit}
        )
        return TokenPair(
            token=RawToken(token=access, expiry=clock.from_epoch(expiry)),
            refresh_token=RawToken(token=new, expiry=new_expiry),
        )

    async def revoke(self, token: str) -> None:
        """End the login `token` is a refresh token of: its whole family goes, spent, current or expired (a
        later rotation's token dies with the one signed out). Anything else is no refresh token: nothing."""
        if not token.startswith(REFRESH_PREFIX):
            return
        family = await self.rt.db.fetchval("SELECT family FROM refresh_tokens WHERE token_hash = $1", _hash(token))
        if family is not None:
            await self.rt.db.execute("DELETE FROM refresh_tokens WHERE family = $1", family)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# ---------------------------------------------------------------------- the operations (both transports)


def bearer(authorization: str) -> str:
    """The token of an `Authorization: Bearer <token>` header (or gRPC metadata) value."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise errors.unauthenticated("missing bearer token")
    return token.strip()


async def exchange(rt: Runtime, request: ExchangeRequest, authorization: str, peer: str) -> RawToken:
    """An upstream OIDC token (the bearer) for one of our access tokens. `scope`, the
    contract's deprecated single scope, is added to `scopes`."""
    rt.part(Exchange).throttle(peer, request.identity)
    scopes = [*request.scopes, request.scope] if request.scope else request.scopes
    return await rt.part(Exchange).exchange(
        bearer(authorization), request.aud, request.identity, scopes, request.cap, request.identity_provider
    )


async def exchange_refresh_token(
    rt: Runtime, request: ExchangeRefreshTokenRequest, authorization: str, peer: str
) -> TokenPair:
    """A refresh token (the bearer) rotated: a new access token and a new refresh token of the same family."""
    rt.part(Exchange).throttle(peer, "")
    scopes = [*request.scopes, request.scope] if request.scope else request.scopes
    return await rt.part(Exchange).refresh(bearer(authorization), request.aud, scopes, request.cap)


async def revoke(rt: Runtime, token: str, peer: str) -> None:
    """A login's refresh token revoked with its family (`POST /oauth/revoke`, outside the contract: RFC 7009's
    shape, HTTP only). Holding the token is the credential, as for spending it; an unknown token is no error."""
    rt.part(Exchange).throttle(peer, "")
    await rt.part(Exchange).revoke(token)


async def register(rt: Runtime, request: RegistrationRequest, authorization: str, peer: str) -> Session:
    """The caller (our access token, or on first contact a trusted issuer's token, which registers the user)
    accepts the group invite `code`, if any, and receives its role. `identity_id`
    is only a rate-limit key: the session is always the caller's own identity."""
    rt.part(Exchange).throttle(peer, request.identity_id)
    identity = await rt.part(Exchange).caller_identity(bearer(authorization))
    group = ""
    if request.code:
        email = rt.part(Exchange).vouched_email(identity)
        _, group = await group_invites.redeem(rt.db, request.code, identity.uid, email)
        rt.grants_changed()
        await rt.part(Exchange).seen(identity.uid)  # it accepted the binding: members may now see who it is
    return Session(identity=identity.uid, group=group)


async def forget_identity(tx: Conn, identity: str) -> None:
    """A deleted identity's refresh tokens go with it."""
    await tx.execute("DELETE FROM refresh_tokens WHERE identity_uid = $1", identity)


# ---------------------------------------------------------------------- gRPC (iam.disabled: no dispatch auth)


@rpc("chainguard.platform.oidc.SecurityTokenService.Exchange")
async def rpc_exchange(request: ExchangeRequest, ctx: Context) -> RawToken:
    return await exchange(ctx.rt, request, ctx.authorization, ctx.peer)


@rpc("chainguard.platform.oidc.SecurityTokenService.ExchangeRefreshToken")
async def rpc_exchange_refresh_token(request: ExchangeRefreshTokenRequest, ctx: Context) -> TokenPair:
    return await exchange_refresh_token(ctx.rt, request, ctx.authorization, ctx.peer)


@rpc("chainguard.platform.auth.Auth.Register")
async def rpc_register(request: RegistrationRequest, ctx: Context) -> Session:
    return await register(ctx.rt, request, ctx.authorization, ctx.peer)
