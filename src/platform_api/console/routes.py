"""The console's routes: /console/static/<file> (the files of console/static, read once at start, gzip-encoded
when the browser takes it, revalidated by ETag), `POST /console/callback` (a browser login's result, posted by
the login's own page, signin/login.py: the skeleton with the result in an inert element for session.js, which
checks its state; 403 when the browser says another site or origin posted it) and every other /console/ path
(the skeleton: a page's URL is its deep link, and its module reads the path). No route here checks a token or
reads the database."""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from platform_api.console import shell
from platform_api.core.settings import Settings
from platform_api.signin import login

FILES = Path(__file__).resolve().parent / "static"
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

CALLBACK = login.CONSOLE_PATH + login.CONSOLE_CALLBACK
# A login's result: an access token (about 800 bytes; more with a session's group grants), a refresh token, their
# expiry, the console's state, or an error; the page to return to. Nothing else is kept. A token the console
# could not send back in a request header (servers take about 16 KiB of headers) is no use to it: a bigger body
# is refused, unread past that.
RESULT_FIELDS = ("token", "refresh_token", "expiry", "state", "error", "error_description")
MAX_BODY = 16384
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes
    media_type: str
    etag: str


def load(root: Path = FILES) -> dict[str, Asset]:
    """The static files by their path under `root` (`pages/images.js`)."""
    out = {}
    for path in sorted(root.rglob("*")):
        media_type = TYPES.get(path.suffix)
        if media_type is None or not path.is_file():
            continue
        body = path.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        out[path.relative_to(root).as_posix()] = Asset(body, gzip.compress(body, 9, mtime=0), media_type, etag)
    return out


def routes(settings: Settings) -> list[Route]:
    assets = load()
    home = settings.issuer.rstrip("/") + shell.PREFIX + "/"
    # Pull URLs name the registry data plane's address (its configured URL, else this server's host).
    registry = urlsplit(settings.registry_url or settings.issuer).netloc
    skeleton = shell.page(home, registry).encode()
    origin = _origin(settings.issuer)

    async def static(request: Request) -> Response:
        asset = assets.get(request.path_params["name"])
        if asset is None:
            return Response("not found", 404, media_type="text/plain", headers=shell.HEADERS)
        headers = {**shell.HEADERS, "etag": asset.etag, "cache-control": "no-cache", "vary": "accept-encoding"}
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(asset.gzipped, media_type=asset.media_type, headers={**headers, "content-encoding": "gzip"})
        return Response(asset.body, media_type=asset.media_type, headers=headers)

    async def page(_: Request) -> Response:
        headers = {**shell.HEADERS, "cache-control": "no-store"}
        return Response(skeleton, media_type="text/html; charset=utf-8", headers=headers)

    async def callback(request: Request) -> Response:
        if not _same_origin(request, origin):
            return _refused(403, "a login's result is posted by this server's own login page only")
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != FORM:
            return _refused(415, "a login's result is posted as " + FORM)
        form = await _form(request)
        if form is None:
            return _refused(400, f"a login's result: one form of at most {MAX_BODY} bytes, each field once")
        result = {name: form[name] for name in RESULT_FIELDS if name in form}
        result["page"] = _console_page(form.get("page", ""))
        body = shell.page(home, registry, shell.login_result(result)).encode()
        headers = {**shell.HEADERS, "cache-control": "no-store"}
        return Response(body, media_type="text/html; charset=utf-8", headers=headers)

    async def bare(_: Request) -> Response:
        return RedirectResponse(home, 308)

    return [
        Route(shell.PREFIX, bare),
        Route(shell.STATIC + "{name:path}", static),
        Route(CALLBACK, callback, methods=["POST"]),
        Route(shell.PREFIX + "/{page:path}", page),
    ]


def _origin(url: str) -> str:
    """The origin a browser names for `url` (RFC 6454: scheme://host[:port], the scheme's default port left out)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{parts.port}" if parts.port and parts.port != default else "")


def _same_origin(request: Request, origin: str) -> bool:
    """Whether the browser's own word allows the post to come from our page: refused when it says another site
    (Sec-Fetch-Site) or another origin (Origin) sent it. `Origin: null` is what our login page's no-referrer
    policy makes browsers send, so it says nothing (Sec-Fetch-Site still does); a request with neither header
    (older browsers) is left to the tab's state check."""
    if request.headers.get("sec-fetch-site", "").strip().lower() in ("cross-site", "same-site"):
        return False
    sent = request.headers.get("origin", "").strip().lower()
    return sent in ("", "null") or sent == origin


def _refused(status: int, text: str) -> Response:
    return Response(text, status, media_type="text/plain", headers={**shell.HEADERS, "cache-control": "no-store"})


async def _form(request: Request) -> dict[str, str] | None:
    """The posted form's fields, or None for a body over MAX_BODY (read no further), not UTF-8, or naming a
    field twice."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    try:
        pairs = parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=len(RESULT_FIELDS) + 1)
    except (UnicodeDecodeError, ValueError):
        return None
    form = dict(pairs)
    return form if len(form) == len(pairs) else None


def _console_page(page: str) -> str:
    """`page` when it is a console page of this server (a path under /console/ that no dot segment leads out
    of), else the console's home."""
    inside = page.startswith(login.CONSOLE_PATH) and ".." not in page and "%2e" not in page.lower()
    return page if inside and "\\" not in page and "#" not in page else login.CONSOLE_PATH
