"""Rendering: `-o table|wide` (aligned columns), `-o json` (the API's protojson: JSON names, defaults omitted,
indented; a List prints a JSON array of its items) and `-o yaml` (the same data). Progress goes to stderr and
only on a terminal, so scripts and pipes never see it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

import msgspec
import yaml  # type: ignore[import-untyped]

FORMATS = ("table", "wide", "json", "yaml")
Column = tuple[str, str]  # (header, dotted JSON path into the record)


def data(record: Any) -> Any:
    """A record (or list of records) as protojson-shaped builtins."""
    return msgspec.to_builtins(record)


def cell(row: dict[str, Any], path: str) -> str:
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, dict):
            return ""
        value = value.get(part)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):  # records in a list as JSON, never as Python's repr
        return ",".join(json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value).replace("\n", " ")


def table(rows: Sequence[dict[str, Any]], columns: Sequence[Column], out: TextIO,
          enums: Mapping[str, str] | None = None) -> None:  # fmt: skip
    grid = [[h for h, _ in columns]] + [[_cell(r, p, enums) for _, p in columns] for r in rows]
    widths = [max(len(line[i]) for line in grid) for i in range(len(columns))]
    for line in grid:
        out.write("  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip() + "\n")


def _cell(row: dict[str, Any], path: str, enums: Mapping[str, str] | None) -> str:
    text = cell(row, path)
    if not enums or path not in enums:
        return text
    return ",".join(name.removeprefix(enums[path]) for name in text.split(","))  # a repeated enum: each


def emit(value: Any, fmt: str, columns: Sequence[Column], out: TextIO | None = None, *, many: bool = False,
         enums: Mapping[str, str] | None = None) -> None:  # fmt: skip
    """One record, or a list of records when `many`, on `out` (standard output as it is at the call). A table
    shows the enum values of `enums` (path: prefix) without their prefix; json and yaml keep the API's."""
    out = out or sys.stdout
    rows = data(value)
    if fmt == "json":
        out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    elif fmt == "yaml":
        out.write(yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, default_flow_style=False))
    elif many:
        table(rows, columns, out, enums)
    else:
        # One record as a table is its columns as "KEY  value" lines (wide: every field, as YAML).
        if fmt == "wide":
            out.write(yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, default_flow_style=False))
        else:
            width = max((len(h) for h, _ in columns), default=0)
            for h, p in columns:
                out.write(f"{h.ljust(width)}  {_cell(rows, p, enums)}".rstrip() + "\n")


class Progress:
    """`label: n` on stderr, rewritten in place, when stderr is a terminal; nothing otherwise."""

    def __init__(self, label: str, total: int | None = None, err: TextIO | None = None) -> None:
        self.label, self.total, self.err = label, total, err or sys.stderr
        self.on = self.err.isatty()
        self.n = 0

    def step(self, k: int = 1) -> None:
        self.n += k
        if self.on:
            of = f"/{self.total}" if self.total else ""
            self.err.write(f"\r{self.label}: {self.n}{of}")
            self.err.flush()

    def done(self) -> None:
        if self.on and self.n:
            self.err.write("\r\033[K")
            self.err.flush()


def collect(items: Iterable[Any], label: str, limit: int = 0) -> list[Any]:
    """The items of a paged List, with a progress count on a terminal; at most `limit` (0: all)."""
    progress = Progress(label)
    out: list[Any] = []
    try:
        for item in items:
            out.append(item)
            progress.step()
            if limit and len(out) >= limit:
                break
    finally:
        progress.done()
    return out
