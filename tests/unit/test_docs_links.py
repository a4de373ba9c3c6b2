"""Every relative Markdown link of the README and of docs/ leads to a file of the repository, and to a heading of
that file when it names one (GitHub's anchors); nothing in them points outside the repository: no link out of it,
no citation of documents a clone does not have (issue 29 item 11)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^ *```")
# Citations of the design notes, the spec or the reference outside the repository ("DESIGN section 8",
# "spec 9.6", "reference 10.4"), and links to the folder beside it that holds them.
OUTSIDE = re.compile(r"\bDESIGN\b|\bspec(ification)? §?\d|\breference §?\d+\.\d|\.\./shared|/shared/", re.I)


def doc_files(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks, inline code taken out (a link written as code is not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors GitHub makes of a file's headings: lower case, inline code marks and punctuation dropped
    (hyphens and underscores kept), spaces as hyphens; a repeated one gets -1, -2, ..."""
    found: set[str] = set()
    fenced = False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = re.match(r"#{1,6} +(.*?) *#*$", line)
        if fenced or not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        unique, n = slug, 0
        while unique in found:
            n += 1
            unique = f"{slug}-{n}"
        found.add(unique)
    return found


def broken_links(root: Path) -> list[str]:
    """Each relative link of the README and docs/ that does not resolve, as `file: target (why)`."""
    broken = []
    for page in doc_files(root):
        for line in prose(page.read_text()):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
                    continue
                file_part, _, anchor = target.partition("#")
                dest = (page.parent / file_part).resolve() if file_part else page
                where = f"{page.relative_to(root)}: {target}"
                if not dest.is_relative_to(root.resolve()):
                    broken.append(f"{where} (outside the repository)")
                elif not dest.exists():
                    broken.append(f"{where} (no such file)")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(f"{where} (no such heading)")
    return broken


def outside_citations(root: Path) -> list[str]:
    return [
        f"{page.relative_to(root)}:{n}: {line.strip()}"
        for page in doc_files(root)
        for n, line in enumerate(page.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]


def test_every_relative_link_resolves() -> None:
    assert len(doc_files(ROOT)) > 10
    assert broken_links(ROOT) == []


def test_nothing_cites_documents_outside_the_repository() -> None:
    assert outside_citations(ROOT) == []


def test_a_broken_link_or_anchor_or_citation_is_found(tmp_path: Path) -> None:
    (tmp_path / "docs" / "reference").mkdir(parents=True)
    (tmp_path / "README.md").write_text(
        "# Top\n\nSee [ok](docs/a.md#one-port-serve---port), [gone](docs/gone.md), [here](#top),\n"
        "[bad anchor](docs/a.md#nowhere), [out](../shared/x.md), [web](https://example.com/x) and `[code](no.md)`.\n"
        "As DESIGN section 8 says.\n"
    )
    (tmp_path / "docs" / "a.md").write_text(
        "# A\n\n## One port (`serve --port`)\n\n```sh\n# not a heading\n```\n\n[up](../README.md#top), "
        "[twice](reference/b.md#same-1)\n"
    )
    (tmp_path / "docs" / "reference" / "b.md").write_text("# B\n\n## Same\n\n## Same\n")
    assert broken_links(tmp_path) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/a.md#nowhere (no such heading)",
        "README.md: ../shared/x.md (outside the repository)",
    ]
    # line 4 links ../shared, line 5 cites DESIGN
    assert [c.split(": ", 1)[0] for c in outside_citations(tmp_path)] == ["README.md:4", "README.md:5"]
    assert anchors(tmp_path / "docs" / "a.md") == {"a", "one-port-serve---port"}
