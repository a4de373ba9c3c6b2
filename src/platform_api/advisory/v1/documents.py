"""GET /advisory/v1/documents (chainguard.platform.advisory.SecurityAdvisory.ListDocuments) over
advisory/documents.py: public (no token; the anonymous routes' rate limit, from its v1 annotation). The v2
twin's answer under v1 names: `items`, and a false positive's type as `FPT_TYPE_...` (v2: `TYPE_...`); the
rest of an advisory is the same JSON in both, so the stored advisories pass through undecoded.

Bounded as the v2 twin, with no paging in either: an answer over 3 MiB of advisories is RESOURCE_EXHAUSTED
(413, ANSWER_TOO_LARGE), from the v2 twin. The twin stops at MAX_DOCUMENTS documents; a v1 list is never cut
short, so an answer that reaches that many is RESOURCE_EXHAUSTED too (413, TOO_MANY_ITEMS: exactly 500
matching documents are refused with the rest, as more cannot be told apart here).
"""

from __future__ import annotations

import msgspec

from platform_api.advisory import documents
from platform_api.advisory.v1.enums import FALSE_POSITIVE
from platform_api.core import errors
from platform_api.gen.records import advisory_v2 as v2
from platform_api.gen.records.advisory import Advisory, DocumentFilter, Event
from platform_api.service import v1
from platform_api.service.context import Context, rpc

_FALSE_POSITIVE = b'"falsePositiveDetermination"'


class DocumentsAnswer(msgspec.Struct, omit_defaults=True, kw_only=True):
    """DocumentList, of the v2 twin's stored documents (they encode as the v1 Document)."""

    items: list[documents.StoredDocument] = msgspec.field(default_factory=list)


def too_many() -> errors.ApiError:
    return errors.too_many_items(
        f"{documents.MAX_DOCUMENTS} or more documents match; a v1 answer is never cut short: ask for fewer cves,"
        " or for one package id",
        documents.MAX_DOCUMENTS,
    )


def advisory_v1(raw: msgspec.Raw) -> msgspec.Raw:
    """A stored (v2) DocumentAdvisory as the v1 Advisory: only a false positive's type differs."""
    if _FALSE_POSITIVE not in bytes(raw):
        return raw
    stored = msgspec.json.decode(raw, type=v2.DocumentAdvisory)
    advisory = Advisory(id=stored.id, events=[_event(e) for e in stored.events], aliases=stored.aliases,
                        package_namespace=stored.package_namespace)  # fmt: skip
    return msgspec.Raw(msgspec.json.encode(advisory))


def _event(e: v2.DocumentEvent) -> Event:
    fields = msgspec.to_builtins(e)
    fp = fields.get("falsePositiveDetermination")
    if fp and "type" in fp:
        fp["type"] = FALSE_POSITIVE[fp["type"]]
    return msgspec.convert(fields, Event)


@rpc("chainguard.platform.advisory.SecurityAdvisory.ListDocuments")
async def list_documents(req: DocumentFilter, ctx: Context) -> DocumentsAnswer:
    answer = await v1.call(ctx, documents.list_documents, v2.ListDocumentsRequest(id=req.id, cves=req.cves))
    if len(answer.documents) >= documents.MAX_DOCUMENTS:
        raise too_many()
    for d in answer.documents:
        d.advisories = [advisory_v1(a) for a in d.advisories]
    return DocumentsAnswer(items=answer.documents)
