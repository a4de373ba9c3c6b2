"""What every `platform-api import <kind>` shares: bounded reading of untrusted files, the one-line failure
naming file, place and problem, the progress bar and the JSON summary.

An importer is a module with `HELP` (one line), `arguments(parser)` (its command-line arguments) and
`async run(job) -> Summary`. It applies its input in one transaction (or in documented per-document units,
recording each unit it could not apply with `Summary.reject`), so a failure leaves the database as it was.
Re-importing the same input changes nothing (everything `unchanged`).
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from platform_api.service.context import Context
from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime

# Bounds on what an import reads: one file, all members of a zip together, and the number of files.
MAX_FILE = 64 << 20
MAX_TOTAL = 1 << 30
MAX_FILES = 1_000_000
# A zip member inflating more than this many times its stored size is refused (a zip bomb).
MAX_RATIO = 200


class BadInput(Exception):
    """The input cannot be imported: `file`, the `place` in it (line:column, a JSON path, a member) and
    the `problem`. Raised out of `run`, it aborts the import and its transaction."""

    def __init__(self, file: str | os.PathLike[str], place: str, problem: str) -> None:
        self.file, self.place, self.problem = str(file), place, problem
        super().__init__(f"{self.file}: {place}: {problem}" if place else f"{self.file}: {problem}")

    def as_json(self) -> dict[str, str]:
        return {"file": self.file, "place": self.place, "problem": self.problem}


@dataclass
class Summary:
    """What an import did, printed as JSON at its end."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[dict[str, str]] = field(default_factory=list)
    # The same outcomes per kind of thing imported (e.g. manifests, indexes, tags), when it has several.
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, outcome: str, n: int = 1) -> None:
        """Tally one outcome: "created", "updated" or "unchanged"."""
        setattr(self, outcome, getattr(self, outcome) + n)

    def tally(self, kind: str, outcome: str) -> None:
        """Tally one outcome in the totals and under `kind`."""
        self.count(outcome)
        per = self.kinds.setdefault(kind, {"created": 0, "updated": 0, "unchanged": 0})
        per[outcome] += 1

    def reject(self, bad: BadInput) -> None:
        self.rejected.append(bad.as_json())

    def as_json(self) -> dict[str, Any]:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged,
                "rejected": self.rejected, **self.kinds}  # fmt: skip


class Progress:
    """A one-line progress bar on stderr when it is a terminal (redrawn at most 10 times a second);
    silent otherwise, so scripts get only the JSON summary."""

    def __init__(self, label: str, total: int = 0, stream: TextIO | None = None) -> None:
        self.label, self.total, self.done = label, total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self._drawn = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.live and time.monotonic() - self._drawn >= 0.1:
            self._draw()

    def finish(self) -> None:
        if self.live:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        if self.total:
            filled = min(30, 30 * self.done // self.total)
            bar = f"[{'#' * filled}{' ' * (30 - filled)}] {self.done}/{self.total}"
        else:
            bar = f"{self.done}"
        self.stream.write(f"\r{self.label} {bar}")
        self.stream.flush()


@dataclass
class Job:
    """One import run: the runtime (database, settings), the parsed arguments, the progress bar, and the
    contract's methods by full name (for the events an import emits as if the method had been called)."""

    rt: Runtime
    args: argparse.Namespace
    progress: Progress
    methods: Callable[[str], MethodInfo]

    def context(self, method: str) -> Context:
        """A Context for writes on behalf of `method` (e.g. '...TagsService.CreateTag'): its events are the
        method's, with no actor subject (the operator's command line, not an API identity)."""
        return Context(method=method, rt=self.rt, info=self.methods(method), request_id="import")


def read_file(path: Path, root: Path | None = None, limit: int = MAX_FILE) -> bytes:
    """The bytes of regular file `path`, at most `limit`. With `root`, `path` must lie inside it once
    symlinks are resolved (a layout or directory cannot point the import at other files)."""
    try:
        st = path.stat()
        if root is not None:
            inside(path, root)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(path, "", "not a regular file")
        if st.st_size > limit:
            raise BadInput(path, "", f"{st.st_size} bytes is over the limit of {limit} bytes")
        with path.open("rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise BadInput(path, "", e.strerror or str(e)) from None
    if len(data) > limit:
        raise BadInput(path, "", f"over the limit of {limit} bytes")
    return data


def inside(path: Path, root: Path) -> Path:
    """`path` resolved; BadInput if that leaves `root` (a `..` or a symlink pointing out)."""
    resolved = path.resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise BadInput(path, "", f"points outside {root}")
    return resolved


def walk(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The files under directory `root` whose names end in one of `suffixes`, sorted; symlinked
    directories are not followed and a symlinked file must stay inside `root` (checked when read)."""
    if not root.is_dir():
        raise BadInput(root, "", "not a directory")
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(suffixes):
                found.append(Path(dirpath) / name)
                if len(found) > MAX_FILES:
                    raise BadInput(root, "", f"more than {MAX_FILES} files")
    return found


def zip_members(path: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the zip's members ending in `suffixes`, bounded per member (`MAX_FILE`), in total
    (`MAX_TOTAL`) and in inflation ratio, whatever the zip's own headers claim."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        raise BadInput(path, "", f"not a readable zip: {e}") from None
    total = 0
    with archive:
        infos = [i for i in archive.infolist() if not i.is_dir() and i.filename.endswith(suffixes)]
        if len(infos) > MAX_FILES:
            raise BadInput(path, "", f"more than {MAX_FILES} members")
        for info in infos:
            limit = min(MAX_FILE, MAX_TOTAL - total, max(info.compress_size, 1) * MAX_RATIO)
            try:
                with archive.open(info) as member:
                    data = member.read(limit + 1)
            except (OSError, zipfile.BadZipFile, RuntimeError, EOFError) as e:
                raise BadInput(path, info.filename, f"unreadable member: {e}") from None
            if len(data) > limit:
                raise BadInput(path, info.filename, "inflates beyond the import's bounds (a zip bomb?)")
            total += len(data)
            yield info.filename, data


def load_json(file: str | os.PathLike[str], data: bytes) -> Any:
    """`data` parsed as JSON; BadInput with line:column on a syntax error."""
    try:
        return json.loads(data)
    except UnicodeDecodeError as e:
        raise BadInput(file, f"byte {e.start}", "not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise BadInput(file, f"{e.lineno}:{e.colno}", f"malformed JSON: {e.msg}") from None
    except RecursionError:
        raise BadInput(file, "", "JSON nested too deeply") from None
