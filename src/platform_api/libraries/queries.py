"""The libraries tables (library_artifacts, library_versions): the only SQL on them outside listing's.

An import merges what its files say into what is stored, artifact by artifact, in chunks (one query per
chunk for the stored rows, batched writes): a version's facts from the input replace the stored ones
where the input has them (files: size and upload times; a POM: description) and are kept where it has
none; nothing is deleted. Then each touched artifact is recomputed from all its versions: version order
(ranks), latest version, count, first and last publication, description.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from platform_api.gen.records.libraries_v2 import Artifact, ArtifactVersion, Ecosystem
from platform_api.libraries import versions as order
from platform_api.libraries.facts import ArtifactFacts, Collected
from platform_api.service import listing
from platform_api.service.imports import Progress, Summary
from platform_api.store import rows
from platform_api.store.db import Conn

# The ecosystem's number in the contract's enum, stored as the row's `kind` bit.
ECOSYSTEMS: dict[str, int] = {"java": 1, "python": 2}
ENUMS: dict[str, Ecosystem] = {"java": "ECOSYSTEM_JAVA", "python": "ECOSYSTEM_PYTHON"}
CHUNK = 400


@dataclass
class _Stored:
    record: ArtifactVersion
    rank: int
    yanked: bool


def version_uid(artifact: str, version: str) -> str:
    return f"{artifact}@{version}"


_TIMES = {"created_at": "create_time", "updated_at": "update_time", "create_time": "create_time",
          "update_time": "update_time"}  # fmt: skip
ARTIFACTS_TABLE = listing.Table(
    "library_artifacts",
    order_keys={"uid": "uid", "name": "name", "version_count": "version_count", **_TIMES},
    default_order="name",
    global_rows=True,
)
VERSIONS_TABLE = listing.Table(
    "library_versions",
    order_keys={"uid": "uid", "version": "version_rank", "size_bytes": "size_bytes", **_TIMES},
    default_order="version desc",
    global_rows=True,
)


async def exists(conn: Conn, uid: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM library_artifacts WHERE uid = $1", uid) is not None


async def counts(conn: Conn) -> dict[int, int]:
    """Artifacts per ecosystem number, from the row counters (no COUNT(*))."""
    return await listing.counts_by_kind(conn, "library_artifacts")


async def apply(tx: Conn, collected: Collected, summary: Summary, progress: Progress) -> None:
    """Merge `collected` into the tables inside `tx`, tallying each artifact and version in `summary`."""
    uids = sorted(collected.artifacts)
    for i in range(0, len(uids), CHUNK):
        chunk = uids[i : i + CHUNK]
        await _apply_chunk(tx, [collected.artifacts[u] for u in chunk], summary)
        progress.advance(len(chunk))


async def _apply_chunk(tx: Conn, chunk: list[ArtifactFacts], summary: Summary) -> None:
    uids = [a.uid for a in chunk]
    stored_artifacts = {
        r["uid"]: (r["body"], r["last_updated"])
        for r in await tx.fetch("SELECT uid, body, last_updated FROM library_artifacts WHERE uid = ANY($1)", uids)
    }
    stored_versions: dict[str, dict[str, _Stored]] = {}
    for r in await tx.fetch(
        "SELECT artifact, body, version_rank, yanked FROM library_versions WHERE artifact = ANY($1)", uids
    ):
        record = rows.decode(ArtifactVersion, r["body"])
        stored_versions.setdefault(r["artifact"], {})[record.version] = _Stored(
            record, int(r["version_rank"]), bool(r["yanked"])
        )
    writes = _Writes()
    for facts in chunk:
        _merge(facts, stored_artifacts.get(facts.uid), stored_versions.get(facts.uid, {}), writes, summary)
    await writes.flush(tx)


class _Writes:
    def __init__(self) -> None:
        self.new_versions: list[tuple[Any, ...]] = []
        self.changed_versions: list[tuple[Any, ...]] = []
        self.new_artifacts: list[tuple[Any, ...]] = []
        self.changed_artifacts: list[tuple[Any, ...]] = []
        # New artifacts per kind (ecosystem): what the per-parent counters gain.
        self.added: Counter[int] = Counter()

    async def flush(self, tx: Conn) -> None:
        if self.new_versions:
            await tx.executemany(
                "INSERT INTO library_versions (uid, artifact, version, version_rank, create_time, update_time,"
                " size_bytes, yanked, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                self.new_versions,
            )
        if self.changed_versions:
            await tx.executemany(
                "UPDATE library_versions SET artifact = $2, version = $3, version_rank = $4, create_time = $5,"
                " update_time = $6, size_bytes = $7, yanked = $8, body = $9 WHERE uid = $1",
                self.changed_versions,
            )
        if self.new_artifacts:
            await tx.executemany(
                "INSERT INTO library_artifacts (uid, kind, name, search, latest_version, version_count,"
                " create_time, update_time, last_updated, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                self.new_artifacts,
            )
            await listing.add_counts(tx, "library_artifacts", [("", k, n) for k, n in sorted(self.added.items())])
        if self.changed_artifacts:
            await tx.executemany(
                "UPDATE library_artifacts SET kind = $2, name = $3, search = $4, latest_version = $5,"
                " version_count = $6, create_time = $7, update_time = $8, last_updated = $9, body = $10"
                " WHERE uid = $1",
                self.changed_artifacts,
            )


def _merge(
    facts: ArtifactFacts,
    stored: tuple[str, str] | None,
    stored_versions: dict[str, _Stored],
    writes: _Writes,
    summary: Summary,
) -> None:
    merged: dict[str, tuple[ArtifactVersion, bool]] = {v: (s.record, s.yanked) for v, s in stored_versions.items()}
    for text, vf in facts.versions.items():
        old = stored_versions.get(text)
        size, first, last, yanked = vf.resolved()
        base = old.record if old is not None else ArtifactVersion(uid=version_uid(facts.uid, text), version=text)
        record = ArtifactVersion(
            uid=base.uid,
            name=facts.name,
            version=text,
            description=vf.description if vf.description is not None else base.description,
            create_time=first if first is not None else base.create_time,
            update_time=last if last is not None else base.update_time,
            size_bytes=str(size) if size is not None else base.size_bytes,
        )
        merged[text] = (record, yanked if yanked is not None else (old.yanked if old is not None else False))
    ascending = order.ordered(facts.ecosystem, merged)
    for rank, text in enumerate(ascending):
        record, yanked = merged[text]
        old = stored_versions.get(text)
        row = (record.uid, facts.uid, text, rank, record.create_time or "", record.update_time or "",
               int(record.size_bytes), int(yanked), rows.body(record))  # fmt: skip
        if old is None:
            writes.new_versions.append(row)
            summary.count("created")
        elif old.record != record or old.yanked != yanked:
            writes.changed_versions.append(row)
            summary.count("updated")
        else:
            if old.rank != rank:
                writes.changed_versions.append(row)  # a new version below it: same record, new place
            summary.count("unchanged")
    withdrawn = {t for t, (_, y) in merged.items() if y}
    latest = order.latest(facts.ecosystem, ascending, withdrawn)
    last_updated = facts.last_updated or (stored[1] if stored else "")
    artifact = Artifact(
        uid=facts.uid,
        name=facts.name,
        description=_description(ascending, latest, {t: r for t, (r, _) in merged.items()}),
        ecosystem=ENUMS[facts.ecosystem],
        latest_version=latest,
        version_count=len(ascending),
        create_time=_edge(min, (r.create_time for r, _ in merged.values())),
        update_time=_edge(max, [*(r.update_time for r, _ in merged.values()), last_updated]),
    )
    body = rows.body(artifact)
    artifact_row = (facts.uid, ECOSYSTEMS[facts.ecosystem], facts.name, facts.name.lower(), latest, len(ascending),
           artifact.create_time or "", artifact.update_time or "", last_updated, body)  # fmt: skip
    if stored is None:
        writes.new_artifacts.append(artifact_row)
        writes.added[ECOSYSTEMS[facts.ecosystem]] += 1
        summary.count("created")
    elif stored != (body, last_updated):
        writes.changed_artifacts.append(artifact_row)
        summary.count("updated")
    else:
        summary.count("unchanged")


def _edge(pick: Callable[[list[str]], str], times: Iterable[str | None]) -> str | None:
    known = [t for t in times if t]
    return pick(known) if known else None


def _description(ascending: list[str], latest: str, records: dict[str, ArtifactVersion]) -> str:
    """The latest version's description; when it has none, that of the nearest lower version with one."""
    if not latest:
        return ""
    for text in reversed(ascending[: ascending.index(latest) + 1]):
        description: str = records[text].description
        if description:
            return description
    return ""
