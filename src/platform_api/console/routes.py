"""The console's routes: /console/static/<file> (the files of console/static, read once at start, gzip-encoded
when the browser takes it, revalidated by ETag) and every other /console/ path (the skeleton: a page's URL is
its deep link, and its module reads the path). No route here takes a token or reads the database."""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from platform_api.console import shell
from platform_api.core.settings import Settings

FILES = Path(__file__).resolve().parent / "static"
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}


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

    async def bare(_: Request) -> Response:
        return RedirectResponse(home, 308)

    return [
        Route(shell.PREFIX, bare),
        Route(shell.STATIC + "{name:path}", static),
        Route(shell.PREFIX + "/{page:path}", page),
    ]
