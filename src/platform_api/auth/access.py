"""Authentication and authorization of one call, from the method's declared options (proto/annotations.proto).

Both transports hand every call here (through api.dispatch), so the rules exist once:
- `disabled` methods need no token;
- every other method needs a valid access token of ours whose identity still exists;
- scoped methods need all declared capabilities at the uid named by the request's scope field
  (or any ancestor); unscoped methods get the caller's visibility for their List filtering.
"""

from __future__ import annotations

from typing import Any

from platform_api.auth.authz import Authorizer, GrantSource, Principal
from platform_api.auth.keys import KeySet
from platform_api.auth.tokens import TokenService, bad_token
from platform_api.core import errors, metrics, validate
from platform_api.store.db import Database


class Access:
    def __init__(self, db: Database, issuer: str, audience: str, grants: GrantSource) -> None:
        self.keys = KeySet(db)
        self.tokens = TokenService(self.keys, issuer, audience)
        self.authorizer = Authorizer(db, grants)
        # Callers by token, valid while the authorizer's epoch is unchanged (the token's own expiry is
        # checked by `tokens.verify` on every call).
        self._principals: dict[str, tuple[int, Principal]] = {}

    async def start(self) -> None:
        await self.keys.load()
        await self.authorizer.start()

    async def stop(self) -> None:
        await self.authorizer.stop()

    async def authenticate(self, authorization: str) -> Principal:
        if not authorization:
            raise errors.unauthenticated("missing bearer token")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise bad_token("the Authorization header must be 'Bearer <access token>'")
        token = token.strip()
        claims = await self.tokens.verify(token)
        authorizer = self.authorizer
        await authorizer.sync()
        cached = self._principals.get(token)
        if cached is not None and cached[0] == authorizer.epoch:
            metrics.count(metrics.PRINCIPAL_HIT)
            return cached[1]
        metrics.count(metrics.PRINCIPAL_MISS)
        principal = await authorizer.principal(claims)
        if len(self._principals) > 50_000:
            self._principals.clear()
        self._principals[token] = (authorizer.epoch, principal)
        return principal


def scope_of(request: Any, scope_field: str) -> str:
    obj = request
    for part in scope_field.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return ""
    return obj if isinstance(obj, str) else ""


def check_scope(principal: Principal, required: int, scope: str, field: str, rtype: str) -> None:
    if not scope:
        raise errors.invalid_argument(field, f"{field} is required")
    validate.uid(scope, field)
    principal.require(required, scope, rtype)
