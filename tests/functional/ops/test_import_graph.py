"""Imports run one way (DESIGN section 2), between layers and between domains:

    gen < core < store < service < auth < shared machinery (outbox, formats)
        < the domains in the order app.DOMAINS declares (ping < iam < signin < libraries < vulnerabilities
          < registry < events < advisory) < api < client, console < ctl < app and the cli package (the top:
          they may import each other)

The Python client and the CLI are further held to what they may use at all (CLIENT_MAY, CTL_MAY): the client
talks to a server only through the wire, so it imports the generated code, core and api's pure transcoding,
never the store, the services or a domain; the CLI imports the client only. The web console (console/) serves
only its own files: its pages get their data from the browser's calls to the API.

A package may import its own modules and anything lower; never a higher one, and never a sibling at its own
level (the outbox and the formats know nothing of each other). So a domain that needs another's data calls an
owner below it (registry calls iam, advisory calls registry and vulnerabilities), never the reverse as well.
Read from the source with `ast`, so a module-level, function-level or TYPE_CHECKING import counts the same.
Generated code (`gen`) is a leaf every layer may use. Also: no source module over 600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from platform_api import app

SRC = Path(__file__).resolve().parents[3] / "src" / "platform_api"
# Bottom to top; the packages of one entry share a level and may not import each other. The domains' order is
# the one the app declares (app.DOMAINS), which it also collects their contributions in.
ORDER: list[tuple[str, ...]] = [
    ("gen",), ("core",), ("store",), ("service",), ("auth",), ("outbox", "formats"),
    *[(d.name,) for d in app.DOMAINS],
    ("api",), ("client", "console"), ("ctl",),
]  # fmt: skip
CLIENT_MAY = ("platform_api.gen", "platform_api.core", "platform_api.api.transcode", "platform_api.client")
CTL_MAY = ("platform_api.client", "platform_api.ctl")
TOP = len(ORDER)  # app.py, the cli package (platform-api), __init__.py
LAYERS = {package: level for level, packages in enumerate(ORDER) for package in packages} | {"cli": TOP}
MAX_LINES = 600


def _module(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else ""


def _layer(module: str) -> int:
    return LAYERS.get(_package(module), TOP)


def against_the_order(here: str, target: str) -> bool:
    """Whether module `here` importing `target` goes up, or sideways to a sibling package of its level."""
    if _layer(target) > _layer(here):
        return True
    return _layer(target) == _layer(here) < TOP and _package(target) != _package(here)


def _imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, module) of each import of ours in `path` (or in `text`, read as if it were that file)."""
    tree = ast.parse(path.read_text() if text is None else text)
    package = _module(path) if path.name == "__init__.py" else _module(path).rsplit(".", 1)[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            out += [(node.lineno, f"{base}.{a.name}" if a.name != "*" else base) for a in node.names]
    return [(n, m) for n, m in out if m.split(".")[0] == "platform_api"]


def _sources() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "gen" not in p.relative_to(SRC).parts)


def _outside(here: str, target: str) -> bool:
    """Whether the client or the CLI imports what it may not use at all."""
    allowed = {"client": CLIENT_MAY, "ctl": CTL_MAY}.get(_package(here))
    return allowed is not None and not any(target == a or target.startswith(a + ".") for a in allowed)


def violations(paths: list[Path]) -> list[str]:
    found: list[str] = []
    for path in paths:
        here = _module(path)
        for line, target in _imports(path):
            if against_the_order(here, target) or _outside(here, target):
                found.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    return found


def test_imports_run_one_way() -> None:
    found = violations(_sources())
    assert found == [], "imports against the declared order:\n" + "\n".join(found)


def test_every_package_has_a_place_in_the_order() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(LAYERS)


@pytest.mark.parametrize(
    ("here", "target"),
    [
        ("iam/groups.py", "platform_api.registry.queries"),  # a back-import between domains
        ("vulnerabilities/advisories.py", "platform_api.advisory.documents"),  # the cycle issue 17 removed
        ("outbox/outbox.py", "platform_api.formats.advisory_yaml"),  # siblings of the shared level
        ("core/clock.py", "platform_api.store.db"),  # up a layer
        ("client/client.py", "platform_api.service.crud"),  # the client reaching past the wire
        ("client/transport.py", "platform_api.api.schema"),  # api beyond its pure transcoding
        ("ctl/main.py", "platform_api.core.errors"),  # the CLI beside the client
        ("api/routes_listing.py", "platform_api.cli.common"),  # up to the top: the cli package
    ],
)
def test_a_deliberate_back_import_is_caught(here: str, target: str) -> None:
    """The check itself: the same module with one more import against the order fails it."""
    path = SRC / here
    assert violations([path]) == []
    added = _imports(path, path.read_text() + f"\nimport {target}\n")
    assert [t for _, t in added if against_the_order(_module(path), t) or _outside(_module(path), t)] == [target]


def test_no_import_inside_a_function_or_type_checking_block() -> None:
    """Imports of our modules sit at module level: none deferred into a function or hidden behind
    TYPE_CHECKING to dodge a cycle (the layering above is then the whole story)."""
    hidden: list[str] = []
    for path in _sources():
        tree = ast.parse(path.read_text())
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(n.startswith("platform_api") for n in names) or (
                    isinstance(node, ast.ImportFrom) and node.level
                ):
                    hidden.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert hidden == [], "imports inside functions or conditional blocks:\n" + "\n".join(hidden)


def test_no_module_over_600_lines() -> None:
    long = [f"{p.relative_to(SRC)}: {n}" for p in _sources() if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert long == []
