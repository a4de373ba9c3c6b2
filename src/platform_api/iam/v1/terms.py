"""/iam/v1/terms/{group} (chainguard.platform.iam.Terms) over iam/terms.py: AcceptTerms is the v2 call
unchanged; ListAccepted answers the group's acceptances (its ancestors' included, as v2 lists them) as
`{items: [{docId, acceptedBy, acceptedAt}]}`, the full set."""

from __future__ import annotations

from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records.iam import (
    AcceptTermsRequest,
    AcceptTermsResponse,
    TermsDocumentStatus,
    TermsFilter,
    TermsList,
)
from platform_api.iam import terms
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.Terms."


@rpc(SERVICE + "AcceptTerms")
async def accept_terms(req: AcceptTermsRequest, ctx: Context) -> AcceptTermsResponse:
    ask = v2.AcceptTermsRequest(group=req.group, document_ids=req.document_ids)
    return v1.convert(await v1.call(ctx, terms.accept_terms, ask), AcceptTermsResponse)


@rpc(SERVICE + "ListAccepted")
async def list_accepted(req: TermsFilter, ctx: Context) -> TermsList:
    found = await v1.every(ctx, terms.list_terms_acceptances, v2.ListTermsAcceptancesRequest(group=req.group),
                           "terms_acceptances")  # fmt: skip
    return TermsList(items=[v1.convert(t, TermsDocumentStatus, {"accepted_at": "create_time"}) for t in found])
