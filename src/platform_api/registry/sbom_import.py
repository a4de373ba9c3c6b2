"""`platform-api import sbom <repo-uid> <digest> <file>`: the packages of an image from its SBOM, an SPDX
2.3 JSON document (`packages[]`: name, versionInfo, the purl among externalRefs; the fields SPDX requires of
the document and of each package must be there, `spdx_document`) or a CycloneDX 1.5+ JSON document
(`components[]`, nested components included: name, version, purl). The image must be known from `import oci`.
One transaction; the SBOM replaces the one recorded for the image, writing only the difference (packages
counted as created / unchanged, and `removed`). The document is kept as imported (v1 GetRawSbom) and
`describe` reads what v1 GetSbom answers of it; at most MAX_SBOM bytes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, NamedTuple

from platform_api.core import clock, validate
from platform_api.registry import images, sboms
from platform_api.registry.oci_import import repo_or_bad
from platform_api.service import imports
from platform_api.service.imports import BadInput

HELP = "an image's SBOM (SPDX 2.3 JSON or CycloneDX 1.5+ JSON): its packages and versions"
SPDX_VERSIONS = ("SPDX-2.3",)
# What SPDX 2.3 requires of a document (its clause 6) and of each package (clause 7) that an import reads or
# that tells a document from a stub; JSON names. `creationInfo` is checked apart (created, creators).
SPDX_DOCUMENT = ("dataLicense", "SPDXID", "name", "documentNamespace")
SPDX_PACKAGE = ("SPDXID", "name", "downloadLocation")
CYCLONEDX_VERSIONS = ("1.5", "1.6", "1.7")
MAX_PACKAGES = 200_000
MAX_DEPTH = 32  # nested CycloneDX components
LIMITS = {"name": 1024, "version": 256, "purl": 2048}
# The document is kept and answered whole (GetRawSbom: a JSON string, escapes at most double it): at this size
# the answer stays well below the server's answer backstop (api.dispatch.MAX_ENCODED_ANSWER, 64 MiB).
MAX_SBOM = 16 << 20


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_uid", help="the repo of the image")
    parser.add_argument("digest", help="the image's digest (sha256:...), known from `import oci`")
    parser.add_argument("file", type=Path, help="the SBOM: SPDX 2.3 JSON or CycloneDX 1.5+ JSON")


def _text(file: Path, place: str, value: Any, what: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise BadInput(file, place, f"{what} must be a non-empty string" if required else f"{what} must be a string")
    if len(value) > LIMITS[what]:
        raise BadInput(file, place, f"{what} is longer than {LIMITS[what]} characters")
    return value


def _list(file: Path, place: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadInput(file, place, f"must be a list, not {type(value).__name__}")
    return value


def spdx(file: Path, doc: dict[str, Any]) -> list[sboms.Package]:
    if doc.get("spdxVersion") not in SPDX_VERSIONS:
        version = str(doc.get("spdxVersion"))[:20]
        raise BadInput(
            file, "$.spdxVersion", f"unsupported SPDX version {version!r} (expected {' or '.join(SPDX_VERSIONS)})"
        )
    spdx_document(file, doc)
    out = []
    for i, p in enumerate(_list(file, "$.packages", doc.get("packages"))):
        place = f"$.packages[{i}]"
        if not isinstance(p, dict):
            raise BadInput(file, place, "a package must be an object")
        for field in SPDX_PACKAGE:
            _required(file, f"{place}.{field}", p.get(field), field, "an SPDX package")
        name = _text(file, f"{place}.name", p.get("name"), "name", required=True)
        version = _text(file, f"{place}.versionInfo", p.get("versionInfo"), "version")
        purl = ""
        for j, ref in enumerate(_list(file, f"{place}.externalRefs", p.get("externalRefs"))):
            if isinstance(ref, dict) and ref.get("referenceType") == "purl" and not purl:
                purl = _text(file, f"{place}.externalRefs[{j}].referenceLocator", ref.get("referenceLocator"), "purl")
        out.append(sboms.Package(name, version, purl))
    return out


def _required(file: Path, place: str, value: Any, field: str, of: str) -> None:
    if value is None:
        raise BadInput(file, place, f"missing: {of} requires {field}")
    if not isinstance(value, str) or not value.strip():
        raise BadInput(file, place, f"{field} must be a non-empty string")


def spdx_document(file: Path, doc: dict[str, Any]) -> None:
    """BadInput unless `doc` has what SPDX 2.3 requires of a document: a stub of packages alone is no SBOM (its
    import would replace the image's packages with its own)."""
    for field in SPDX_DOCUMENT:
        _required(file, f"$.{field}", doc.get(field), field, "an SPDX document")
    info = doc.get("creationInfo")
    if info is None:
        raise BadInput(file, "$.creationInfo", "missing: an SPDX document requires creationInfo")
    if not isinstance(info, dict):
        raise BadInput(file, "$.creationInfo", "creationInfo must be an object")
    _required(file, "$.creationInfo.created", info.get("created"), "created", "creationInfo")
    try:
        clock.parse(info["created"])
    except ValueError:
        created = info["created"][:40]
        raise BadInput(file, "$.creationInfo.created", f"{created!r} is not a time like 2024-01-31T12:00:00Z") from None
    creators = info.get("creators")
    if not isinstance(creators, list) or not creators:
        raise BadInput(file, "$.creationInfo.creators", "missing: creationInfo requires creators (a non-empty list)")
    for i, creator in enumerate(creators):
        if not isinstance(creator, str) or not creator.strip():
            raise BadInput(file, f"$.creationInfo.creators[{i}]", "a creator must be a non-empty string")


def cyclonedx(file: Path, doc: dict[str, Any]) -> list[sboms.Package]:
    if doc.get("specVersion") not in CYCLONEDX_VERSIONS:
        version = str(doc.get("specVersion"))[:20]
        want = ", ".join(CYCLONEDX_VERSIONS)
        raise BadInput(file, "$.specVersion", f"unsupported CycloneDX version {version!r} (expected one of {want})")
    out: list[sboms.Package] = []

    def walk(components: Any, place: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise BadInput(file, place, f"components nested deeper than {MAX_DEPTH}")
        for i, c in enumerate(_list(file, place, components)):
            here = f"{place}[{i}]"
            if not isinstance(c, dict):
                raise BadInput(file, here, "a component must be an object")
            name = _text(file, f"{here}.name", c.get("name"), "name", required=True)
            version = _text(file, f"{here}.version", c.get("version"), "version")
            out.append(sboms.Package(name, version, _text(file, f"{here}.purl", c.get("purl"), "purl")))
            if len(out) > MAX_PACKAGES:
                raise BadInput(file, here, f"more than {MAX_PACKAGES} packages")
            walk(c.get("components"), f"{here}.components", depth + 1)

    walk(doc.get("components"), "$.components", 1)
    return out


def parse(file: Path, raw: bytes) -> tuple[str, list[sboms.Package]]:
    """The SBOM's format ("spdx" or "cyclonedx") and its packages, sorted and unique."""
    doc = imports.load_json(file, raw)
    if not isinstance(doc, dict):
        raise BadInput(file, "$", "an SBOM must be a JSON object")
    if "spdxVersion" in doc:
        fmt, found = "spdx", spdx(file, doc)
    elif doc.get("bomFormat") == "CycloneDX":
        fmt, found = "cyclonedx", cyclonedx(file, doc)
    else:
        raise BadInput(file, "$", "neither SPDX (spdxVersion) nor CycloneDX (bomFormat) JSON")
    if len(found) > MAX_PACKAGES:
        raise BadInput(file, "$", f"more than {MAX_PACKAGES} packages")
    return fmt, sorted(set(found))


async def run(job: imports.Job) -> imports.Summary:
    repo, digest, file = job.args.repo_uid, job.args.digest, job.args.file
    if not validate.is_digest(digest):
        raise BadInput(file, "", f"digest {digest[:80]!r} is not sha256:<64 lowercase hex digits>")
    raw = imports.read_file(file, limit=MAX_SBOM)
    fmt, packages = parse(file, raw)
    job.progress.total = len(packages)
    summary = imports.Summary()
    async with job.rt.db.transaction() as tx:
        await repo_or_bad(tx, repo)
        if not await images.known(tx, repo, digest):
            raise BadInput(file, "", f"image {digest} is not known in repo {repo} (import its OCI content first)")
        change = await sboms.put(tx, repo, digest, fmt, packages, raw)
    job.progress.advance(len(packages))
    summary.count("created", change.added)
    summary.count("unchanged", change.kept)
    summary.kinds["sbom"] = {"created": 0, "updated": 0, "unchanged": 0} | {change.outcome: 1}
    summary.kinds["packages"] = {"created": change.added, "removed": change.removed, "unchanged": change.kept}
    return summary


class Described(NamedTuple):
    """What GetSbom answers of a kept document: the tools that made it, its authors, when, its name and
    description ("" and None where the document does not say)."""

    tool: str = ""
    authors: str = ""
    generated_at: str | None = None
    name: str = ""
    description: str = ""


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _time(value: Any) -> str | None:
    try:
        return clock.parse(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def describe(raw: bytes) -> Described:
    """The tool, authors, creation time, name and description a kept SPDX or CycloneDX document states
    (SPDX: creationInfo's "Tool:" and "Person:"/"Organization:" creators, its `created`, the document's name
    and comment; CycloneDX: metadata's tools, authors, timestamp and component name and description). It
    was valid when imported; whatever is missing or malformed answers empty."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return Described()
    if not isinstance(doc, dict):
        return Described()
    if "spdxVersion" in doc:
        info = _obj(doc.get("creationInfo"))
        creators = [_str(c) for c in info.get("creators") or []] if isinstance(info.get("creators"), list) else []
        by_tool = [c.split(":", 1)[1].strip() for c in creators if c.startswith("Tool:")]
        people = [c.split(":", 1)[1].strip() for c in creators if c.startswith(("Person:", "Organization:"))]
        return Described(", ".join(by_tool), ", ".join(people), _time(info.get("created")), _str(doc.get("name")),
                         _str(doc.get("comment")))  # fmt: skip
    meta = _obj(doc.get("metadata"))
    tools = meta.get("tools")
    listed = (
        _dicts(tools.get("components")) + _dicts(tools.get("services")) if isinstance(tools, dict) else _dicts(tools)
    )
    names = [" ".join(x for x in (_str(t.get("name")), _str(t.get("version"))) if x) for t in listed]
    authors = [_str(a.get("name")) for a in _dicts(meta.get("authors"))]
    component = _obj(meta.get("component"))
    return Described(", ".join(n for n in names if n), ", ".join(a for a in authors if a), _time(meta.get("timestamp")),
                     _str(component.get("name")), _str(component.get("description")))  # fmt: skip
