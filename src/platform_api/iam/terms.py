"""IAM terms: /iam/v2/terms/{group} (TermsService) — a group's acceptances of legal documents.

The documents that may be accepted are configured (`terms_documents`). An acceptance is recorded once per
(group, document), by the first identity that accepts it; accepting again is a no-op. Listing a group's
acceptances includes those recorded on its ancestors, since an organization's acceptance covers its groups.
"""

from __future__ import annotations

from platform_api.core import clock, errors, uidp
from platform_api.gen.records.iam_v2 import (
    AcceptTermsRequest,
    AcceptTermsResponse,
    ListTermsAcceptancesRequest,
    ListTermsAcceptancesResponse,
    TermsAcceptance,
)
from platform_api.iam import groups
from platform_api.outbox import outbox
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.TermsService."
TABLE = listing.Table(
    "terms_acceptances",
    order_keys={"uid": "uid", "created_at": "create_time", "updated_at": "update_time", "doc_id": "doc_id"},
    default_order="created_at",
)


async def delete_of_group(tx: Conn, group: str) -> None:
    await tx.execute("DELETE FROM terms_acceptances WHERE parent = $1", group)


@rpc(SERVICE + "AcceptTerms")
async def accept_terms(req: AcceptTermsRequest, ctx: Context) -> AcceptTermsResponse:
    if not req.document_ids:
        raise errors.invalid_argument("document_ids", "document_ids is required")
    known = ctx.rt.settings.terms_document_ids
    for doc in req.document_ids:
        if doc not in known:
            raise errors.invalid_argument(
                "document_ids", f"unknown document {doc!r}; known documents: {', '.join(sorted(known))}"
            )
    docs = list(dict.fromkeys(req.document_ids))
    now = clock.now()
    result = AcceptTermsResponse(group=req.group, document_ids=docs)
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.group, "group")
        recorded = 0
        for doc in docs:
            acceptance = TermsAcceptance(
                doc_id=doc, accepted_by=ctx.subject, org_uid=req.group, create_time=now, update_time=now
            )
            recorded += await tx.execute(
                "INSERT INTO terms_acceptances (uid, parent, doc_id, accepted_by, create_time, update_time, body)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (parent, doc_id) DO NOTHING",
                uidp.new_child(req.group), req.group, doc, ctx.subject, now, now, rows.body(acceptance),
            )  # fmt: skip
        if recorded:
            await outbox.emit(tx, ctx, result)
    return result


@rpc(SERVICE + "ListTermsAcceptances")
async def list_terms_acceptances(req: ListTermsAcceptancesRequest, ctx: Context) -> ListTermsAcceptancesResponse:
    if not await groups.exists(ctx.rt.db, req.group):
        raise errors.not_found(groups.RESOURCE, req.group)
    where = listing.Where()
    where.any_of("parent", uidp.ancestry(req.group))
    return await listing.answer(
        ctx, TABLE, where, req, ListTermsAcceptancesResponse, "terms_acceptances", TermsAcceptance
    )
