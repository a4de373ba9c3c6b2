"""service.imports: the bounded reading every importer relies on (regular files only, sizes, symlinks out of a
root or nowhere, zip bombs and methods, JSON places, values, numbers and strings) and the summary/progress
it prints."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from platform_api.service import imports
from platform_api.service.imports import BadInput


def test_read_file_refuses_oversize_and_non_regular(tmp_path: Path) -> None:
    f = tmp_path / "big.json"
    with f.open("wb") as out:  # sparse: the size is what counts, not the disk
        out.truncate(200 << 20)
    with pytest.raises(BadInput) as e:
        imports.read_file(f)
    assert e.value.file == str(f) and "over the limit" in e.value.problem
    with pytest.raises(BadInput, match="not a regular file"):
        imports.read_file(tmp_path)
    with pytest.raises(BadInput) as e:
        imports.read_file(tmp_path / "missing")
    assert e.value.problem == "no such file or directory"
    (tmp_path / "ok").write_bytes(b"abc")
    assert imports.read_file(tmp_path / "ok", limit=3) == b"abc"
    with pytest.raises(BadInput):
        imports.read_file(tmp_path / "ok", limit=2)


def test_symlinks_and_dotdot_out_of_the_root_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "layout", tmp_path / "secret"
    root.mkdir()
    outside.write_text("x")
    (root / "link").symlink_to(outside)
    (root / "inner").write_text("y")
    (root / "inner-link").symlink_to(root / "inner")
    with pytest.raises(BadInput, match="points outside"):
        imports.read_file(root / "link", root=root)
    with pytest.raises(BadInput, match="points outside"):
        imports.read_file(root / ".." / "secret", root=root)
    assert imports.read_file(root / "inner-link", root=root) == b"y"


def test_walk_is_sorted_filtered_and_does_not_follow_directory_links(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.yaml").write_text("")
    (tmp_path / "1.yaml").write_text("")
    (tmp_path / "notes.txt").write_text("")
    elsewhere = tmp_path.parent / (tmp_path.name + "-elsewhere")
    elsewhere.mkdir()
    (elsewhere / "3.yaml").write_text("")
    (tmp_path / "a").symlink_to(elsewhere, target_is_directory=True)
    assert [p.relative_to(tmp_path).as_posix() for p in imports.walk(tmp_path, (".yaml",))] == ["1.yaml", "b/2.yaml"]
    with pytest.raises(BadInput, match="not a directory"):
        imports.walk(tmp_path / "1.yaml", (".yaml",))


def test_zip_members_bounded_against_bombs(tmp_path: Path) -> None:
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.json", b'{"id": 1}')
        z.writestr("skip.txt", b"x")
    assert list(imports.zip_members(good, (".json",))) == [("a.json", b'{"id": 1}')]
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb.json", b"0" * (20 << 20))  # ~20 KB stored, 20 MB inflated: over 200x
    assert os.path.getsize(bomb) < 100_000
    with pytest.raises(BadInput) as e:
        list(imports.zip_members(bomb, (".json",)))
    assert e.value.place == "bomb.json" and "zip bomb" in e.value.problem
    (tmp_path / "not.zip").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(BadInput, match="not a readable zip"):
        list(imports.zip_members(tmp_path / "not.zip", (".json",)))


def test_load_json_names_line_and_column() -> None:
    with pytest.raises(BadInput) as e:
        imports.load_json("f.json", b'{\n  "a": 1,\n  "b": }')
    assert str(e.value).startswith("f.json: 3:8: malformed JSON")
    with pytest.raises(BadInput, match="not UTF-8"):
        imports.load_json("f.json", b'"\xff"')
    assert imports.load_json("f.json", b'{"a": [1]}') == {"a": [1]}


def test_summary_and_progress() -> None:
    s = imports.Summary()
    s.count("created", 2)
    s.count("unchanged")
    s.reject(BadInput("x.yaml", "3:1", "unknown event type 'nope'"))
    assert json.loads(json.dumps(s.as_json())) == {
        "created": 2, "updated": 0, "unchanged": 1,
        "rejected": [{"file": "x.yaml", "place": "3:1", "problem": "unknown event type 'nope'"}],
    }  # fmt: skip
    quiet = io.StringIO()  # not a terminal: nothing drawn
    p = imports.Progress("import x", 10, stream=quiet)
    p.advance(10)
    p.finish()
    assert quiet.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    p = imports.Progress("import x", 4, stream=tty)
    p.advance(2)
    p.finish()
    assert tty.getvalue().endswith("\rimport x [###############               ] 2/4\n")


# --- regular files only, checked before reading ------------------------------------------------------


def test_only_regular_files_are_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # so that a blocking open would not hang the test
    try:
        for path in (Path("/dev/zero"), fifo, tmp_path):
            for read in (imports.read_file, lambda p: list(imports.zip_members(p, (".json",)))):
                with pytest.raises(BadInput) as e:
                    read(path)
                assert (e.value.file, e.value.problem) == (str(path), "not a regular file")
    finally:
        os.close(writer)


def test_a_file_holding_other_than_its_size_is_refused() -> None:
    # /proc files say 0 bytes and hold more: whatever is read must be exactly what the size said.
    with pytest.raises(BadInput, match="its size says 0 bytes but it holds more or less"):
        imports.read_file(Path("/proc/self/environ"))


def test_dangling_and_looping_symlinks_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop-a.json").symlink_to(tmp_path / "loop-b.json")
    (tmp_path / "loop-b.json").symlink_to(tmp_path / "loop-a.json")
    for name, problem in (("dangling.json", "a dangling symlink"), ("loop-a.json", "a symlink loop")):
        path = tmp_path / name
        with pytest.raises(BadInput) as e:
            imports.inside(path, tmp_path)
        assert (e.value.file, e.value.problem) == (str(path), problem)
        for root in (tmp_path, None):
            with pytest.raises(BadInput) as e:
                imports.read_file(path, root)
            assert e.value.problem == problem
        with pytest.raises(BadInput) as e:
            list(imports.zip_members(path, (".json",)))
        assert e.value.problem == problem
    assert [p.name for p in imports.walk(tmp_path, (".json",))] == ["dangling.json", "loop-a.json", "loop-b.json"]


# --- zips: stored and deflate members only, the central directory bounded before it is parsed ----------


def _bomb(path: Path, method: int, inflated: int) -> None:
    """A zip whose one member inflates to `inflated` zero bytes, written without holding them."""
    with zipfile.ZipFile(path, "w", method) as z, z.open("bomb.json", "w") as member:
        chunk = b"0" * (1 << 20)
        for _ in range(inflated >> 20):
            member.write(chunk)


@pytest.mark.parametrize(("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "LZMA")])
def test_bzip2_and_lzma_members_are_refused_unread(tmp_path: Path, method: int, name: str) -> None:
    bomb = tmp_path / f"{name}.zip"
    _bomb(bomb, method, 64 << 20)
    assert bomb.stat().st_size < 20_000
    tracemalloc.start()
    try:
        with pytest.raises(BadInput) as e:
            list(imports.zip_members(bomb, (".json",)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (e.value.place, e.value.problem) == ("bomb.json", f"{name} compression is not read (only stored and "
                                                             "deflate members)")  # fmt: skip
    assert peak < 4 << 20  # nothing inflated (zipfile inflates such a member whole: 64 MiB)


def test_stored_members_are_read(tmp_path: Path) -> None:
    stored = tmp_path / "stored.zip"
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as z:
        z.writestr("a.json", b"[1]")
    assert list(imports.zip_members(stored, (".json",))) == [("a.json", b"[1]")]


def test_central_directory_is_bounded_before_it_is_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as z:
        for i in range(100):
            z.writestr(f"{i:03d}.txt", b"")  # not even a .json: the directory costs memory all the same

    def unparsed(*_: object) -> None:
        raise AssertionError("the central directory was parsed")

    monkeypatch.setattr(zipfile, "ZipFile", unparsed)
    monkeypatch.setattr(imports, "MAX_FILES", 99)
    with pytest.raises(BadInput, match="100 members is over the limit of 99"):
        list(imports.zip_members(many, (".json",)))
    monkeypatch.setattr(imports, "MAX_FILES", 100)
    monkeypatch.setattr(imports, "MAX_CENTRAL", 1000)
    with pytest.raises(BadInput, match=r"a central directory of \d+ bytes is over the limit of 1000"):
        list(imports.zip_members(many, (".json",)))


def test_zip64_end_record_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "zip64.zip"
    with zipfile.ZipFile(big, "w", allowZip64=True) as z:
        for i in range(70_000):  # over 0xFFFF: the classic end record defers to the ZIP64 one
            z.writestr(f"{i}", b"")
    monkeypatch.setattr(imports, "MAX_FILES", 69_999)
    with pytest.raises(BadInput, match="70000 members is over the limit of 69999"):
        list(imports.zip_members(big, (".json",)))


# --- JSON: bounded, finite, and strings the database and the API take --------------------------------


@pytest.mark.parametrize(
    ("text", "place", "problem"),
    [
        (b'{"score": NaN}', "1:11", "NaN is not a finite number"),
        (b"[1,\n Infinity]", "2:2", "Infinity is not a finite number"),
        (b"[-Infinity]", "1:2", "-Infinity is not a finite number"),
        (b'{"a": "1e400", "b": 1e400}', "1:21", "1e400 is not a finite number"),
        (b'{"size": ' + b"9" * 4301 + b"}", "1:10", "an integer of more than 4300 digits"),
        (b'{"name": "\\ud800"}', "$.name", "contains a lone UTF-16 surrogate (U+D800)"),
        (b'[{"x": ["ok", "\\udfff\\ud800"]}]', "$[0].x[1]", "contains a lone UTF-16 surrogate (U+DFFF)"),
        (b'{"a": {"b\\u0000c": 1}}', "$.a['b\\x00c']", "the key contains a NUL character"),
        (b'{"summary": "x\\u0000"}', "$.summary", "contains a NUL character"),
        (b'"\xed\xa0\x80"', "byte 1", "not UTF-8 text"),  # a surrogate encoded as UTF-8
        (b"\xff\xfe[\x00]\x00", "byte 0", "not UTF-8 text"),  # UTF-16, which json.loads would take
    ],
)
def test_load_json_refusals_name_the_place(text: bytes, place: str, problem: str) -> None:
    with pytest.raises(BadInput) as e:
        imports.load_json("f.json", text)
    assert (e.value.file, e.value.place, e.value.problem) == ("f.json", place, problem)


def test_load_json_takes_what_is_fine() -> None:
    assert imports.load_json("f.json", b'["\\ud83d\\ude00", "\\\\u0000", 1.5e300, -0]') == ["\U0001f600", "\\u0000",
                                                                                            1.5e300, 0]  # fmt: skip
    assert imports.load_json("f.json", b"\xef\xbb\xbf{}") == {}  # a UTF-8 byte order mark
    assert imports.load_json("f.json", b"[" + b"9" * 4300 + b"]") == [10**4300 - 1]


def test_load_json_counts_values_before_parsing() -> None:
    # 6,000,000 empty objects (18 MB; 12 million values): refused before anything is built (parsed: ~450 MB).
    flood = b"[" + b"{}," * 6_000_000 + b"{}]"
    tracemalloc.start()
    try:
        with pytest.raises(BadInput) as e:
            imports.load_json("flood.json", flood)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.place == f"1:{3 * imports.MAX_VALUES // 2 - 1}"  # the `{` that makes one too many
    assert e.value.problem == f"more than {imports.MAX_VALUES} JSON values (each key counts as one)"
    assert peak < 1 << 20
    # Separators inside strings are not values: only the exact count (strings skipped) decides.
    prose = json.dumps(["a, b: [c] {d}" * 100] * 100).encode()
    assert len(imports.load_json("prose.json", prose, max_values=200)) == 100
    with pytest.raises(BadInput, match="more than 100 JSON values"):
        imports.load_json("prose.json", prose, max_values=100)
