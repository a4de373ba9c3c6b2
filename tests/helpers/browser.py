"""The browser the console's tests drive: Debian's `chromium` through Playwright (its own browser download is
not reachable here), one per test module; a run that includes these tests stops at its start, saying what to
install, when chromium is missing (like docker-registry for the registry tests)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

INSTALL = "apt-get install -y chromium"
WIDTH, HEIGHT = 1280, 800


def chromium_path() -> str | None:
    return shutil.which("chromium")


def stop_reason(selected: list[str], root: Path) -> str | None:
    """Why a run of the paths `selected` (pytest's arguments) cannot start: the command that installs chromium,
    when the run includes these tests and it is missing; None otherwise."""
    if chromium_path() is not None:
        return None
    here = root / "functional" / "console"
    paths = [Path(a.split("::", 1)[0]).resolve() for a in selected if not a.startswith("-")] or [root]
    if not any(p == here or p in here.parents or here in p.parents for p in paths):
        return None
    return f"chromium not found, needed by the console's browser tests (tests/functional/console): run `{INSTALL}`"


@contextmanager
def browser() -> Iterator[Browser]:
    path = chromium_path()
    if path is None:
        raise RuntimeError(f"chromium not found, needed by the console's browser tests: run `{INSTALL}`")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@dataclass
class Watched:
    """A page and what its console said: CSP violations and script errors show up here."""

    page: Page
    context: BrowserContext
    messages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return [m for m in self.messages if "Content Security Policy" in m or m.startswith("error")] + self.errors


def open_page(b: Browser, **options: Any) -> Watched:
    context = b.new_context(viewport={"width": WIDTH, "height": HEIGHT}, **options)
    page = context.new_page()
    w = Watched(page, context)
    page.on("console", lambda m: w.messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: w.errors.append(str(e)))
    page.on("response", lambda r: r.status >= 400 and w.errors.append(f"{r.status} {r.request.method} {r.url}"))
    return w
