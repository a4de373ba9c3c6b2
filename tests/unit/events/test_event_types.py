"""The event types a subscription may name (events/types.py) are the ones the guide lists (docs/events.md)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from platform_api.api import schema
from platform_api.core.settings import Settings
from platform_api.events import types

EVENTS_GUIDE = Path(__file__).resolve().parents[3] / "docs" / "events.md"


def _rt(**settings: Any) -> Any:
    return SimpleNamespace(methods=schema.methods(), settings=Settings(**settings))


def _expand(name: str) -> list[str]:
    """`a.{b,c}.v1` -> a.b.v1, a.c.v1."""
    parts = re.split(r"\{([^}]*)\}", name)
    choices = [p.split(",") if i % 2 else [p] for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def test_the_guide_lists_every_type() -> None:
    text = EVENTS_GUIDE.read_text()
    start = text.index("- Types (`types`")
    listed = text[text.index("The types, each after", start) : text.index("v1 subscriptions have no", start)]
    names = {n for raw in re.findall(r"`([a-z_.{},]+\.v1)`", listed) for n in _expand(raw)}
    rt = _rt()
    assert names == set(types.api_types(rt)) | set(types.DATA_PLANE)


def test_full_names_under_the_configured_prefix() -> None:
    ours, reference = _rt(), _rt(compat_strings="reference")
    assert "local.platform-api.api.iam.group.created.v1" in types.known(ours)
    assert "local.platform-api.registry.pull.v1" in types.known(ours)
    assert "dev.chainguard.api.platform.registry.tag.created.v1" in types.known(reference)
    assert not types.known(ours) & types.known(reference)
