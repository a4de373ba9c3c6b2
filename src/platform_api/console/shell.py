"""The console's page skeleton (the same for every page; the page's module fills <main>) and the headers every
console response carries."""

from __future__ import annotations

import html

PREFIX = "/console"
STATIC = PREFIX + "/static/"
# Nothing from another origin, no inline script or style, no eval, no framing; the console's fetches go to its
# own origin only (the API). Images: its own files and the data: URLs of inline SVG.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "x-frame-options": "DENY",
}
NAV = (
    ("", "Overview"),
    ("images", "Images"),
    ("security", "Security data"),
    ("access", "Access"),
    ("events", "Events"),
)


def login_result(fields: dict[str, str]) -> str:
    """A login's result as data attributes of an inert <template id="login-result"> (never run, never shown),
    every value escaped; session.js reads and removes it."""
    data = "".join(f' data-{name.replace("_", "-")}="{html.escape(value)}"' for name, value in fields.items())
    return f'<template id="login-result"{data}></template>'


def page(home: str, registry: str, result: str = "") -> str:
    """The skeleton: header, navigation and an empty main region; `home` is the console's URL at our public
    address (where a login returns; a browser at another address is sent there first); `result` a login's
    (login_result), on the answer to a login's POST only."""
    links = "".join(f'<li><a href="{PREFIX}/{path}" data-nav="{path}">{label}</a></li>' for path, label in NAV)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<link rel="icon" href="data:,">'  # no favicon request
        "<title>Console</title>"
        f'<link rel="stylesheet" href="{STATIC}console.css">'
        f'<link rel="modulepreload" href="{STATIC}api.js">'
        f'<link rel="modulepreload" href="{STATIC}ui.js">'
        f'<script type="module" src="{STATIC}app.js"></script>'
        f'</head><body data-home="{html.escape(home)}" data-registry="{html.escape(registry)}">'
        f'{result}<a class="skip" href="#main">Skip to content</a>'
        '<header class="top"><a class="brand" href="/console/">Platform console</a>'
        f'<nav aria-label="Main"><ul>{links}</ul></nav>'
        '<div class="org" id="org"></div><div class="who" id="who"></div></header>'
        '<main id="main" tabindex="-1"><p role="status">Loading…</p></main>'
        "</body></html>"
    )
