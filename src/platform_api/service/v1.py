"""The v1 dialect over the v2 implementations: one core, two dialects.

A v1 RPC is a thin adapter: it renames fields (`id` for `uid`, ...), calls the v2 implementation of the same
operation as its twin, the function itself in a typed call (`v1.call(ctx, repos.create_repo, request)`), so the
rules, the scoping and the events are the v2 ones (a v1 mutation emits the event its v2 twin emits), and shapes
the answer the v1 way:
- List answers the full filtered set as `{items: [...]}`, at most MAX_ITEMS items: beyond that the call is
  RESOURCE_EXHAUSTED `TOO_MANY_ITEMS` (HTTP 413), found from the first page's count before the rest is read;
  and at most listing.MAX_ANSWER bytes of stored records, the budget of one v2 page and of every other answer
  without paging: beyond that RESOURCE_EXHAUSTED `ANSWER_TOO_LARGE` (HTTP 413), found page by page as the set
  is read, before a page over it is decoded. A filter by an id that does not exist (or is out of reach)
  answers an empty list.
- Update is a full replacement (PUT): every field the v2 twin lets a caller change is written.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import msgspec

from platform_api.core import errors, validate
from platform_api.gen.records.common import UIDPFilter
from platform_api.service import listing
from platform_api.service.context import Context, rpc_name

R = TypeVar("R", bound=msgspec.Struct)
Req = TypeVar("Req")
Ans = TypeVar("Ans")
MAX_ITEMS = 10_000


def twin(ctx: Context, impl: Callable[..., Awaitable[Any]], event_type: str = "") -> Context:
    """The context the v2 implementation `impl` (an `@rpc` function) runs in for a v1 call: its method's
    contract options (events, paging binding, the capabilities an unscoped method filters by), the same caller.
    `event_type`: the event the write emits instead of the v2 method's (a v1 call whose v2 twin is another
    operation)."""
    full_name = rpc_name(impl)
    info = ctx.rt.methods[full_name]
    if event_type:
        info = dataclasses.replace(info, event_type=event_type)
    required = info.required if info.unscoped else ctx.required
    return dataclasses.replace(ctx, method=full_name, info=info, required=required, state={}, raw_answers=False)


async def call(ctx: Context, impl: Callable[[Req, Context], Awaitable[Ans]], request: Req, event_type: str = "") -> Ans:
    """The v2 implementation `impl` answering `request` for this v1 call (see `twin`)."""
    return await impl(request, twin(ctx, impl, event_type))


def too_many(what: str, total: int) -> errors.ApiError:
    return errors.too_many_items(
        f"{total} {what} match; a v1 list answers at most {MAX_ITEMS}: narrow the filter (uidp, name) or use the"
        " v2 List, which pages",
        MAX_ITEMS,
        total,
    )


async def every(
    ctx: Context,
    impl: Callable[[R, Context], Awaitable[Any]],
    request: R,
    items: str,
    shape: Callable[[Any], Any] | None = None,
) -> list[Any]:
    """Every item the v2 List `impl` answers for `request` (its `items` field), page after page, each
    `shape`d (e.g. to its v1 record) as its page comes. Bounded (module doc): at most MAX_ITEMS items and
    listing.MAX_ANSWER bytes of stored records (listing.FullSet), refused as soon as either is passed; the event
    loop serves other requests between pages (on SQLite, whose reads do not wait, nothing else would run until
    the walk ends)."""
    tw = twin(ctx, impl)
    tw.state[listing.FULL_SET] = listing.FullSet()
    req = msgspec.structs.replace(request, page_size=listing.MAX_PAGE_SIZE, page_token="")
    out: list[Any] = []
    while True:
        answer = await impl(req, tw)
        total = int(getattr(answer, "total_count", "0") or 0)
        if total > MAX_ITEMS or len(out) > MAX_ITEMS:
            raise too_many(items, max(total, len(out)))
        found = getattr(answer, items)
        out += found if shape is None else [shape(x) for x in found]
        if not answer.next_page_token:
            return out
        # Later pages are read by key after the last one: the count of the first is the walk's.
        tw.state[listing.KNOWN_TOTAL] = total
        req = msgspec.structs.replace(req, page_token=answer.next_page_token)
        await asyncio.sleep(0)


def uidp_of(uidp: UIDPFilter | None, id_: str = "", field: str = "id") -> UIDPFilter | None:
    """The v2 filter of a v1 filter's `uidp` and `id` (an id is `uidp.ids`: the v2 List keeps it scoped);
    a malformed id is refused naming the v1 `field` it came in."""
    if not id_:
        return uidp
    validate.uid(id_, field)
    base = uidp or UIDPFilter()
    return msgspec.structs.replace(base, ids=[*base.ids, id_])


def convert(source: Any, cls: type[R], renames: Mapping[str, str] | None = None, **values: Any) -> R:
    """`cls` with every field that `source` has under the same name (or under `renames[field]`), then
    `values`. Fields only one side has are left out, which is how v2-only facts stay out of v1 answers.
    (`__struct_fields__`, not msgspec.structs.fields, which evaluates the annotations on every call.)"""
    renames = renames or {}
    have = type(source).__struct_fields__
    fields: dict[str, Any] = {}
    for name in cls.__struct_fields__:
        theirs = renames.get(name, name)
        if name not in values and theirs in have:
            fields[name] = getattr(source, theirs)
    fields.update(values)
    return cls(**fields)


def nested(value: Any, cls: type[R]) -> R | None:
    """A nested message as `cls`, where its v1 and v2 shapes are the same (names, JSON names, types):
    `convert` copies nested values as they are, which would put a v2 record inside a v1 one."""
    return None if value is None else msgspec.convert(msgspec.to_builtins(value), cls)


def full_mask(updatable: frozenset[str] | set[str]) -> str:
    """The update mask of a PUT: every field the v2 twin lets a caller change (a full replacement), so a
    field left out of the body is cleared."""
    return ",".join(sorted(updatable))
