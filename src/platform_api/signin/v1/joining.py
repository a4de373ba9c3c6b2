"""The joining calls of /iam/v1/groups (chainguard.platform.iam.Groups: LookupGroup, CheckEligibility,
RequestGroupAccess) over signin/joining.py: the same gates, answers and event as v2. The rest of that service
is iam/v1/groups.py's."""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records.iam import (
    CheckEligibilityRequest,
    CheckEligibilityResponse,
    LookupGroupRequest,
    LookupGroupResponse,
    RequestGroupAccessRequest,
    RequestGroupAccessResponse,
)
from platform_api.iam.v1.groups import SERVICE, to_v1
from platform_api.service import v1
from platform_api.service.context import Context, rpc
from platform_api.signin import joining


@rpc(SERVICE + "LookupGroup")
async def lookup_group(req: LookupGroupRequest, ctx: Context) -> LookupGroupResponse:
    found = await v1.call(ctx, joining.lookup_group, v2.LookupGroupRequest())
    return LookupGroupResponse(group=to_v1(found.group) if found.group else None)


@rpc(SERVICE + "CheckEligibility")
async def check_eligibility(req: CheckEligibilityRequest, ctx: Context) -> CheckEligibilityResponse:
    answer = await v1.call(ctx, joining.check_eligibility, v2.CheckEligibilityRequest())
    return CheckEligibilityResponse(eligible=answer.eligible)


@rpc(SERVICE + "RequestGroupAccess")
async def request_group_access(req: RequestGroupAccessRequest, ctx: Context) -> RequestGroupAccessResponse:
    if not req.group_id:
        raise errors.invalid_argument("group_id", "the organization to ask is required")
    await v1.call(ctx, joining.request_group_access, v2.RequestGroupAccessRequest(group_uid=req.group_id))
    return RequestGroupAccessResponse()
