"""What the tests of `platform-api import <kind>` given what is not a readable input file share
(test_import_inputs.py: the feeds; test_import_image_inputs.py: the imports into an image): the odd paths, the
problem each is refused with, and a refused import's measured run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.helpers import refusal_of

REPO = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef"
DIGEST = "sha256:" + "a" * 64
ADDRESS_SPACE = 3 << 30
PEAK_MIB = 256  # an import's own start costs ~55 MiB


# The import runs as the grandchild of a small Python that caps its address space and reads its peak RSS
# from wait4: a direct child would report at least this (large) process's RSS at fork (Linux carries it
# over exec). No preexec_fn here either: this process may run gRPC threads, whose fork handlers Python code
# between fork and exec can trip.
MEASURED = """
import os, resource, subprocess, sys
cap = int(sys.argv[2])
child = subprocess.Popen([sys.executable, "-m", "platform_api.cli", *sys.argv[3:]],
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run_measured(server: Any, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """`platform-api import <args>` on the server's database (as `tests.helpers.run_import`, under the capped
    address space): the completed process and its peak RSS in MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        peak = Path(tmp) / "peak"
        cmd = [sys.executable, "-c", MEASURED, str(peak), str(ADDRESS_SPACE), "import", *args,
               "--database", server.database_url]  # fmt: skip
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return r, int(peak.read_text()) / 1024


def refused(server: Any, *args: str) -> tuple[dict[str, str], str]:
    """An import refused in one line, with a bounded peak RSS: its JSON error and the line."""
    r, peak_mib = run_measured(server, *args)
    error, line = refusal_of(r)
    assert peak_mib < PEAK_MIB, (peak_mib, r)
    return error, line


def odd_paths(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Paths that are no regular file: a FIFO (a writer held open, so that a regression reads rather than
    hangs), dangling and looping symlinks, a directory, and files that say one size and hold another."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "loop-a.json").symlink_to(tmp_path / "loop-b.json")
    (tmp_path / "loop-b.json").symlink_to(tmp_path / "loop-a.json")
    (tmp_path / "dir.json").mkdir()
    yield {
        "device": Path("/dev/zero"),
        "fifo": fifo,
        "dangling": tmp_path / "dangling.json",
        "loop": tmp_path / "loop-a.json",
        "proc": Path("/proc/self/environ"),
        "directory": tmp_path / "dir.json",
    }
    os.close(writer)


PROBLEMS = {
    "device": "not a regular file",
    "fifo": "not a regular file",
    "dangling": "a dangling symlink",
    "loop": "a symlink loop",
    "proc": "its size says 0 bytes but it holds more or less (a /proc or /sys file, or one being written?)",
    "directory": "not a regular file",
}
# The arguments before and after the path, for each importer; a directory is an input for osv and libraries.
KINDS = {
    "osv": (("osv",), ()),
    "libraries": (("libraries", "python"), ()),
    "sbom": (("sbom", REPO, DIGEST), ()),
    "vulnreport": (("vulnreport", REPO, DIGEST), ()),
    "eol": (("eol", REPO, "python"), ()),
    "oci": (("oci", REPO), ()),
}
# The feeds (test_import_inputs.py) and the imports into an image (test_import_image_inputs.py): every kind once.
FEEDS = ["libraries", "osv"]
IMAGE_IMPORTS = sorted(set(KINDS) - set(FEEDS))


def refused_everywhere(server: Any, odd: dict[str, Path], kind: str) -> None:
    """Each odd path given to `platform-api import <kind>` is refused with its problem, in one line."""
    before, after = KINDS[kind]
    for case, path in odd.items():
        if case == "directory" and kind in ("osv", "libraries", "oci"):
            continue  # a directory is one of their inputs
        if kind == "oci" and case in ("dangling", "loop"):
            continue  # registry/oci.py (not this brief's) checks existence first: "no such file or directory"
        # `import osv` reads a path without .json as a zip: a /proc file's size (0) says it holds none.
        problem = "not a readable zip: File is not a zip file" if (kind, case) == ("osv", "proc") else PROBLEMS[case]
        error, line = refused(server, *before, str(path), *after)
        assert (error["file"], error["problem"]) == (str(path), problem), (kind, case, error)
        assert line == f"platform-api import {kind}: {path}: {problem}"
