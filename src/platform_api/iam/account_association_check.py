"""CheckAccountAssociation (`POST /iam/v2/accountAssociations/{uid}:checkAccountAssociation`, body
`providerType`): whether a cloud accepts the association, found by a live credential exchange.
Our issuer mints a short-lived token for the association and the cloud's token service is asked to exchange it
(what each cloud is asked, and the token's audience and subject: iam/cloud_token_services.py).

The answer is CHECK_STATUS_READY when the service issued credentials (`message`: what it said, e.g. the role
assumed), else CHECK_STATUS_NOT_READY with a `reason`:
- `not configured`: the association has no block for that cloud, or a value that cannot name one there (a
  tenant that is neither a GUID nor a domain name, a project number that is not a number); nothing is called;
- `error exchanging credentials`: the service refused; `message` is what it said (AWS `Code: Message`, GCP
  and Azure `error: error_description`);
- `token service unreachable`: no answer (its address refused by the outbound checks, the connection failed,
  or no answer within the timeout).
Azure: a token is exchanged for each application of `azure.clientIds` (the first 10 by component name, at
once); the first refusal, by component name, answers.

Outbound calls follow the rules of issuer discovery (core/netcheck through auth/upstream's client): https
(http on loopback only under --insecure-allow-loopback), every address the host resolves to public, the
connection pinned to the checked address, no redirects, no proxy from the environment, answers read up to
64 KiB, and each call (resolution included) within `association_check_timeout`. The endpoints are settings,
the clouds' public ones by default. A token bucket per association (`association_check_rate` / `_burst`)
keeps callers from making us hammer a cloud: beyond it, RESOURCE_EXHAUSTED (RATE_LIMITED, Retry-After).
Authorization is the contract's: CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST at the association (its group).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx

from platform_api.auth import upstream
from platform_api.auth.access import Access
from platform_api.auth.tokens import TokenService
from platform_api.core import errors, netcheck, ratelimit
from platform_api.core.settings import Settings, env_name
from platform_api.gen.records.iam_v2 import (
    AccountAssociation,
    CheckAccountAssociationRequest,
    CheckAccountAssociationResponse,
)
from platform_api.iam import account_associations
from platform_api.iam import cloud_token_services as services
from platform_api.service.context import Context, rpc

log = logging.getLogger(__name__)
TOKEN_SECONDS = 300
MAX_AZURE_CLIENTS = 10
NOT_CONFIGURED = "not configured"
EXCHANGE_FAILED = "error exchanging credentials"
UNREACHABLE = "token service unreachable"
ENDPOINTS = ("aws_sts_url", "gcp_sts_url", "azure_login_url")


def arguments(serve: argparse.ArgumentParser) -> None:
    """The flags of `serve` for these settings (each also an environment variable)."""
    defaults = Settings()
    for name in ENDPOINTS:
        serve.add_argument("--" + name.replace("_", "-"), help="token service of the account association check"
                           f" (default {getattr(defaults, name)}); env {env_name(name)}")  # fmt: skip
    for name, kind, text in (
        ("association_check_timeout", float, "seconds each call of the account association check may take"),
        ("association_check_rate", float, "account association checks per second per association (0: no limit)"),
        ("association_check_burst", int, "... and the burst allowed above that rate"),
    ):
        serve.add_argument("--" + name.replace("_", "-"), type=kind,
                           help=f"{text} (default {getattr(defaults, name):g}); env {env_name(name)}")  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    ready: bool
    reason: str
    message: str


class Unreachable(Exception):
    """No answer from a token service; the message says why, for the caller."""


class Checker:
    """What the checks share for the life of the process: the outbound client, the endpoints, the rate limit."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        reference = settings.compat_strings == "reference"
        self.prefix = settings.association_name_prefix or ("chainguard" if reference else "platform-api")
        self.timeout = settings.association_check_timeout
        self.http = upstream.outbound_client(self.timeout, min(self.timeout, 2.0))
        self.buckets = ratelimit.TokenBuckets(settings.association_check_rate, settings.association_check_burst)

    async def close(self) -> None:
        await self.http.aclose()

    def throttle(self, association: str) -> None:
        wait = self.buckets.take(association)
        if wait > 0:
            raise errors.rate_limited(ratelimit.retry_after_seconds(wait))

    async def send(self, call: services.Call) -> tuple[int, bytes]:
        """The status and body (cut after MAX_ANSWER_BYTES) of the service's answer to `call`."""
        try:
            async with asyncio.timeout(self.timeout):
                target = await netcheck.resolve(call.url, self.settings.insecure_allow_loopback)
                args = upstream.pinned(target)
                args["headers"].update({"accept": call.accept, "content-type": "application/x-www-form-urlencoded"})
                body = bytearray()
                async with self.http.stream("POST", target.url, content=urlencode(call.form).encode(), **args) as r:
                    async for chunk in r.aiter_bytes():
                        body += chunk
                        if len(body) > services.MAX_ANSWER_BYTES:
                            break
                    return r.status_code, bytes(body[: services.MAX_ANSWER_BYTES + 1])
        except netcheck.Refused as e:
            log.warning("account association check: %s refused: %s", call.url, e)
            raise Unreachable("its address is refused by the outbound checks") from None
        except (TimeoutError, httpx.TimeoutException):
            raise Unreachable(f"no answer within {self.timeout:g} s") from None
        except httpx.HTTPError as e:
            log.warning("account association check: %s failed: %r", call.url, e)
            raise Unreachable("the connection failed") from None

    async def ask(self, call: services.Call, read: Callable[[int, bytes], services.Answer]) -> Outcome:
        try:
            status, body = await self.send(call)
        except Unreachable as e:
            return Outcome(False, UNREACHABLE, f"{call.url}: {e}")
        answer = read(status, body)
        return Outcome(answer.accepted, "" if answer.accepted else EXCHANGE_FAILED, answer.detail)


def _token(tokens: TokenService, component: str, group: str, audience: str) -> str:
    token, _ = tokens.mint(services.subject(component, group), audience=audience, ttl=TOKEN_SECONDS)
    return token


def _not_configured(message: str) -> Outcome:
    return Outcome(False, NOT_CONFIGURED, message)


async def _amazon(checker: Checker, tokens: TokenService, a: AccountAssociation) -> Outcome:
    if a.amazon is None:
        return _not_configured("the association has no amazon account")
    token = _token(tokens, services.CANARY, a.uid, services.AWS_AUDIENCE)
    call = services.aws_call(checker.settings.aws_sts_url, a.amazon.account, f"{checker.prefix}-canary", token)
    return await checker.ask(call, services.aws_answer)


async def _google(checker: Checker, tokens: TokenService, a: AccountAssociation) -> Outcome:
    if a.google is None:
        return _not_configured("the association has no google project")
    token = _token(tokens, services.CANARY, a.uid, services.GCP_AUDIENCE)
    call = services.gcp_call(checker.settings.gcp_sts_url, a.google.project_number, checker.prefix, token)
    if call is None:
        return _not_configured(f"google.project_number {a.google.project_number[:40]!r} is not a project number")
    return await checker.ask(call, services.gcp_answer)


async def _azure(checker: Checker, tokens: TokenService, a: AccountAssociation) -> Outcome:
    if a.azure is None:
        return _not_configured("the association has no azure tenant")
    components = sorted(a.azure.client_ids)[:MAX_AZURE_CLIENTS]
    calls = []
    for component in components:
        token = _token(tokens, component, a.uid, services.AZURE_AUDIENCE)
        call = services.azure_call(checker.settings.azure_login_url, a.azure.tenant_id, a.azure.client_ids[component],
                                   token)  # fmt: skip
        if call is None:
            return _not_configured(f"azure.tenant_id {a.azure.tenant_id[:40]!r} is neither a GUID nor a domain name")
        calls.append(call)
    outcomes = await asyncio.gather(*(checker.ask(call, services.azure_answer) for call in calls))
    for component, outcome in zip(components, outcomes, strict=True):
        if not outcome.ready:
            return Outcome(False, outcome.reason, f"{component}: {outcome.message}")
    more = len(a.azure.client_ids) - len(components)
    checked = ", ".join(components) + (f" ({more} more not checked)" if more else "")
    return Outcome(True, "", f"Azure AD issued access tokens for {checked}")


CHECKS = {
    "ACCOUNT_PROVIDER_TYPE_AMAZON": _amazon,
    "ACCOUNT_PROVIDER_TYPE_GOOGLE": _google,
    "ACCOUNT_PROVIDER_TYPE_AZURE": _azure,
}


@rpc(account_associations.SERVICE + "CheckAccountAssociation")
async def check_account_association(
    req: CheckAccountAssociationRequest, ctx: Context
) -> CheckAccountAssociationResponse:
    check = CHECKS.get(req.provider_type)
    if check is None:
        raise errors.invalid_argument(
            "provider_type", "provider_type must be ACCOUNT_PROVIDER_TYPE_AMAZON, _GOOGLE or _AZURE"
        )
    association = await account_associations.ASSOCIATIONS.get(ctx.rt.db, req.uid)
    checker = ctx.rt.part(Checker)
    checker.throttle(association.uid)
    outcome = await check(checker, ctx.rt.part(Access).tokens, association)
    log.info("account association %s checked with %s: %s %s", association.uid, req.provider_type,
             "ready" if outcome.ready else "not ready", outcome.reason)  # fmt: skip
    return CheckAccountAssociationResponse(
        status="CHECK_STATUS_READY" if outcome.ready else "CHECK_STATUS_NOT_READY",
        reason=outcome.reason,
        message=outcome.message,
    )
