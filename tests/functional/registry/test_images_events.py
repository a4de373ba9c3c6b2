"""Tags that `import oci` creates or moves emit the contract's tag event (CreateTag's, the upsert), with the
tag as subject, once per change: a re-import emits nothing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import httpx

from platform_api.store import db
from tests.helpers import imported, mk_repo

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"


def _blob(root: Path, data: bytes, media: str) -> dict[str, Any]:
    digest = hashlib.sha256(data).hexdigest()
    (root / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (root / "blobs" / "sha256" / digest).write_bytes(data)
    return {"mediaType": media, "digest": f"sha256:{digest}", "size": len(data)}


def _layout(root: Path, tag: str) -> str:
    """A layout whose index.json tags one fresh manifest `tag`; the manifest's digest."""
    root.mkdir(parents=True)
    (root / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    config = _blob(root, json.dumps({"os": "linux", "architecture": "amd64", "n": secrets.token_hex(4)}).encode(),
                   CONFIG)  # fmt: skip
    manifest = _blob(root, json.dumps({"schemaVersion": 2, "mediaType": MANIFEST, "config": config,
                                       "layers": []}).encode(), MANIFEST)  # fmt: skip
    entry = manifest | {"annotations": {"org.opencontainers.image.ref.name": tag}}
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": [entry]}))
    return str(manifest["digest"])


def _tag_events(server: Any, subject: str) -> list[tuple[str, str]]:
    async def go() -> list[tuple[str, str]]:
        database = await db.connect(server.database_url)
        try:
            found = await database.fetch("SELECT type, data FROM events WHERE subject = $1 ORDER BY time", subject)
            return [(r["type"], r["data"]) for r in found]
        finally:
            await database.close()

    return asyncio.run(go())


def test_tag_events(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org, "ev-" + secrets.token_hex(4))["uid"]
    first = _layout(tmp_path / "one", "stable")
    imported(server, "oci", repo, str(tmp_path / "one"))
    tags = http.get("/registry/v2/tags", params={"uidp.childrenOf": repo}).json()["tags"]
    (tag,) = tags
    assert (tag["name"], tag["digest"]) == ("stable", first)
    events = _tag_events(server, tag["uid"])
    assert len(events) == 1 and events[0][0].endswith(".api.platform.registry.tag.created.v1")
    assert json.loads(events[0][1])["body"]["digest"] == first
    imported(server, "oci", repo, str(tmp_path / "one"))  # unchanged: no event
    assert len(_tag_events(server, tag["uid"])) == 1
    second = _layout(tmp_path / "two", "stable")  # the tag moves
    imported(server, "oci", repo, str(tmp_path / "two"))
    events = _tag_events(server, tag["uid"])
    assert len(events) == 2 and json.loads(events[1][1])["body"]["digest"] == second
