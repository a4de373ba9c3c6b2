"""Count the calls the client makes to the server: every transport's `call` in this process, and the raw HTTP
requests `platformctl api` sends. In-process only (a platformctl run as a process of its own is not counted)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from platform_api.client import transport


@contextmanager
def counted_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """The RPCs sent while the block runs, by method name (`ListRepos`)."""
    calls: Counter[str] = Counter()
    for cls in (transport.HttpTransport, transport.GrpcTransport):
        original = cls.call

        def call(self: Any, m: Any, *args: Any, _original: Any = original) -> Any:
            calls[m.name] += 1
            return _original(self, m, *args)

        monkeypatch.setattr(cls, "call", call)
    yield calls
