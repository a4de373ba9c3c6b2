"""Maven repository files: `maven-metadata.xml` (groupId, artifactId, versioning/{latest, release, versions,
lastUpdated}) and POMs (`<project>` groupId/artifactId/version/name/description, groupId and version
inherited from `<parent>`).

XML is parsed by `core.safe_xml` (expat, within a byte bound, no document type declaration). The artifact
uid is `java:<groupId>:<artifactId>`, its name `<groupId>:<artifactId>`. A version's size is that of the jar
beside its POM (`<artifactId>-<version>.jar`) when there is one.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from platform_api.core import safe_xml
from platform_api.core.patterns import Pattern
from platform_api.libraries import facts
from platform_api.libraries.facts import Collected
from platform_api.service.imports import BadInput

MAX_XML = 8 << 20
_ID = Pattern(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_VERSION = Pattern(r"[A-Za-z0-9][A-Za-z0-9._+\-]*")
_TIMESTAMP = Pattern(r"[0-9]{14}")


def uid_of(group: str, artifact: str) -> str:
    return f"java:{group}:{artifact}"


def is_input(path: Path) -> bool:
    return path.name.endswith(".pom") or (path.name.startswith("maven-metadata") and path.name.endswith(".xml"))


def _load(file: str, data: bytes) -> ET.Element:
    try:
        return safe_xml.parse(data, MAX_XML)
    except safe_xml.Refused as e:
        raise BadInput(file, e.where, e.reason) from None


def _value(file: str, el: ET.Element, path: str, name: str, pattern: Pattern | None) -> str | None:
    c = safe_xml.child(el, name)
    if c is None:
        return None
    if len(c):
        raise BadInput(file, f"{path}/{name}", f"<{name}> must hold text, not elements")
    text = (c.text or "").strip()
    if pattern is None:  # free text (name, description): cut to length by the caller
        return text
    limit = facts.MAX_VERSION if name == "version" else facts.MAX_NAME
    if len(text) > limit:
        raise BadInput(file, f"{path}/{name}", f"<{name}> is longer than {limit} characters")
    if not pattern.fullmatch(text):
        raise BadInput(file, f"{path}/{name}", f"<{name}> {text[:80]!r} is not a valid Maven {name}")
    return text


def _required(file: str, el: ET.Element, path: str, name: str, pattern: Pattern) -> str:
    v = _value(file, el, path, name, pattern)
    if v is None:
        raise BadInput(file, path, f"<{name}> is missing")
    return v


def parse(path: Path, data: bytes, out: Collected) -> None:
    file = str(path)
    root = _load(file, data)
    if safe_xml.local_name(root) == "metadata":
        _metadata(file, root, out)
    elif safe_xml.local_name(root) == "project":
        _pom(path, root, out)
    else:
        raise BadInput(
            file, f"/{safe_xml.local_name(root)}", "expected <metadata> (maven-metadata.xml) or <project> (a POM)"
        )


def _metadata(file: str, root: ET.Element, out: Collected) -> None:
    if safe_xml.child(root, "artifactId") is None and safe_xml.child(root, "plugins") is not None:
        return  # a group's plugin-prefix metadata: no artifact
    group = _required(file, root, "/metadata", "groupId", _ID)
    artifact_id = _required(file, root, "/metadata", "artifactId", _ID)
    a = out.artifact(uid_of(group, artifact_id), "java", f"{group}:{artifact_id}")
    own = _value(file, root, "/metadata", "version", _VERSION)
    if own is not None:  # a snapshot version's own metadata
        a.version(file, "/metadata/version", own)
    versioning = safe_xml.child(root, "versioning")
    if versioning is None:
        return
    for name in ("latest", "release"):
        v = _value(file, versioning, "/metadata/versioning", name, _VERSION)
        if v:
            a.version(file, f"/metadata/versioning/{name}", v)
    versions = safe_xml.child(versioning, "versions")
    if versions is not None:
        n = 0
        for c in versions:
            if safe_xml.local_name(c) != "version":
                continue
            n += 1
            place = f"/metadata/versioning/versions/version[{n}]"
            text = (c.text or "").strip()
            if len(c) or len(text) > facts.MAX_VERSION or not _VERSION.fullmatch(text):
                raise BadInput(file, place, f"{text[:80]!r} is not a valid Maven version")
            a.version(file, place, text)
    updated = _value(file, versioning, "/metadata/versioning", "lastUpdated", _TIMESTAMP)
    if updated is not None:
        try:
            t = datetime.strptime(updated, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            raise BadInput(
                file, "/metadata/versioning/lastUpdated", f"{updated!r} is not a yyyyMMddHHmmss time"
            ) from None
        a.last_updated = t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _pom(path: Path, root: ET.Element, out: Collected) -> None:
    file = str(path)
    parent = safe_xml.child(root, "parent")
    group = _value(file, root, "/project", "groupId", _ID)
    version = _value(file, root, "/project", "version", _VERSION)
    if parent is not None:
        group = group or _value(file, parent, "/project/parent", "groupId", _ID)
        version = version or _value(file, parent, "/project/parent", "version", _VERSION)
    if not group:
        raise BadInput(file, "/project", "<groupId> is missing (neither the project nor its parent has one)")
    if not version:
        raise BadInput(file, "/project", "<version> is missing (neither the project nor its parent has one)")
    artifact_id = _required(file, root, "/project", "artifactId", _ID)
    a = out.artifact(uid_of(group, artifact_id), "java", f"{group}:{artifact_id}")
    v = a.version(file, "/project/version", version)
    description = _value(file, root, "/project", "description", None)
    name = _value(file, root, "/project", "name", None)
    v.description = " ".join((description or name or "").split())[: facts.MAX_DESCRIPTION]
    jar = path.with_name(f"{artifact_id}-{version}.jar")
    try:
        if jar.is_file() and not jar.is_symlink():
            v.size = jar.stat().st_size
    except OSError:
        pass
