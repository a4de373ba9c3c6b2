"""The List conventions shared by every List RPC.

- page_size: default 50, larger than 200 is clamped to 200, negative is INVALID_ARGUMENT.
- order_by: "key [asc|desc]{, key [asc|desc]}" over snake_case keys; unknown key is INVALID_ARGUMENT;
  `uid` is always the final tie-breaker so the order is total.
- Keyset pagination on (order keys, uid): a page token holds the last row's keys, so inserts and
  deletes between pages neither repeat nor skip rows. `skip` is applied after the cursor.
- totalCount counts the whole filtered set; `skipped` echoes the skip requested.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from platform_api.core import errors, pagetoken, uidp
from platform_api.service.context import Context
from platform_api.store import rows
from platform_api.store.db import Conn

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
# Bytes of stored records in one answer (characters of their JSON): a page ends early, with a page token, before
# the record that would cross it, and is never empty. The vendor's gRPC clients take messages of 4 MiB.
MAX_ANSWER = 3 << 20
# Context.state key: the total a caller walking every page already has (later pages skip the count).
KNOWN_TOTAL = "listing.known_total"
# Context.state key: the FullSet budget of a walk over every page (service/v1.py).
FULL_SET = "listing.full_set"
# A full-set walk's pages: the first asks for FULL_SET_FIRST_PAGE records (their sizes unknown: a repo with every
# tag and alias its caps allow is ~150 KB, an advisory of 2,000 events more), later ones for about FULL_SET_SLICE
# bytes by the largest record seen, so that no page's read and decoding keep other requests waiting long.
FULL_SET_FIRST_PAGE = 4
FULL_SET_SLICE = 1 << 20
STANDARD_ORDER_KEYS: Mapping[str, str] = {
    "uid": "uid",
    "name": "name",
    "created_at": "create_time",
    "updated_at": "update_time",
}


@dataclass(frozen=True)
class Table:
    name: str
    order_keys: Mapping[str, str] = field(default_factory=lambda: STANDARD_ORDER_KEYS)
    default_order: str = "uid"
    # Rows at the root (parent '') that every authenticated caller may list (built-in roles).
    public_root_rows: bool = False
    # Rows owned by no group (libraries): a caller holding the method's capabilities at any group sees
    # them all (`require_somewhere`); one holding them nowhere is denied.
    global_rows: bool = False
    # Each row's stored body is its API record exactly as the answer encodes it (written by `rows.body` of
    # that record, nothing else in it): a List answered straight to a transport sends the stored bytes
    # instead of decoding and encoding them again (List(200): -29% CPU). Only for tables whose bodies hold
    # nothing the API must not show; tests/functional/registry/test_list_stored_bodies.py checks that lists
    # answer what Get answers.
    bodies_are_answers: bool = False


class Where:
    """SQL conditions with numbered placeholders, built up by filters.

    It also remembers whether the conditions are structural only (at most one of descendants_of /
    children_of / in_root, plus a hidden-kinds mask): then the total is a sum of maintained per-parent
    counters (table child_counts) rather than a COUNT(*) over every matching row.
    """

    def __init__(self) -> None:
        self.conds: list[str] = []
        self.args: list[Any] = []
        self.structure: list[tuple[str, str]] = []  # ("children" | "descendants", uid)
        self.hidden_kinds = 0
        self.counted = True
        # Set by restrict_to_visible: the subtrees the caller may list (and whether public root rows count).
        self.visible: list[str] | None = None
        self.public_rows = False

    def p(self, value: Any) -> str:
        self.args.append(value)
        return f"${len(self.args)}"

    def add(self, cond: str) -> None:
        """Any condition the counters cannot answer."""
        self.conds.append(cond)
        self.counted = False

    def hide_kinds(self, mask: int) -> None:
        """Exclude rows whose kind has any of these bits."""
        if mask:
            self.conds.append(f"(kind & {self.p(mask)}) = 0")
            self.hidden_kinds |= mask

    def _structural(self, kind: str, uid: str, cond: str) -> None:
        self.conds.append(cond)
        self.structure.append((kind, uid))

    def eq(self, column: str, value: Any) -> None:
        self.add(f"{column} = {self.p(value)}")

    def any_of(self, column: str, values: list[Any]) -> None:
        """`column` equals one of `values`: one list argument, however many values (store.db: `= ANY`)."""
        self.add(f"{column} = ANY({self.p(list(values))})")

    def sql(self, walk_order_index: bool = False) -> str:
        """The conditions; `walk_order_index` keeps SQLite from using the uid range as its access path."""
        text = " AND ".join(self.conds) if self.conds else "1 = 1"
        return text.replace("{uid}", "+uid" if walk_order_index else "uid")


def _check_uid(name: str, value: str) -> None:
    if not uidp.valid(value):
        raise errors.invalid_argument(name, f"{name} must be a uid path matching ^[0-9a-f]{{40}}(?:/[0-9a-f]{{16}})*$")


def add_uidp_filter(where: Where, f: Any) -> None:
    """Apply a UIDPFilter record (any of its fields may be set; they combine with AND)."""
    if f is None:
        return
    if f.ancestors_of:
        _check_uid("uidp.ancestors_of", f.ancestors_of)
        where.any_of("uid", uidp.parents(f.ancestors_of))
    if f.descendants_of:
        _check_uid("uidp.descendants_of", f.descendants_of)
        lo, hi = uidp.descendant_range(f.descendants_of)
        where._structural("descendants", f.descendants_of, f"{{uid}} > {where.p(lo)} AND {{uid}} < {where.p(hi)}")
    if f.children_of:
        _check_uid("uidp.children_of", f.children_of)
        where._structural("children", f.children_of, f"parent = {where.p(f.children_of)}")
    if f.in_root:
        where._structural("children", "", f"parent = {where.p('')}")
    if f.ids:
        for i in f.ids:
            _check_uid("uidp.ids", i)
        where.any_of("uid", list(f.ids))


def page_size(requested: int) -> int:
    if requested < 0:
        raise errors.invalid_argument("page_size", "page_size must not be negative")
    if requested == 0:
        return DEFAULT_PAGE_SIZE
    return min(requested, MAX_PAGE_SIZE)


def parse_order(order_by: str, table: Table) -> list[tuple[str, bool]]:
    """[(column, descending)], always ending with uid."""
    spec = order_by.strip() or table.default_order
    out: list[tuple[str, bool]] = []
    for part in spec.split(","):
        words = part.split()
        if not words or len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("asc", "desc")):
            raise errors.invalid_argument("order_by", f"order_by must be '<field> [asc|desc]', got {part.strip()!r}")
        column = table.order_keys.get(words[0])
        if column is None:
            allowed = ", ".join(sorted(table.order_keys))
            raise errors.invalid_argument("order_by", f"cannot order by {words[0]!r}; allowed: {allowed}")
        if any(c == column for c, _ in out):
            raise errors.invalid_argument("order_by", f"{words[0]!r} appears twice in order_by")
        out.append((column, len(words) == 2 and words[1].lower() == "desc"))
    if out[-1][0] != "uid" and all(c != "uid" for c, _ in out):
        out.append(("uid", out[-1][1]))
    return out


def _after(where: Where, order: list[tuple[str, bool]], last: list[Any]) -> None:
    """Rows strictly after `last` in this order: (a > x) OR (a = x AND b > y) OR ..."""
    ors = []
    for i, (column, desc) in enumerate(order):
        ands = [f"{c} = {where.p(last[j])}" for j, (c, _) in enumerate(order[:i])]
        ands.append(f"{column} {'<' if desc else '>'} {where.p(last[i])}")
        ors.append("(" + " AND ".join(ands) + ")")
    where.add("(" + " OR ".join(ors) + ")")


def _count_query(table: Table, where: Where) -> tuple[str, list[Any]]:
    if not where.counted or len(where.structure) > 1 or (where.visible is not None and where.structure):
        return f"SELECT COUNT(*) FROM {table.name} WHERE {where.sql()}", list(where.args)
    args: list[Any] = [table.name, where.hidden_kinds]
    sql = "SELECT COALESCE(SUM(n), 0) FROM child_counts WHERE tbl = $1 AND (kind & $2) = 0"
    if where.visible is not None:
        return _visible_count_query(table, where, sql, args)
    if where.structure:
        kind, uid = where.structure[0]
        args.append(uid)
        if kind == "children":
            sql += " AND parent = $3"
        else:
            lo, hi = uidp.descendant_range(uid)
            args += [lo, hi]
            sql += " AND (parent = $3 OR (parent > $4 AND parent < $5))"
    return sql, args


async def _walk_order_index(db: Conn, table: Table, where: Where, order: list[tuple[str, bool]], total: int) -> bool:
    """Whether SQLite should read rows in the order index rather than through the uid range.

    SQLite (without STAT4) always prefers the primary-key range of descendants_of, then sorts every row
    in it: 260 ms for 100k rows ordered by name. When the range holds most of the table, walking the
    (name, uid) index and filtering is far cheaper; for a small subtree the range and a sort win.
    The counters tell which case this is. PostgreSQL's planner has statistics and decides itself.
    """
    if not db.index_hints or order[0][0] == "uid" or total < 1000 or not where.structure:
        return False
    if where.structure[0][0] != "descendants":
        return False
    table_rows = int(await db.fetchval("SELECT COALESCE(SUM(n), 0) FROM child_counts WHERE tbl = $1", table.name))
    return total * 5 >= table_rows


@dataclass
class Page:
    bodies: list[str]
    next_page_token: str
    total_count: int
    skipped: int


_enc = msgspec.json.Encoder()
R = TypeVar("R")


def response(cls: type[R], items: str, record: type[Any], page: Page, decoded: list[Any] | None = None) -> R:
    """The List response `cls` for a page: `items` (e.g. "repos") holds the page's rows decoded as
    `record` (or the records given), with the paging fields every List answers."""
    rows_ = decoded if decoded is not None else [rows.decode(record, b) for b in page.bodies]
    fields: dict[str, Any] = {items: rows_, "next_page_token": page.next_page_token}
    fields |= {"total_count": str(page.total_count), "skipped": page.skipped}
    return cls(**fields)


def filters(req: Any, **columns: str) -> Where:
    """The Where of a List request: its `uidp` filter, and `column = value` for each request field named
    (`field="column"`) that the request sets (non-empty)."""
    where = Where()
    add_uidp_filter(where, req.uidp)
    for name, column in columns.items():
        value = getattr(req, name)
        if value:
            where.eq(column, value)
    return where


async def answer(
    ctx: Context, table: Table, where: Where, request: Any, cls: type[R], items: str, record: type[Any]
) -> R:
    """A List RPC's answer: the page of `table` that `where` selects, as `response` shapes it (the stored
    bodies as they are, where the table's are answers and the answer goes straight to a transport)."""
    found = await page(ctx, table, where, request)
    if table.bodies_are_answers and ctx.raw_answers:
        return response(cls, items, record, found, [msgspec.Raw(b) for b in found.bodies])
    return response(cls, items, record, found)


def any_of(conds: list[str]) -> str:
    """`conds` joined by OR as a balanced tree: SQLite refuses expressions deeper than 1,000, which a flat
    chain over a caller's many visible roots (hundreds of organizations) reaches."""
    if len(conds) == 1:
        return conds[0]
    half = len(conds) // 2
    return f"({any_of(conds[:half])} OR {any_of(conds[half:])})"


def _visible_count_query(table: Table, where: Where, sql: str, args: list[Any]) -> tuple[str, list[Any]]:
    """The total of an unscoped List with no other filter, from the counters: the rows under each visible
    root (their parent is the root or inside it), the public root rows, and the roots' own rows (counted
    under their parents, so read by key)."""

    def p(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    parts = [within(where.visible, "parent", p)] if where.visible else []
    if where.public_rows:
        parts.append("parent = ''")
    if not parts:
        return "SELECT 0", []
    sql += " AND " + any_of(parts)
    if not where.visible:
        return sql, args
    own = f"uid = ANY({p(list(where.visible))}) AND (kind & $2) = 0"
    if where.public_rows:
        own += " AND parent <> ''"  # already counted as public root rows
    return f"SELECT ({sql}) + (SELECT COUNT(*) FROM {table.name} WHERE {own})", args


# ------------------------------------------------------------------ the row counters (table child_counts)
# Kept by triggers for the resource tables (migrations); bulk importers, which write many rows at once, add
# their counts here instead (one statement per write rather than a trigger per row).


async def add_counts(tx: Conn, table: str, counts: list[tuple[str, int, int]]) -> None:
    """Add to the counters of `table`: (parent, kind, n) each."""
    await tx.executemany(
        "INSERT INTO child_counts (tbl, parent, kind, n) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (tbl, parent, kind, shard) DO UPDATE SET n = child_counts.n + excluded.n",
        [(table, parent, kind, n) for parent, kind, n in counts],
    )


async def drop_counts(tx: Conn, table: str, parent: str) -> None:
    """Forget the counters of `table` under `parent` (its rows were deleted)."""
    await tx.execute("DELETE FROM child_counts WHERE tbl = $1 AND parent = $2", table, parent)


async def counts_by_kind(conn: Conn, table: str) -> dict[int, int]:
    """Rows of `table` per kind, from the counters (no COUNT(*))."""
    found = await conn.fetch(
        "SELECT kind, COALESCE(SUM(n), 0) AS n FROM child_counts WHERE tbl = $1 GROUP BY kind", table
    )
    return {int(r["kind"]): int(r["n"]) for r in found}


def require_somewhere(ctx: Context) -> None:
    """PERMISSION_DENIED unless the caller holds the method's capabilities at some group: the rule for
    data owned by no group (`Table.global_rows`), for Lists and for the other reads of such data."""
    if ctx.principal is not None and ctx.required and not ctx.principal.visible_roots(ctx.required):
        held = " + ".join(ctx.info.capabilities) if ctx.info is not None else ""
        raise errors.permission_denied(f"missing {held or 'the capabilities'}: it is held at no group")


def within(roots: list[str], column: str, p: Callable[[Any], str]) -> str:
    """The condition that `column` (a uid) is one of `roots` or below one of them: key ranges joined as a
    balanced OR (`any_of`), `1 = 0` for no roots; `p` adds an argument and answers its placeholder. The one
    visibility condition of every query that lists what a caller may see."""
    conds = [f"({column} = {p(r)} OR ({column} > {p(r + '/')} AND {column} < {p(r + '0')}))" for r in roots]
    return any_of(conds) if conds else "1 = 0"


def restrict_to_visible(where: Where, ctx: Context, table: Table) -> None:
    """Unscoped Lists return only rows in subtrees where the caller holds the method's capabilities, and
    totalCount counts only those. A structural filter already inside one such subtree needs no more."""
    if table.global_rows:
        require_somewhere(ctx)
        return
    if ctx.principal is None or not ctx.required:
        return
    roots = ctx.principal.visible_roots(ctx.required)
    for _, uid in where.structure:
        if uid and any(uidp.is_ancestor_or_self(r, uid) for r in roots):
            return
    cond = within(roots, "{uid}", where.p)
    if table.public_root_rows:
        cond = f"({cond} OR parent = {where.p('')})"
    # Not `add`: with no other filter the counters still answer the total (_visible_count_query).
    where.conds.append(cond)
    where.visible, where.public_rows = roots, table.public_root_rows


@dataclass
class Cursor:
    """Where a keyset page of one List request starts, and how the next one is named: the page size and skip
    of the request, checked, and the last keys of the previous page from its token (None on the first page).
    The token is bound to everything in the request but the paging fields, and to the method."""

    size: int
    skip: int
    last: list[Any] | None
    _key: bytes
    _query: str

    def token(self, keys: list[Any]) -> str:
        return pagetoken.encode(self._key, self._query, keys)


def cursor(ctx: Context, request: Any, keys: int) -> Cursor:
    """The cursor of `request` (its page_size, page_token and skip) for pages ordered by `keys` keys."""
    size = page_size(request.page_size)
    if request.skip < 0:
        raise errors.invalid_argument("skip", "skip must not be negative")
    query = pagetoken.fingerprint(
        [ctx.method, _enc.encode(msgspec.structs.replace(request, page_size=0, page_token="", skip=0))]
    )
    last = pagetoken.decode(ctx.rt.page_key, request.page_token, query) if request.page_token else None
    if last is not None and len(last) != keys:
        raise errors.invalid_argument("page_token", "page_token does not match order_by")
    return Cursor(size, request.skip, last, ctx.rt.page_key, query)


async def page(ctx: Context, table: Table, where: Where, request: Any, columns: str = "body") -> Page:
    """One page of `table` rows matching `where`, per the request's page_size/page_token/order_by/skip,
    restricted to what the caller may see.

    `request` is the List request record; everything in it except the paging fields binds the token.
    """
    db = ctx.rt.db
    restrict_to_visible(where, ctx, table)
    order = parse_order(request.order_by, table)
    at = cursor(ctx, request, len(order))
    full_set: FullSet | None = ctx.state.get(FULL_SET)
    size = at.size if full_set is None else full_set.page_size(at.size)
    known = ctx.state.get(KNOWN_TOTAL)
    if at.last is not None and isinstance(known, int):
        total = known  # a v1 full-set walk (service/v1.py) counted on its first page; the rows are paged by key
    else:
        count_sql, count_args = _count_query(table, where)
        total = int(await db.fetchval(count_sql, *count_args))
    walk = await _walk_order_index(db, table, where, order, total)
    if at.last is not None:
        _after(where, order, at.last)
    order_sql = ", ".join(f"{c} {'DESC' if d else 'ASC'}" for c, d in order)
    keys = ", ".join(c for c, _ in order)
    sql = (
        f"SELECT {f'{columns}, {keys}' if full_set is None else keys} FROM {table.name} WHERE {where.sql(walk)}"
        f" ORDER BY {order_sql} LIMIT {where.p(size + 1)} OFFSET {where.p(request.skip)}"
    )
    if full_set is not None:
        sql = _keyed(sql, table, columns, order)
    rows = await db.fetchtuples(sql, *where.args)
    token = ""
    sizes = [len(r[0]) for r in rows[:size]]
    if full_set is not None:
        full_set.take(sizes)
    keep = within_budget(sizes)
    if len(rows) > keep:
        rows = rows[:keep]
        n = len(order)
        token = at.token(list(rows[-1][-n:]))
    return Page([r[0] for r in rows], token, total, request.skip)


def _keyed(keys_sql: str, table: Table, columns: str, order: list[tuple[str, bool]]) -> str:
    """The page whose keys `keys_sql` selects, its `columns` read by uid for those rows only. A sort that the
    filter's index cannot give (children_of, ordered by uid) otherwise carries every matching row's body through
    SQLite's sorter: 450 repos of 150 KB made each page of 7 read 67 MB (17 ms; ~1 ms keyed)."""
    outer = ", ".join(f"t.{c.strip()}" for c in columns.split(","))
    keys = ", ".join(f"k.{c}" for c, _ in order)
    order_sql = ", ".join(f"k.{c} {'DESC' if d else 'ASC'}" for c, d in order)
    return f"SELECT {outer}, {keys} FROM ({keys_sql}) AS k JOIN {table.name} AS t ON t.uid = k.uid ORDER BY {order_sql}"


@dataclass
class FullSet:
    """The byte budget of a walk over a List's every page (service/v1.py: a v1 List answers the full set), kept
    in the walk's Context.state[FULL_SET]: MAX_ANSWER bytes of stored records, as one page of a v2 List. The
    walk's pages are refused, not cut, once they would pass it (the full set answers whole or not at all), before
    their records are decoded; and each page asks for the records that what is left, at most FULL_SET_SLICE,
    can take by the largest seen so far: the rows read to find the budget passed are about the budget, not a
    whole page of large records (on SQLite, whose reads hold the event loop, 200 records of 150 KB take
    ~100 ms), and the walk yields between slices of about a MiB. Its pages read their keys first, then the
    records of those keys (`_keyed`)."""

    left: int = MAX_ANSWER
    largest: int = 0  # bytes of the largest record read so far (0: none read yet)

    def page_size(self, requested: int) -> int:
        if not self.largest:
            return min(requested, FULL_SET_FIRST_PAGE)
        return max(1, min(requested, min(self.left, FULL_SET_SLICE) // self.largest))

    def take(self, sizes: list[int]) -> None:
        """Takes a page's records of `sizes` bytes from what is left: RESOURCE_EXHAUSTED (413 ANSWER_TOO_LARGE)
        when they do not fit."""
        used = sum(sizes)
        if used > self.left:
            raise errors.answer_too_large(
                MAX_ANSWER, "bytes of records", "narrow the filter, or use the v2 List, which pages"
            )
        self.left -= used
        self.largest = max(self.largest, *sizes, 0)


def within_budget(sizes: list[int], budget: int = MAX_ANSWER) -> int:
    """How many of the records of `sizes` (in order) one answer takes: all of them, or up to the one that
    would take it over `budget`; at least one."""
    used = 0
    for i, n in enumerate(sizes):
        used += n
        if used > budget and i:
            return i
    return len(sizes)
