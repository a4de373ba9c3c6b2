"""What a browser is shown by the login routes (signin/login.py's Outcome): the auto-submitted form that carries a
login's result to a loopback callback (or to our own console's `POST /console/callback`), and the message pages
of a headless login.

Every page is self-contained under a strict Content-Security-Policy: nothing loads, no inline script runs but
the one submitting the form (allowed by its hash), the form may post to its callback only, and no other site
may frame the page. Without JavaScript the form's button does the same. Nothing is cached, and no Referer
leaves with the token.
"""

from __future__ import annotations

import base64
import hashlib
import html
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from platform_api.core import errors

SUBMIT = "document.forms[0].submit();"
_SUBMIT_HASH = base64.b64encode(hashlib.sha256(SUBMIT.encode()).digest()).decode()
NO_STORE = {"cache-control": "no-store", "referrer-policy": "no-referrer"}
_BASE_CSP = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'"


def form_post(action: str, fields: dict[str, str]) -> HTMLResponse:
    """A page that posts `fields` (form-encoded) to `action` (a loopback callback, or our console's) at once."""
    parts = urlsplit(action)
    # CSP host sources cannot name an IPv6 literal: the callback [::1] is allowed as any http target.
    target = "http:" if parts.hostname == "::1" else f"{parts.scheme}://{parts.netloc}"
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items()
    )
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>Signing in</title></head><body>'
        f'<form method="post" action="{html.escape(action)}">{inputs}'
        "<p>Returning you to the application that asked for this sign-in.</p>"
        '<button type="submit">Continue</button></form>'
        f"<script>{SUBMIT}</script></body></html>"
    )
    csp = f"{_BASE_CSP}; script-src 'sha256-{_SUBMIT_HASH}'; form-action {target}"
    return HTMLResponse(page, headers={**NO_STORE, "content-security-policy": csp})


def message(text: str, code: str = "", error: errors.ApiError | None = None) -> HTMLResponse:
    """A page telling the person `text` (and showing `code` large, when given); the error's status if any."""
    shown = f"<h1>{html.escape(code)}</h1>" if code else ""
    title = "Sign-in failed" if error is not None else "Signed in"
    page = (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f"<p>{html.escape(text)}</p>{shown}</body></html>"
    )
    status = error.status() if error is not None else 200
    return HTMLResponse(page, status, headers={**NO_STORE, "content-security-policy": _BASE_CSP})
