"""What every `platform-api import <kind>` shares: bounded reading of untrusted files, the one-line failure
naming file, place and problem, the progress bar and the JSON summary.

An importer is a module with `HELP` (one line), `arguments(parser)` (its command-line arguments) and
`async run(job) -> Summary`. It applies its input in one transaction (or in documented per-document units,
recording each unit it could not apply with `Summary.reject`), so a failure leaves the database as it was.
Re-importing the same input changes nothing (everything `unchanged`).
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import struct
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from platform_api.service import json_input
from platform_api.service.context import Context
from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime

# Bounds on what an import reads: one file, all members of a zip together (and the zip itself), and the
# number of files.
MAX_FILE = 64 << 20
MAX_TOTAL = 1 << 30
MAX_FILES = 1_000_000
# A zip member inflating more than this many times its stored size is refused (a zip bomb).
MAX_RATIO = 200
# A zip's central directory, which zipfile parses whole into memory (~650 bytes a member): 32 MiB is some
# 400,000 members named like OSV records, and at most 730,000 (~470 MB) of the smallest possible.
MAX_CENTRAL = 32 << 20
# JSON values in one file (keys and containers included): parsing costs up to ~80 bytes a value (short
# distinct strings; an empty object ~40) on top of the file, so at most ~550 MB, where 64 MiB of
# `[{},{},...]` (22 million values) took 1.76 GB. Realistic documents hold one value per 11 to 30 bytes
# (a compact PyPI JSON document: 16), so any of them up to MAX_FILE passes.
MAX_VALUES = 6_000_000
# Zip members read: stored and deflate (what OSV's exports and the common tools write). zipfile inflates a
# bzip2 or LZMA member whole whatever size is asked for (a 915-byte bzip2 zip reached 2.1 GB before the
# ratio check), while deflate inflates in steps of the size asked, so that the bounds hold as it reads.
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
ZIP_OTHER_METHODS = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "deflate64", 93: "zstandard", 95: "xz",
                     98: "PPMd", 99: "AES-encrypted"}  # fmt: skip


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


def _problem(path: str | os.PathLike[str], e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "a symlink loop"
    if e.errno == errno.ENOENT:
        return "a dangling symlink" if os.path.islink(path) else "no such file or directory"
    return e.strerror or str(e)


def _require_regular(path: Path, st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(path, "", "not a regular file")
    if st.st_size > limit:
        raise BadInput(path, "", f"{st.st_size} bytes is over the limit of {limit} bytes")


def open_regular(path: Path, limit: int) -> tuple[BinaryIO, int]:
    """Regular file `path` opened for reading, and its size (at most `limit`); BadInput for anything else
    (a device such as /dev/zero, a FIFO, a directory, a dangling or looping symlink). Checked before it is
    opened (a device is never opened) and again on the open file (nothing can be swapped in between), and
    opened non-blocking, so that not even a FIFO swapped in can hang the import."""
    try:
        _require_regular(path, os.stat(path), limit)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as e:
        raise BadInput(path, "", _problem(path, e)) from None
    f = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fd)
        _require_regular(path, st, limit)
    except BaseException:
        f.close()
        raise
    return f, st.st_size


def read_file(path: Path, root: Path | None = None, limit: int = MAX_FILE) -> bytes:
    """The bytes of regular file `path` (see `open_regular`), at most `limit`: exactly as many as its size
    says (a /proc or /sys file, whose size says 0, or a file being written, is refused). With `root`, `path`
    must lie inside it once symlinks are resolved (a layout or directory cannot point the import at other
    files)."""
    if root is not None:
        inside(path, root)
    f, size = open_regular(path, limit)
    with f:
        try:
            data = f.read(size + 1)
        except OSError as e:
            raise BadInput(path, "", _problem(path, e)) from None
    if len(data) != size:
        raise BadInput(path, "", f"its size says {size} bytes but it holds more or less (a /proc or /sys file, or "
                                 "one being written?)")  # fmt: skip
    return data


def inside(path: Path, root: Path) -> Path:
    """`path` with every symlink resolved; BadInput if it does not exist (a dangling or looping symlink
    included) or that leaves `root` (a `..` or a symlink pointing out)."""
    try:
        resolved = Path(os.path.realpath(path, strict=True))
        top = Path(os.path.realpath(root, strict=True))
    except OSError as e:
        raise BadInput(path, "", _problem(path, e)) from None
    if not resolved.is_relative_to(top):
        raise BadInput(path, "", f"points outside {root}")
    return resolved


def walk(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The files under directory `root` whose names end in one of `suffixes`, sorted; symlinked
    directories are not followed and a symlinked file must stay inside `root` (checked when read). A
    directory that cannot be listed fails the import (rather than being skipped)."""
    if not root.is_dir():
        raise BadInput(root, "", "not a directory")

    def unreadable(e: OSError) -> None:
        raise BadInput(e.filename or root, "", _problem(e.filename or root, e))

    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(suffixes):
                found.append(Path(dirpath) / name)
                if len(found) > MAX_FILES:
                    raise BadInput(root, "", f"more than {MAX_FILES} files")
    return found


def _central_directory(f: BinaryIO, size: int) -> tuple[int, int]:
    """(members, bytes) of the zip's central directory as its end record declares them (ZIP64's when the
    classic record defers to it); (0, 0) when there is no end record (zipfile then says what is wrong)."""
    tail_size = min(size, 22 + 0xFFFF + 20)  # the end record, its comment, the ZIP64 locator before it
    f.seek(size - tail_size)
    tail = f.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(tail):
        return 0, 0
    members, length = struct.unpack_from("<HI", tail, at + 10)
    locator = at - 20
    if (members == 0xFFFF or length == 0xFFFFFFFF) and locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        f.seek(struct.unpack_from("<Q", tail, locator + 8)[0])
        record = f.read(56)
        if record[:4] == b"PK\x06\x06" and len(record) == 56:
            members, length = struct.unpack_from("<QQ", record, 32)
    return members, length


def zip_members(path: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the zip's members ending in `suffixes`, bounded per member (`MAX_FILE`), in total
    (`MAX_TOTAL`) and in inflation ratio, whatever the zip's own headers claim: only stored and deflate
    members are read (see ZIP_METHODS). The archive must be a regular file of at most `MAX_TOTAL` bytes;
    its central directory (which zipfile holds in memory, ~650 bytes a member) at most `MAX_CENTRAL`
    bytes and `MAX_FILES` members, checked before it is parsed."""
    f, size = open_regular(path, MAX_TOTAL)
    with f:
        try:
            members, length = _central_directory(f, size)
            if members > MAX_FILES:
                raise BadInput(path, "", f"{members} members is over the limit of {MAX_FILES}")
            if length > MAX_CENTRAL:
                raise BadInput(path, "", f"a central directory of {length} bytes is over the limit of {MAX_CENTRAL}")
            archive = zipfile.ZipFile(f)
        except (OSError, EOFError, ValueError, zipfile.BadZipFile) as e:
            raise BadInput(path, "", f"not a readable zip: {e}") from None
        with archive:
            yield from _members(path, archive, suffixes)


def _members(path: Path, archive: zipfile.ZipFile, suffixes: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    infos = [i for i in archive.infolist() if not i.is_dir() and i.filename.endswith(suffixes)]
    if len(infos) > MAX_FILES:
        raise BadInput(path, "", f"more than {MAX_FILES} members")
    total = 0
    for info in infos:
        if info.compress_type not in ZIP_METHODS:
            method = ZIP_OTHER_METHODS.get(info.compress_type, f"method {info.compress_type}")
            raise BadInput(path, info.filename, f"{method} compression is not read (only stored and deflate members)")
        limit = min(MAX_FILE, MAX_TOTAL - total, max(info.compress_size, 1) * MAX_RATIO)
        try:
            with archive.open(info) as member:
                data = member.read(limit + 1)
        except (OSError, EOFError, ValueError, RuntimeError, zipfile.BadZipFile) as e:
            raise BadInput(path, info.filename, f"unreadable member: {e}") from None
        if len(data) > limit:
            raise BadInput(path, info.filename, "inflates beyond the import's bounds (a zip bomb?)")
        total += len(data)
        yield info.filename, data


def load_json(file: str | os.PathLike[str], data: bytes, max_values: int = MAX_VALUES) -> Any:
    """`data` parsed as JSON within `json_input`'s rules (UTF-8, at most `max_values` values, finite numbers,
    no NUL or lone surrogate in strings); BadInput naming line:column or the JSON path otherwise."""
    try:
        return json_input.parse(data, max_values)
    except json_input.Refused as e:
        raise BadInput(file, e.place, e.problem) from None
