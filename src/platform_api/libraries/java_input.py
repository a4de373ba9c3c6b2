"""Maven repository files: `maven-metadata.xml` (groupId, artifactId, versioning/{latest, release, versions,
lastUpdated}) and POMs (`<project>` groupId/artifactId/version/name/description, groupId and version
inherited from `<parent>`).

XML is parsed with the standard library's expat parser, but only after refusing any document type
declaration (`<!DOCTYPE`, hence any entity definition: no external entities, no entity expansion) and
within a byte bound. The artifact uid is `java:<groupId>:<artifactId>`, its name `<groupId>:<artifactId>`.
A version's size is that of the jar beside its POM (`<artifactId>-<version>.jar`) when there is one.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from platform_api.core.patterns import Pattern
from platform_api.libraries import facts
from platform_api.libraries.facts import Collected
from platform_api.service.imports import BadInput

MAX_XML = 8 << 20
_ID = Pattern(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_VERSION = Pattern(r"[A-Za-z0-9][A-Za-z0-9._+\-]*")
_TIMESTAMP = Pattern(r"[0-9]{14}")
_XML_SPACE = b" \t\n\r\x0b\x0c"


def _declaration(data: bytes) -> int:
    """Where `<!` followed by optional whitespace and DOCTYPE or ENTITY (any case) begins, or -1. Each
    whitespace run is read once, after the one `<!` it follows: linear in `data`."""
    at = data.find(b"<!")
    while at >= 0:
        i = at + 2
        while i < len(data) and data[i] in _XML_SPACE:
            i += 1
        word = data[i : i + 7].upper()
        if word == b"DOCTYPE" or word[:6] == b"ENTITY":
            return at
        at = data.find(b"<!", i)
    return -1


def uid_of(group: str, artifact: str) -> str:
    return f"java:{group}:{artifact}"


def is_input(path: Path) -> bool:
    return path.name.endswith(".pom") or (path.name.startswith("maven-metadata") and path.name.endswith(".xml"))


def _tag(el: ET.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _child(el: ET.Element, name: str) -> ET.Element | None:
    for c in el:
        if _tag(c) == name:
            return c
    return None


def _load(file: str, data: bytes) -> ET.Element:
    if len(data) > MAX_XML:
        raise BadInput(file, "", f"{len(data)} bytes is over the XML limit of {MAX_XML} bytes")
    # UTF-8 only, no NUL: then the declaration check below sees what the parser will see (in UTF-16 a
    # DOCTYPE would not match the ASCII pattern).
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(file, f"byte {e.start}", "not UTF-8 text (the only encoding accepted)") from None
    if b"\x00" in data:
        raise BadInput(file, f"byte {data.index(0)}", "NUL byte in XML")
    at = _declaration(data)
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        col = at - (data.rfind(b"\n", 0, at) + 1) + 1
        raise BadInput(file, f"{line}:{col}", "document type declarations (DOCTYPE/ENTITY) are refused")
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise BadInput(file, f"{line}:{col + 1}", f"malformed XML: {str(e).split(':', 1)[0]}") from None


def _value(file: str, el: ET.Element, path: str, name: str, pattern: Pattern | None) -> str | None:
    c = _child(el, name)
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
    if _tag(root) == "metadata":
        _metadata(file, root, out)
    elif _tag(root) == "project":
        _pom(path, root, out)
    else:
        raise BadInput(file, f"/{_tag(root)}", "expected <metadata> (maven-metadata.xml) or <project> (a POM)")


def _metadata(file: str, root: ET.Element, out: Collected) -> None:
    if _child(root, "artifactId") is None and _child(root, "plugins") is not None:
        return  # a group's plugin-prefix metadata: no artifact
    group = _required(file, root, "/metadata", "groupId", _ID)
    artifact_id = _required(file, root, "/metadata", "artifactId", _ID)
    a = out.artifact(uid_of(group, artifact_id), "java", f"{group}:{artifact_id}")
    own = _value(file, root, "/metadata", "version", _VERSION)
    if own is not None:  # a snapshot version's own metadata
        a.version(file, "/metadata/version", own)
    versioning = _child(root, "versioning")
    if versioning is None:
        return
    for name in ("latest", "release"):
        v = _value(file, versioning, "/metadata/versioning", name, _VERSION)
        if v:
            a.version(file, f"/metadata/versioning/{name}", v)
    versions = _child(versioning, "versions")
    if versions is not None:
        n = 0
        for c in versions:
            if _tag(c) != "version":
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
    parent = _child(root, "parent")
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
