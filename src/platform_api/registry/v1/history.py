"""/registry/v1/tags/{parent_id}/history (chainguard.platform.registry.Registry ListTagHistory): the digests a
tag has pointed at, oldest first, as `{items: [{updateTimestamp, digest}]}`; `parent_id` is the tag's uid.

The history (registry/queries.py, table tag_history) gains an entry each time the tag is created or moved to
another digest, by any writer (v2 CreateTag, v1 CreateTag and UpdateTag, `import oci`), in the transaction
that writes the tag; a change of `deprecated` alone is not a move. It goes with the tag and with its repo.
The last queries.HISTORY_KEPT (1,000) entries per tag are kept, so the answer is a bounded read below the v1
full-set cap. A database upgraded from before the history existed (migration 0013) starts each tag's history
with its digest at that time (its update_time).

`start` and `end` bound `updateTimestamp` as [start, end) (either unset: unbounded). Authorization is the v1
method's (CAP_TAG_LIST at the tag or above it, as ListTags filters by); a tag that does not exist (or was
deleted) answers `{}` as a v1 list filtered by an unknown id does.
"""

from __future__ import annotations

from platform_api.core import validate
from platform_api.gen.records.registry import TagHistory, TagHistoryFilter, TagHistoryList
from platform_api.registry import queries
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."


@rpc(SERVICE + "ListTagHistory")
async def list_tag_history(req: TagHistoryFilter, ctx: Context) -> TagHistoryList:
    validate.uid(req.parent_id, "parent_id")
    found = await queries.tag_history(ctx.rt.db, req.parent_id, req.start or "", req.end or "", v1.MAX_ITEMS + 1)
    if len(found) > v1.MAX_ITEMS:  # not reached while HISTORY_KEPT is below the cap; the bound holds anyway
        raise v1.too_many("history entries", len(found))
    return TagHistoryList(items=[TagHistory(update_timestamp=r["at"], digest=r["digest"]) for r in found])
