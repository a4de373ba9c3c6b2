"""ListResolvedVulnsReports with 10 refs to one 40-wide index costs about what one ref does: counted with a
recording connection, the SBOMs are read once (one statement naming each distinct digest once), the tags and
images once, the organization's advisories once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from platform_api.advisory import resolved
from platform_api.core.settings import Settings
from platform_api.formats import advisory_yaml
from platform_api.gen.records.advisory_v2 import ImageRef, ListResolvedVulnsReportsRequest
from platform_api.registry import images, oci, queries, sboms
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import db
from platform_api.store.migrate import migrate
from platform_api.vulnerabilities import advisory_queries
from tests.unit.registry.counting import Counting

ORG = "cd" * 20
REPO = ORG + "/0123456789abcdef"
ADVISORIES = Path(__file__).resolve().parents[2] / "data" / "advisories" / "crane.advisories.yaml"
WIDTH = 40


class Viewer:
    """A caller holding the method's capabilities in ORG."""

    subject = "viewer"

    def visible_roots(self, required: int) -> list[str]:
        return [ORG]


async def _write(database: db.SqliteDatabase) -> list[str]:
    """A repo `wide` with an index of WIDTH platform manifests tagged `latest`, an SBOM on each (the last
    lists crane), crane's advisories in ORG. Returns the index's and manifests' digests."""
    manifests = [oci.Image(f"sha256:{n:064x}", oci.OCI_MANIFEST, False, size=n, architecture=f"a{n}")
                 for n in range(1, WIDTH + 1)]  # fmt: skip
    entries = [{"digest": m.digest, "mediaType": m.media_type, "size": 1, "architecture": m.architecture}
               for m in manifests]  # fmt: skip
    index = oci.Image("sha256:" + "f" * 64, oci.OCI_INDEX, True, children=entries)
    doc = advisory_yaml.parse("crane", ADVISORIES.read_bytes())
    async with database.transaction() as tx:
        columns = "uid, parent, name, create_time, update_time, body"
        await tx.execute(f"INSERT INTO repos ({columns}) VALUES ($1, $2, 'wide', '', '', '{{}}')", REPO, ORG)
        for image in [index, *manifests]:
            await images.put(tx, REPO, image)
            package = "crane" if image is manifests[-1] else f"pkg-{image.size}"
            await sboms.put(tx, REPO, image.digest, "spdx", [sboms.Package(package, "1", "")])
        await queries.insert_tag(tx, REPO, "latest", index.digest, False, 0)
        built = [advisory_queries.build(ORG, doc.package, a) for a in doc.advisories]
        await advisory_queries.write(tx, ORG, built, [], "2026-01-01T00:00:00.000Z")
    return [index.digest] + [m.digest for m in manifests]


def test_ten_refs_to_a_wide_index_read_each_sbom_once(tmp_path: Path) -> None:
    async def go() -> None:
        database = await db.connect(f"sqlite:///{tmp_path / 'resolved.db'}")
        try:
            await migrate(database)
            digests = await _write(database)
            conn = Counting(database)
            ctx = Context(method="test", rt=Runtime(Settings(), conn), principal=Viewer(), required=1)  # type: ignore[arg-type]
            refs = [ImageRef(repo=REPO)] * 5 + [ImageRef(repo="wide", tags=["latest"])] * 5
            req = ListResolvedVulnsReportsRequest(
                image_refs=refs, start_time="2023-06-08T00:00:00Z", end_time="2023-06-08T00:00:00Z"
            )
            got = await resolved.list_resolved_vulns_reports(req, ctx)
            assert [[v.id for v in r.resolved_vulns] for r in got.resolved_vulns_reports] == [["CGA-2fq3-jx6r-8w4c"]]
            reads = conn.on("sbom_packages")
            assert len(reads) == 1
            args = [v for a in reads[0][1] for v in (a if isinstance(a, list) else [a])]  # a list is one argument
            named = [a for a in args if isinstance(a, str) and a.startswith("sha256:")]
            assert sorted(named) == sorted(digests)
            assert len(conn.on("images")) == 1 and len(conn.on("tags")) == 1
            assert len(conn.on("advisories")) == 1
            assert len(conn.statements) <= 8, conn.statements
        finally:
            await database.close()

    asyncio.run(go())
