"""What an import learns about artifacts before it touches the database, merged across its files."""

from __future__ import annotations

from dataclasses import dataclass, field

from platform_api.core.patterns import Pattern
from platform_api.service.imports import BadInput

# Bounds on what one artifact may carry (beyond the per-file byte limit of service.imports).
MAX_VERSIONS = 20_000
MAX_FILES_PER_VERSION = 2_000
MAX_NAME = 200
MAX_VERSION = 128
MAX_DESCRIPTION = 4_096
# A distribution file's size (1 PiB, as an OCI descriptor's): a version's sum of at most
# MAX_FILES_PER_VERSION of them stays far inside the 64-bit size column.
MAX_SIZE = 1 << 50
# Versions and distribution files one import holds before it writes (about 250 bytes each in memory): an
# import checks everything before its one transaction, so its memory grows with its input. Beyond: split it
# (imports merge).
MAX_RECORDS = 1_000_000

_CONTROL = Pattern(r"[\x00-\x20\x7f]")


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
class Budget:
    """The versions and files an import may still collect (MAX_RECORDS), shared by its artifacts."""

    limit: int = MAX_RECORDS
    used: int = 0

    def take(self, file: str, place: str) -> None:
        if self.used >= self.limit:
            raise BadInput(file, place, f"more than {self.limit} versions and files in one import (split the "
                                        "input: imports merge)")  # fmt: skip
        self.used += 1


@dataclass
class ArtifactFacts:
    uid: str
    ecosystem: str
    name: str
    versions: dict[str, VersionFacts] = field(default_factory=dict)
    # Java: maven-metadata.xml's versioning/lastUpdated.
    last_updated: str | None = None
    budget: Budget = field(default_factory=Budget, repr=False, compare=False)

    def version(self, file: str, place: str, text: str) -> VersionFacts:
        facts = self.versions.get(text)
        if facts is None:
            if len(self.versions) >= MAX_VERSIONS:
                raise BadInput(file, place, f"more than {MAX_VERSIONS} versions of {self.name}")
            self.budget.take(file, place)
            facts = self.versions[text] = VersionFacts()
        return facts

    def file(self, file: str, place: str, version: str, filename: str, fact: FileFact) -> None:
        """Record distribution file `filename` of `version` (a file seen again replaces the earlier fact)."""
        v = self.version(file, place, version)
        if filename not in v.files:
            if len(v.files) >= MAX_FILES_PER_VERSION:
                raise BadInput(file, place, f"more than {MAX_FILES_PER_VERSION} files in version {version}")
            self.budget.take(file, place)
        v.files[filename] = fact


class Collected:
    """Every artifact an import's files describe, by uid."""

    def __init__(self, budget: int = MAX_RECORDS) -> None:
        self.artifacts: dict[str, ArtifactFacts] = {}
        self.budget = Budget(budget)

    def artifact(self, uid: str, ecosystem: str, name: str) -> ArtifactFacts:
        a = self.artifacts.get(uid)
        if a is None:
            a = self.artifacts[uid] = ArtifactFacts(uid, ecosystem, name, budget=self.budget)
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
