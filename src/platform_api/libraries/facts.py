"""What an import learns about artifacts before it touches the database, merged across its files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from platform_api.service.imports import BadInput

# Bounds on what one artifact may carry (beyond the per-file byte limit of service.imports).
MAX_VERSIONS = 20_000
MAX_FILES_PER_VERSION = 2_000
MAX_NAME = 200
MAX_VERSION = 128
MAX_DESCRIPTION = 4_096

_CONTROL = re.compile(r"[\x00-\x20\x7f]")


@dataclass
class FileFact:
    """One distribution file of a Python version (deduplicated by file name across documents)."""

    size: int | None = None
    upload_time: str | None = None
    yanked: bool = False


@dataclass
class VersionFacts:
    files: dict[str, FileFact] = field(default_factory=dict)
    description: str | None = None
    # Java: the size of the jar beside the POM, when there is one.
    size: int | None = None

    def resolved(self) -> tuple[int | None, str | None, str | None, bool | None]:
        """(size, first upload, last upload, yanked) from the files; None where the input said nothing."""
        if not self.files:
            return self.size, None, None, None
        sizes = [f.size for f in self.files.values() if f.size is not None]
        times = [f.upload_time for f in self.files.values() if f.upload_time]
        size = sum(sizes) if sizes else self.size
        yanked = all(f.yanked for f in self.files.values())
        return size, (min(times) if times else None), (max(times) if times else None), yanked


@dataclass
class ArtifactFacts:
    uid: str
    ecosystem: str
    name: str
    versions: dict[str, VersionFacts] = field(default_factory=dict)
    # Java: maven-metadata.xml's versioning/lastUpdated.
    last_updated: str | None = None

    def version(self, file: str, place: str, text: str) -> VersionFacts:
        facts = self.versions.get(text)
        if facts is None:
            if len(self.versions) >= MAX_VERSIONS:
                raise BadInput(file, place, f"more than {MAX_VERSIONS} versions of {self.name}")
            facts = self.versions[text] = VersionFacts()
        return facts


class Collected:
    """Every artifact an import's files describe, by uid."""

    def __init__(self) -> None:
        self.artifacts: dict[str, ArtifactFacts] = {}

    def artifact(self, uid: str, ecosystem: str, name: str) -> ArtifactFacts:
        a = self.artifacts.get(uid)
        if a is None:
            a = self.artifacts[uid] = ArtifactFacts(uid, ecosystem, name)
        return a


def text(file: str, place: str, value: object, what: str, limit: int = MAX_NAME, empty: bool = False) -> str:
    """`value` as a bounded string; BadInput naming the place otherwise."""
    if not isinstance(value, str):
        raise BadInput(file, place, f"{what} must be a string, not {type(value).__name__}")
    if not value and not empty:
        raise BadInput(file, place, f"{what} must not be empty")
    if len(value) > limit:
        raise BadInput(file, place, f"{what} is longer than {limit} characters")
    return value


def version_text(file: str, place: str, value: object) -> str:
    v = text(file, place, value, "version", MAX_VERSION)
    if _CONTROL.search(v):
        raise BadInput(file, place, f"version {v!r} contains whitespace or control characters")
    return v
