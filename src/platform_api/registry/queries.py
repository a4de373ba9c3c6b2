"""The registry's tables that its reads join, `repos`, `tags` (with `tag_history`) and `vuln_reports`, and all
SQL on them.

Ownership rule (every domain): each table has one owning module in its domain package, and only that module
has SQL on it (including the generic statements `service.crud.Resource`, `storage.get` and `listing` build
from the owner's declaration); every other module, of this domain or another, calls the owner's functions.
A resource module (`<domain>/<collection>.py`) owns its table when no other module needs it; tables that
several modules work with or that one query joins (a repo's delete removes its tags, tags are created through
the repo, the vulnerability counts join reports, repos and tags) belong to the domain's `queries.py`.
"""

from __future__ import annotations

from platform_api.core import clock, uidp
from platform_api.gen.records.registry_v2 import Repo, Tag
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.store import rows
from platform_api.store.db import Conn, Row

REPO = "chainguard.platform.registry.v2.Repo"
TAG = "chainguard.platform.registry.v2.Tag"
REPO_NAMES = crud.UniqueName("repos", REPO, "a repo", "in this group")
REPOS = crud.Resource("repos", Repo, REPO, outbox.emit, REPO_NAMES)
TAGS = crud.Resource("tags", Tag, TAG, outbox.emit)
REPOS_TABLE = listing.Table("repos", bodies_are_answers=True)
TAGS_TABLE = listing.Table("tags", bodies_are_answers=True)


async def any_repo_in(conn: Conn, group: str) -> bool:
    return await REPOS.any_where(conn, "parent", group)


async def repo_readme(conn: Conn, uid: str) -> str | None:
    """The repo's readme (None: no such repo)."""
    content: str | None = await conn.fetchval("SELECT readme FROM repos WHERE uid = $1", uid)
    return content


async def set_repo_readme(tx: Conn, repo: Repo, content: str) -> None:
    await tx.execute(
        "UPDATE repos SET readme = $2, update_time = $3, body = $4 WHERE uid = $1",
        repo.uid, content, repo.update_time, rows.body(repo),
    )  # fmt: skip


async def tag_by_name(tx: Conn, parent: str, name: str) -> Tag | None:
    """The tag `name` of repo `parent`, locked until the transaction ends."""
    body = await tx.fetchval(
        "SELECT body FROM tags WHERE parent = $1 AND name = $2" + rows.for_update(tx), parent, name
    )
    return None if body is None else rows.decode(Tag, body)


async def tags_at(conn: Conn, parent: str, digest: str) -> list[Tag]:
    """The tags of repo `parent` that point at `digest`."""
    found = await conn.fetch("SELECT body FROM tags WHERE parent = $1 AND digest = $2 ORDER BY name", parent, digest)
    return [rows.decode(Tag, r["body"]) for r in found]


async def insert_tag(tx: Conn, parent: str, name: str, digest: str, deprecated: bool, kind: int) -> Tag:
    now = clock.now()
    tag = Tag(uid=uidp.new_child(parent), name=name, digest=digest, deprecated=deprecated,
              create_time=now, update_time=now)  # fmt: skip
    await TAGS.insert(tx, tag, parent, name=tag.name, digest=tag.digest, kind=kind)
    await _record_history(tx, tag)
    return tag


async def update_tag(tx: Conn, tag: Tag) -> None:
    """The tag's digest, deprecation and update_time as the record has them (a move to another digest is
    recorded in its history)."""
    before = await tx.fetchval("SELECT digest FROM tags WHERE uid = $1", tag.uid)
    await tx.execute(
        "UPDATE tags SET digest = $2, update_time = $3, body = $4 WHERE uid = $1",
        tag.uid, tag.digest, tag.update_time, rows.body(tag),
    )  # fmt: skip
    if before != tag.digest:
        await _record_history(tx, tag)


async def delete_history(tx: Conn, tag: str) -> None:
    """DELETE a deleted tag's history (in the transaction that deletes the tag)."""
    await tx.execute("DELETE FROM tag_history WHERE tag = $1", tag)


async def delete_history_below(tx: Conn, repo: str) -> None:
    """DELETE the history of a deleted repo's tags (in the transaction that deletes them)."""
    lo, hi = uidp.descendant_range(repo)
    await tx.execute("DELETE FROM tag_history WHERE tag > $1 AND tag < $2", lo, hi)


# ------------------------------------------------------------------ tag history (registry.v1.history)

# The most recent moves kept per tag: older rows are deleted as new ones are written, so one tag's history is
# a bounded read (and below the v1 full-set cap).
HISTORY_KEPT = 1_000


async def _record_history(tx: Conn, tag: Tag) -> None:
    """One history row: the tag points at its digest since its update_time. The caller holds the repo's lock
    (every tag writer does: tags.upsert), so the next seq cannot race. A tag without a digest (a v1 create
    without one) points nowhere: no row until it gets one."""
    if not tag.digest:
        return
    last = await tx.fetchval("SELECT MAX(seq) FROM tag_history WHERE tag = $1", tag.uid)
    seq = int(last or 0) + 1
    await tx.execute(
        "INSERT INTO tag_history (tag, seq, digest, at) VALUES ($1, $2, $3, $4)", tag.uid, seq, tag.digest,
        tag.update_time,
    )  # fmt: skip
    if seq > HISTORY_KEPT:
        await tx.execute("DELETE FROM tag_history WHERE tag = $1 AND seq <= $2", tag.uid, seq - HISTORY_KEPT)


async def tag_history(conn: Conn, tag: str, start: str, end: str, limit: int) -> list[Row]:
    """`at` and `digest` of the tag's history, oldest first, `start` <= at < `end` (either "" for no
    bound), at most `limit` rows."""
    conds, args = ["tag = $1"], [tag]
    if start:
        args.append(start)
        conds.append(f"at >= ${len(args)}")
    if end:
        args.append(end)
        conds.append(f"at < ${len(args)}")
    return await conn.fetch(
        f"SELECT at, digest FROM tag_history WHERE {' AND '.join(conds)} ORDER BY seq LIMIT {int(limit)}", *args
    )


async def tag_digests(conn: Conn, repo: str, names: list[str]) -> list[str]:
    """The digests the tags `names` of `repo` point at (tags that do not exist are left out)."""
    found = await conn.fetch("SELECT digest FROM tags WHERE parent = $1 AND name = ANY($2)", repo, names)
    return [r["digest"] for r in found]


async def repos_named(conn: Conn, name: str) -> list[str]:
    """The uids of the repos called `name` (in any group; the caller filters by what it may see)."""
    return [r["uid"] for r in await conn.fetch("SELECT uid FROM repos WHERE name = $1 ORDER BY uid", name)]


async def repo_named(conn: Conn, parent: str, name: str) -> str | None:
    """The uid of the repo called `name` in the group `parent`."""
    uid = await conn.fetchval("SELECT uid FROM repos WHERE parent = $1 AND name = $2", parent, name)
    return None if uid is None else str(uid)


async def repo_exists(conn: Conn, uid: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM repos WHERE uid = $1", uid) is not None


async def repos_within(conn: Conn, scope: str) -> list[str]:
    """The uids of the repos that are `scope` or below it (a group's, an organization's, or one repo)."""
    w = listing.Where()
    found = await conn.fetch(f"SELECT uid FROM repos WHERE {listing.within([scope], 'uid', w.p)}", *w.args)
    return [r["uid"] for r in found]


# ------------------------------------------------------------------ vulnerability reports (registry.vulnreports)


async def report_sha(tx: Conn, repo: str, digest: str, generated: str) -> str | None:
    """The raw file's sha256 of the report on `digest` generated then (None: there is none)."""
    sql = "SELECT raw_sha256 FROM vuln_reports WHERE repo = $1 AND digest = $2 AND generated = $3"
    found: str | None = await tx.fetchval(sql, repo, digest, generated)
    return found


async def write_report(
    tx: Conn, repo: str, digest: str, generated: str, sha: str, body: str, counts: str, raw: bytes, *, new: bool
) -> None:
    if new:
        await tx.execute(
            "INSERT INTO vuln_reports (repo, digest, generated, day, raw_sha256, last_seen, body, counts, raw)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            repo, digest, generated, generated[:10], sha, clock.now(), body, counts, raw,
        )  # fmt: skip
        return
    await tx.execute(
        "UPDATE vuln_reports SET raw_sha256 = $4, last_seen = $5, body = $6, counts = $7, raw = $8"
        " WHERE repo = $1 AND digest = $2 AND generated = $3",
        repo, digest, generated, sha, clock.now(), body, counts, raw,
    )  # fmt: skip


async def latest_report(conn: Conn, repo: str, digest: str) -> Row | None:
    """body, raw and last_seen of the most recent report on `digest` in `repo`."""
    return await conn.fetchrow(
        "SELECT body, raw, last_seen FROM vuln_reports WHERE repo = $1 AND digest = $2 ORDER BY generated DESC LIMIT 1",
        repo, digest,
    )  # fmt: skip


async def reports(
    conn: Conn,
    columns: str,
    repo: str,
    digest: str,
    tag: str,
    since: str,
    at: str,
    roots: list[str] | None,
    limit: int,
    newest_first: bool = False,
) -> list[Row]:
    """`columns` (of `v` the report) of the reports filtered by repo uid, digest, a tag of the repo naming the
    digest, generation time from `since` (compared to the second) or exactly `at`, and, when `roots` is not
    None, repos under those groups (each "" or None: no filter); ordered by repo, digest, generation (newest
    first when asked); at most `limit` rows. For the v1 ListVulnReports and GetRawVulnReport."""
    conds: list[str] = []
    w = listing.Where()  # its numbered placeholders
    p, args = w.p, w.args

    if repo:
        conds.append(f"v.repo = {p(repo)}")
    if digest:
        conds.append(f"v.digest = {p(digest)}")
    if tag:
        conds.append(
            f"EXISTS (SELECT 1 FROM tags t WHERE t.parent = v.repo AND t.digest = v.digest AND t.name = {p(tag)})"
        )
    if since:  # stored times drop a zero fraction ("...:05Z" sorts after "...:05.1Z"): compare whole seconds
        conds.append(f"substr(v.generated, 1, 19) >= {p(since[:19])}")
    if at:
        conds.append(f"v.generated = {p(at)}")
    if roots is not None:
        conds.append(listing.within(roots, "v.repo", p))
    where = (" WHERE " + " AND ".join(conds)) if conds else ""
    order = "v.generated DESC, v.repo, v.digest" if newest_first else "v.repo, v.digest, v.generated"
    return await conn.fetch(f"SELECT {columns} FROM vuln_reports v{where} ORDER BY {order} LIMIT {int(limit)}", *args)


async def report_counts(
    conn: Conn, columns: str, repo_name: str, tag: str, since: str, until: str, roots: list[str] | None, limit: int
) -> list[Row]:
    """`columns` (of `v` the report, `r` its repo, `t` each tag naming its digest) of the reports filtered by
    repo name, tag, days (inclusive, `YYYY-MM-DD`) and, when `roots` is not None, repos under those groups;
    ordered by repo name, tag, day, generation; at most `limit` rows."""
    conds: list[str] = []
    w = listing.Where()  # its numbered placeholders
    p, args = w.p, w.args

    if repo_name:
        conds.append(f"r.name = {p(repo_name)}")
    if tag:
        conds.append(f"t.name = {p(tag)}")
    if since:
        conds.append(f"v.day >= {p(since)}")
    if until:
        conds.append(f"v.day <= {p(until)}")
    if roots is not None:
        conds.append(listing.within(roots, "v.repo", p))
    where = (" WHERE " + " AND ".join(conds)) if conds else ""
    return await conn.fetch(
        f"SELECT {columns} FROM vuln_reports v"
        " JOIN repos r ON r.uid = v.repo JOIN tags t ON t.parent = v.repo AND t.digest = v.digest"
        f"{where} ORDER BY r.name, t.name, v.day, v.generated LIMIT {limit}",
        *args,
    )
