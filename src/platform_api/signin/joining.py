"""Joining your company's organization: GroupsService.LookupGroup, CheckEligibility and
RequestGroupAccess (their v1 twins: iam/v1/groups.py), and what the organization's administrators see of it,
GroupDomainsService (/iam/v2/groups/{uid}/domains and /accessRequests: over signin/domains.py's tables).

The caller's e-mail counts only when all of this holds (else the caller has none, and every RPC answers as
if no organization matched):
- the access token came from a token of an issuer that is trusted now (`--trusted-issuer`, or the server's
  login provider `--login-issuer`), exchanged or through the browser login: its `act` claim (the
  upstream's iss, sub and e-mail, copied at the exchange or the login) names that issuer;
- the caller is the user identity registered for that upstream user (uid = user_uid(iss, sub)), not an
  identity an administrator made with a claim match (whose rows nobody vouches for);
- that identity's `email` (which only registration sets, and only from an upstream claim with
  `email_verified` true; the API cannot write it) is the e-mail the token carries.
The e-mail's domain must not be blocked (free-mail providers, signin/domains.BUILTIN_BLOCKED plus
`--blocked-email-domains`) and must be verified by a root organization (signin/domains.py).

Every failure of LookupGroup and RequestGroupAccess is the same NOT_FOUND (same message, same detail), so
that a caller learns nothing about which gate closed or which organizations exist.
"""

from __future__ import annotations

import dataclasses
import math
import time

from platform_api.auth import authz, matching
from platform_api.auth import capabilities as caps
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records.iam_v2 import (
    AccessRequest,
    CheckEligibilityRequest,
    CheckEligibilityResponse,
    GroupDomain,
    ListAccessRequestsRequest,
    ListAccessRequestsResponse,
    ListGroupDomainsRequest,
    ListGroupDomainsResponse,
    LookupGroupRequest,
    LookupGroupResponse,
    RequestGroupAccessRequest,
    RequestGroupAccessResponse,
)
from platform_api.iam import groups, identities
from platform_api.outbox import outbox
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.signin import domains

SERVICE = "chainguard.platform.iam.v2.GroupsService."
ADMIN = "chainguard.platform.iam.v2.GroupDomainsService."
# Who may publish the TXT record also may see it (the challenge is the organization's own secret-ish token).
SEES_TXT = caps.mask(["CAP_IAM_GROUPS_UPDATE"])
# Ce-Type `<prefix>.api.iam.group.access_requested.v1`, subject and group: the organization asked.
EVENT_TYPE = "iam.group.access_requested.v1"
RETRY_INFO = errors.TYPE_PREFIX + "RetryInfo"


def collapsed() -> errors.ApiError:
    """The one answer of every way a lookup or a request can fail."""
    return errors.not_found(groups.RESOURCE, "organization for your e-mail domain")


async def verified_email(ctx: Context) -> str | None:
    """The caller's e-mail when it counts (module docstring), lower-cased."""
    claims = authz.caller(ctx).claims
    act = claims.act if claims is not None else {}
    iss, sub, email = act.get("iss"), act.get("sub"), act.get("email")
    if not (isinstance(iss, str) and isinstance(sub, str) and isinstance(email, str) and iss and sub and email):
        return None
    issuer = matching.normalize_issuer(iss)
    settings = ctx.rt.settings
    trusted = matching.trusted_issuers(settings.trusted_issuers, settings.login_issuer)
    if issuer not in trusted or ctx.subject != matching.user_uid(issuer, sub):
        return None
    identity = await identities.find(ctx.rt.db, ctx.subject)
    if identity is None or not identity.email or identity.email.lower() != email.lower():
        return None
    return email.lower()


async def organization(ctx: Context) -> str | None:
    """The uid of the verified organization of the caller's e-mail domain, when every gate passes."""
    email = await verified_email(ctx)
    if email is None:
        return None
    local, at, host = email.rpartition("@")
    domain = domains.normalize(host) if local and at else None
    if domain is None or domains.is_blocked(domain, domains.blocked_domains(ctx.rt.settings.blocked_email_domains)):
        return None
    return await domains.verified_group(ctx.rt.db, domain)


@rpc(SERVICE + "LookupGroup")
async def lookup_group(req: LookupGroupRequest, ctx: Context) -> LookupGroupResponse:
    uid = await organization(ctx)
    if uid is None:
        raise collapsed()
    try:
        return LookupGroupResponse(group=await groups.GROUPS.get(ctx.rt.db, uid))
    except errors.ApiError:
        raise collapsed() from None  # deleted meanwhile


@rpc(SERVICE + "CheckEligibility")
async def check_eligibility(req: CheckEligibilityRequest, ctx: Context) -> CheckEligibilityResponse:
    return CheckEligibilityResponse(eligible=await organization(ctx) is not None)


def cooling_down(seconds: float) -> errors.ApiError:
    """429 RESOURCE_EXHAUSTED with google.rpc.RetryInfo (and Retry-After over HTTP)."""
    wait = max(1, math.ceil(seconds))
    e = errors.ApiError(
        errors.RESOURCE_EXHAUSTED,
        f"Resource exhausted: access to this organization was requested recently; ask again in {wait} s",
        [{"@type": RETRY_INFO, "retryDelay": f"{wait}s"}],
    )
    e.info_reason = "ACCESS_ALREADY_REQUESTED"
    e.info_metadata = {"retryAfterSeconds": str(wait)}
    e.headers = {"retry-after": str(wait)}
    return e


@rpc(SERVICE + "RequestGroupAccess")
async def request_group_access(req: RequestGroupAccessRequest, ctx: Context) -> RequestGroupAccessResponse:
    """Records the request (the cool-down is per caller and organization) and emits its event to the
    organization's subscriptions, in one transaction."""
    if not req.group_uid:
        raise errors.invalid_argument("group_uid", "the organization to ask is required")
    validate.uid(req.group_uid, "group_uid")
    uid = await organization(ctx)
    if uid is None or uid != req.group_uid:
        raise collapsed()
    cooldown = ctx.rt.settings.access_request_cooldown
    now_s = time.time()
    now = clock.from_epoch(now_s)
    async with ctx.rt.db.transaction() as tx:
        if not await groups.exists(tx, uid):
            raise collapsed()
        done = await domains.record_request(tx, uid, ctx.subject, now, clock.from_epoch(now_s - cooldown))
        if done is None:
            last = await domains.last_request(tx, uid, ctx.subject)
            left = cooldown - (now_s - clock.to_epoch(last)) if last else cooldown
            raise cooling_down(left)
        assert ctx.info is not None
        info = dataclasses.replace(ctx.info, event_type=EVENT_TYPE, event_source="/iam/v2/groups")
        await outbox.emit(tx, dataclasses.replace(ctx, info=info), req, subject=uid, group=uid)
    return RequestGroupAccessResponse()


# ---------------------------------------------------------------------------- the administrators' view


def _organization(group_uid: str) -> None:
    """Only root groups hold domains and requests (the scope check has validated the uid)."""
    if uidp.parent(group_uid):
        raise errors.invalid_argument("group_uid", "only organizations (root groups) have e-mail domains")


@rpc(ADMIN + "ListGroupDomains")
async def list_group_domains(req: ListGroupDomainsRequest, ctx: Context) -> ListGroupDomainsResponse:
    _organization(req.group_uid)
    txt = authz.caller(ctx).holds(SEES_TXT, req.group_uid)
    found = await domains.listing(ctx.rt.db, req.group_uid)
    return ListGroupDomainsResponse(
        domains=[
            GroupDomain(
                domain=d["domain"],
                state="STATE_VERIFIED" if d["state"] == "VERIFIED" else "STATE_PENDING",
                txt=d.get("txt", "") if txt else "",
                create_time=d["createTime"],
                verify_time=d.get("verifyTime") or None,
            )
            for d in found
        ]
    )


@rpc(ADMIN + "ListAccessRequests")
async def list_access_requests(req: ListAccessRequestsRequest, ctx: Context) -> ListAccessRequestsResponse:
    _organization(req.group_uid)
    at = listing.cursor(ctx, req, 2)  # (request time, identity uid), newest first
    if at.last is not None and not all(isinstance(k, str) for k in at.last):
        raise errors.invalid_argument("page_token", "page_token does not match this query")
    after = (at.last[0], at.last[1]) if at.last is not None else None
    found = await domains.requests(ctx.rt.db, req.group_uid, at.size + 1, after, at.skip)
    page = found[: at.size]
    token = at.token([page[-1]["requestTime"], page[-1]["identity"]]) if len(found) > at.size else ""
    items = [
        AccessRequest(identity_uid=r["identity"], name=r["name"], email=r["email"], request_time=r["requestTime"])
        for r in page
    ]
    return ListAccessRequestsResponse(access_requests=items, next_page_token=token)
