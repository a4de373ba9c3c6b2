"""`platform-api import <kind>` of a feed (osv, libraries) given what is not a readable input file (issue 16): a
device, a FIFO, a directory where a file is expected, a dangling or looping symlink, a /proc file, zip members
compressed with bzip2 or LZMA, a file of millions of empty objects, a record with a NUL. Each is refused with
exit code 1 and one line on stderr, writes nothing, and stays within a bounded memory: the child's peak resident
size, read from its rusage (its address space is also capped, so that even a regression cannot take the
machine's memory). The imports into an image: test_import_image_inputs.py.

One backend: inputs are refused before any SQL (tests/helpers/backends.py), except the NUL, which both
dialects would store differently."""

from __future__ import annotations

import json
import secrets
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.functional.ops.import_inputs import FEEDS, odd_paths, refused, refused_everywhere

pytestmark = pytest.mark.one_backend


@pytest.fixture
def odd(tmp_path: Path) -> Iterator[dict[str, Path]]:
    yield from odd_paths(tmp_path)


@pytest.mark.parametrize("kind", FEEDS)
def test_every_feed_importer_reads_regular_files_only(server: Any, odd: dict[str, Path], kind: str) -> None:
    refused_everywhere(server, odd, kind)


def test_a_directory_holding_an_odd_entry_writes_nothing(server: Any, anon: httpx.Client, odd: dict[str, Path]) -> None:
    folder = odd["fifo"].parent
    osv_id = f"PA-{secrets.token_hex(4)}"
    (folder / "a-good.json").write_text(json.dumps({"id": osv_id, "modified": "2024-01-01T00:00:00Z"}))
    error, _ = refused(server, "osv", str(folder))
    assert error["file"] == str(folder / "dangling.json") and error["problem"] == "a dangling symlink"
    (folder / "dangling.json").unlink()
    error, _ = refused(server, "osv", str(folder))
    assert error["file"] == str(folder / "fifo.json") and error["problem"] == "not a regular file"
    r = anon.get("/advisory/v2/metadata", params={"ids": osv_id})
    assert r.status_code == 200 and r.json()["totalCount"] == "0", r.text


@pytest.mark.both_backends  # PostgreSQL's text cannot hold a NUL, SQLite's can: refused before either
def test_a_nul_in_a_record_is_refused_and_writes_nothing(server: Any, anon: httpx.Client, tmp_path: Path) -> None:
    good, bad = f"PA-{secrets.token_hex(4)}", f"PA-{secrets.token_hex(4)}"
    (tmp_path / "a.json").write_text(json.dumps({"id": good, "modified": "2024-01-01T00:00:00Z"}))
    (tmp_path / "b.json").write_text(json.dumps({"id": bad, "modified": "2024-01-01T00:00:00Z", "summary": "a\x00"}))
    error, _ = refused(server, "osv", str(tmp_path))
    assert error == {"file": str(tmp_path / "b.json"), "place": "$.summary", "problem": "contains a NUL character"}
    r = anon.get("/advisory/v2/metadata", params={"ids": [good, bad]})
    assert r.status_code == 200 and r.json()["totalCount"] == "0", r.text


def _bomb(path: Path, method: int, inflated: int) -> Path:
    with zipfile.ZipFile(path, "w", method) as z, z.open("bomb.json", "w") as member:
        chunk = b" " * (1 << 20)
        for _ in range(inflated >> 20):
            member.write(chunk)
    return path


@pytest.mark.parametrize(("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "LZMA")])
def test_bzip2_and_lzma_bombs_are_refused_unread(server: Any, tmp_path: Path, method: int, name: str) -> None:
    """Built small here (256 MiB inflated: the issue's 915-byte bzip2 zip inflated to 2 GB); zipfile would
    inflate the member whole before any bound applied."""
    bomb = _bomb(tmp_path / f"{name}.zip", method, 256 << 20)
    assert bomb.stat().st_size < 100_000
    error, line = refused(server, "osv", str(bomb))
    problem = f"{name} compression is not read (only stored and deflate members)"
    assert error == {"file": str(bomb), "place": "bomb.json", "problem": problem}
    assert line == f"platform-api import osv: {bomb}: bomb.json: {problem}"


def test_a_flood_of_empty_objects_is_refused_before_parsing(server: Any, tmp_path: Path) -> None:
    """64 MiB of `[{},{},...]` parsed into 22 million dicts (1.76 GB RSS): refused on the count of values."""
    flood = tmp_path / "flood.json"
    with flood.open("wb") as f:
        f.write(b"[")
        f.write(b"{}," * ((64 << 20) // 3 - 1))
        f.write(b"{}]")
    error, _ = refused(server, "osv", str(flood))
    assert error["problem"] == "more than 6000000 JSON values (each key counts as one)"
