"""Imports run one way (DESIGN section 2): core <- store <- service <- auth <- domains <- api <- app/cli.

Read from the source with `ast`, so a module-level, function-level or TYPE_CHECKING import counts the same:
none of them may reach a higher layer or a sibling domain's private parts. Generated code (`gen`) is a
leaf every layer may use. Also: no source module over 600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "platform_api"
DOMAINS = ("iam", "registry", "events", "ping", "vulnerabilities", "libraries", "advisory")
LAYERS = {"gen": 0, "core": 1, "store": 2, "service": 3, "auth": 4, **dict.fromkeys(DOMAINS, 5), "api": 6}
TOP = 7  # app.py, cli.py, __init__.py
MAX_LINES = 600


def _module(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) < 2:
        return TOP
    return LAYERS.get(parts[1], TOP)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
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


def test_imports_run_one_way() -> None:
    upward: list[str] = []
    for path in _sources():
        here = _module(path)
        for line, target in _imports(path):
            if _layer(target) > _layer(here):
                upward.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    assert upward == [], "imports against the layering:\n" + "\n".join(upward)


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
