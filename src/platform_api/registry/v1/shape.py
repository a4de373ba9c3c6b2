"""`v1.convert` with the field lists cached per class: `msgspec.structs.fields` re-evaluates a class's
annotations on every call (about 0.25 ms for a Repo), which made a v1 list of 10,000 repos spend 5 s in
conversion alone. Same semantics as service/v1.py's `convert` (kept here until the toolkit caches them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

R = TypeVar("R", bound=msgspec.Struct)


_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _names(cls: type[Any]) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in msgspec.structs.fields(cls))
    return names


def convert(source: Any, cls: type[R], renames: Mapping[str, str] | None = None, **values: Any) -> R:
    """`cls` with every field that `source` has under the same name (or under `renames[field]`), then
    `values`; fields only one side has are left out."""
    renames = renames or {}
    have = _names(type(source))
    fields: dict[str, Any] = {}
    for name in _names(cls):
        src = renames.get(name, name)
        if name not in values and src in have:
            fields[name] = getattr(source, src)
    fields.update(values)
    return cls(**fields)
