"""service.imports: the bounded reading every importer relies on (sizes, symlinks out of a root, zip bombs,
JSON places) and the summary/progress it prints."""

from __future__ import annotations

import io
import json
import os
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
    assert "No such file" in e.value.problem
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
