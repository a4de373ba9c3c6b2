"""Vulnerability metadata from OSV: the only SQL on tables vulnerability_metadata and vulnerability_aliases.

A stored record answers to its own id and to each of its OSV aliases (rows of vulnerability_aliases,
the record's own id included). Resolving a requested id: the record with exactly that id if there is one,
else among the records listing it as an alias the most recently modified (then the smallest id). One hop
only: a GHSA record aliasing CVE-1 answers for CVE-1; it does not make CVE-1's own aliases answer too.

Each row keeps the size in bytes of its stored metadata (`size`, migration 0011), so that a listing can stop
at its byte budget before reading the records beyond it; a record over MAX_RECORD bytes is refused at
import (the OSV format's own limits allowed some 100 MB: 10,000 references of 8 KiB).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from platform_api.core import clock
from platform_api.gen.records import vulnerabilities_v2
from platform_api.service.imports import BadInput
from platform_api.store import rows
from platform_api.store.db import Conn, Row
from platform_api.vulnerabilities.osv import Record

MAX_RECORD = 2 << 20  # bytes of one record's stored metadata (summary, details, references, severities)
K = TypeVar("K")


async def _by_id(conn: Conn, columns: str, ids: Iterable[str]) -> list[Row]:
    return await conn.fetch(f"SELECT {columns} FROM vulnerability_metadata WHERE id = ANY($1)", sorted(set(ids)))


async def apply(tx: Conn, records: list[Record]) -> list[str]:
    """Store `records` inside transaction `tx`: per record "created", "updated" or "unchanged".

    Unchanged: the stored row has the same digest, or a later `modified` (an older copy of a record never
    overwrites a newer one). A record whose content changed with the same or a later `modified` replaces
    the row and its aliases. Several records with one id in `records` apply in order.
    """
    ids = sorted({r.id for r in records})
    state: dict[str, tuple[str, str]] = {}  # id -> (modified, digest) as stored, then as written here
    for row in await _by_id(tx, "id, modified, digest", ids):
        state[row["id"]] = (row["modified"], row["digest"])
    existed = set(state)
    outcomes: list[str] = []
    pending: dict[str, tuple[Record, str]] = {}
    for r in records:
        digest = r.digest()
        old = state.get(r.id)
        if old is not None and (old[1] == digest or old[0] > r.modified):
            outcomes.append("unchanged")
            continue
        outcomes.append("updated" if old is not None else "created")
        state[r.id] = (r.modified, digest)
        pending[r.id] = (r, digest)
    if not pending:
        return outcomes
    now = clock.now()
    inserts: list[tuple[str | int, ...]] = []
    updates: list[tuple[str | int, ...]] = []
    for rid, (r, digest) in pending.items():
        body = rows.encode(r.metadata)
        if len(body) > MAX_RECORD:
            problem = f"its metadata takes {len(body)} bytes stored, over the limit of {MAX_RECORD}"
            raise BadInput(f"OSV record {rid}", "$", problem)
        values = (rid, r.modified, r.published, r.withdrawn, rows.body(r.aliases), rows.body(r.metadata.severities),
                  digest, now, body.decode(), len(body))  # fmt: skip
        (updates if rid in existed else inserts).append(values)
    columns = "id, modified, published, withdrawn, aliases, severities, digest, update_time, body, size"
    if inserts:
        await tx.executemany(
            f"INSERT INTO vulnerability_metadata ({columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", inserts
        )
    if updates:
        await tx.executemany(
            "UPDATE vulnerability_metadata SET modified = $2, published = $3, withdrawn = $4, aliases = $5,"
            " severities = $6, digest = $7, update_time = $8, body = $9, size = $10 WHERE id = $1",
            updates,
        )
        await tx.execute("DELETE FROM vulnerability_aliases WHERE id = ANY($1)", sorted({u[0] for u in updates}))
    alias_rows = [(a, rid, r.modified) for rid, (r, _) in pending.items() for a in [rid, *r.aliases]]
    await tx.executemany("INSERT INTO vulnerability_aliases (alias, id, modified) VALUES ($1, $2, $3)", alias_rows)
    return outcomes


async def resolve(conn: Conn, ids: list[str]) -> dict[str, str]:
    """{requested id: id of the stored record answering to it} for the `ids` that any record answers to."""
    candidates: dict[str, list[tuple[bool, str, str]]] = {}  # requested -> [(exact, modified, record id)]
    sql = "SELECT alias, id, modified FROM vulnerability_aliases WHERE alias = ANY($1)"
    for r in await conn.fetch(sql, sorted(set(ids))):
        candidates.setdefault(r["alias"], []).append((r["alias"] == r["id"], r["modified"], r["id"]))
    # The exact id first, then the latest modified; max() keeps the first of equals: the smallest id.
    return {alias: max(sorted(c, key=lambda x: x[2]), key=lambda x: x[:2])[2] for alias, c in candidates.items()}


async def bodies(conn: Conn, record_ids: Iterable[str]) -> dict[str, str]:
    """{record id: stored VulnerabilityMetadata JSON} of those of `record_ids` that exist."""
    found = await _by_id(conn, "id, body", record_ids)
    return {r["id"]: r["body"] for r in found}


async def sizes(conn: Conn, record_ids: Iterable[str]) -> dict[str, int]:
    """{record id: bytes of its stored metadata} of those of `record_ids` that exist."""
    return {r["id"]: r["size"] for r in await _by_id(conn, "id, size", record_ids)}


async def count(conn: Conn) -> int:
    return int(await conn.fetchval("SELECT COUNT(*) FROM vulnerability_metadata"))


async def page(conn: Conn, after: str | None, descending: bool, limit: int, offset: int) -> list[tuple[str, int]]:
    """(id, size) of every stored record in id order, strictly after `after`, skipping `offset`."""
    args: list[Any] = []
    where = ""
    if after is not None:
        args.append(after)
        where = f"WHERE id {'<' if descending else '>'} $1"
    args += [limit, offset]
    n = len(args)
    found = await conn.fetch(
        f"SELECT id, size FROM vulnerability_metadata {where} ORDER BY id {'DESC' if descending else 'ASC'}"
        f" LIMIT ${n - 1} OFFSET ${n}",
        *args,
    )
    return [(r["id"], r["size"]) for r in found]


async def merged_severities(conn: Conn, names: Mapping[K, Sequence[str]]) -> dict[K, list[vulnerabilities_v2.Severity]]:
    """For each key, the severities of the OSV records its names (an advisory's id, then its aliases)
    answer to, each severity once, in the order of the names; one lookup for all keys."""
    wanted = sorted({n for ns in names.values() for n in ns})
    found = await severities(conn, wanted) if wanted else {}
    out: dict[K, list[vulnerabilities_v2.Severity]] = {}
    for key, ns in names.items():
        merged: list[vulnerabilities_v2.Severity] = []
        for name in ns:
            merged.extend(s for s in found.get(name, ()) if s not in merged)
        out[key] = merged
    return out


async def severities(conn: Conn, ids: list[str]) -> dict[str, list[vulnerabilities_v2.Severity]]:
    """{requested id: severities of the record answering to it} for those of `ids` some stored OSV record
    answers to (by its id or an alias; see `resolve`). For an advisory, pass its id and aliases and merge.
    """
    resolved = await resolve(conn, ids)
    stored: dict[str, list[vulnerabilities_v2.Severity]] = {}
    for r in await _by_id(conn, "id, severities", resolved.values()):
        stored[r["id"]] = rows.decode(list[vulnerabilities_v2.Severity], r["severities"])
    return {asked: list(stored.get(rid, [])) for asked, rid in resolved.items()}
