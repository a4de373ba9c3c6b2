"""Why a database could not be opened, as one line for the operator: what failed, where (the URL without its
password) and what to do. `db.connect` raises `CannotConnect` with it, so that every command (and `serve`
before it starts its workers) stops with that line rather than the driver's traceback."""

from __future__ import annotations

import errno
import socket
import sqlite3
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

from platform_api.store.errors import CannotConnect

_WHERE = "--database or PLATFORM_API_DATABASE_URL"


def safe_url(url: str) -> str:
    """`url` without its password (in the user part or as a `password=` parameter): fit for logs."""
    try:
        p = urlparse(url)
        pairs = parse_qsl(p.query)
        hidden = [(k, v) for k, v in pairs if k.lower() != "password"]
        if p.password is None and len(hidden) == len(pairs):
            return url  # as given (urlunparse would turn sqlite:////abs into sqlite://abs)
        user, _, host = p.netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}@{host}" if p.password is not None else p.netloc
        return urlunparse(p._replace(netloc=netloc, query=urlencode(hidden)))
    except ValueError:  # a URL urlparse refuses (a bad port): nothing of it is shown
        return "the database URL"


def sqlite_failure(url: str, path: str, e: Exception) -> CannotConnect:
    """Opening the SQLite file at `path` failed with `e`."""
    if isinstance(e, OSError):  # creating the file's folder
        what = f"cannot create the SQLite file's folder {e.filename or path}: {e.strerror or e}"
        hint = "a file is in the way or this user may not write there: choose another path"
    elif isinstance(e, sqlite3.DatabaseError) and "not a database" in str(e):
        what, hint = f"{path} is not a SQLite database", "give the path of a platform-api database file"
    else:
        what = f"cannot open the SQLite file {path}: {e}"
        hint = "is the path a folder, or one this user may not write? choose another path"
    return CannotConnect(f"cannot open the database {safe_url(url)}: {what}; {hint} ({_WHERE})")


def postgres_failure(url: str, e: BaseException) -> CannotConnect | None:
    """Connecting to PostgreSQL at `url` failed with `e`: the line to stop with, or None when `e` is not
    about reaching or entering the database (a bug to show as it is)."""
    import asyncpg

    p = urlparse(url)
    try:
        port = p.port or 5432
    except ValueError:
        return CannotConnect(f"invalid database URL {safe_url(url)}: bad port ({_WHERE})")
    host = p.hostname or "localhost"
    at = f"{host}:{port}"
    name = p.path.lstrip("/") or p.username or "postgres"
    running = f"is PostgreSQL running at {at}? ({_WHERE})"
    if isinstance(e, asyncpg.InvalidCatalogNameError):
        user = f" -U {p.username}" if p.username else ""
        what = f'database "{name}" does not exist at {at}'
        hint = f"create it (createdb -h {host} -p {port}{user} {name}) or name another ({_WHERE})"
    elif isinstance(e, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        what, hint = f"PostgreSQL at {at} refused the login: {e}", f"check the user and password ({_WHERE})"
    elif isinstance(e, asyncpg.PostgresError):
        what, hint = f"PostgreSQL at {at} refused the connection: {e}", "try again later or check the server"
    elif isinstance(e, socket.gaierror):
        what, hint = f"cannot resolve the host {host!r}: {e.strerror or e}", f"check the host ({_WHERE})"
    elif isinstance(e, TimeoutError):
        what, hint = f"no answer from {at} within the connect timeout", running
    elif isinstance(e, ConnectionRefusedError) or getattr(e, "errno", None) == errno.ECONNREFUSED:
        what, hint = f"connection to {at} refused", running
    elif isinstance(e, OSError):
        what, hint = f"cannot reach {at}: {e.strerror or e}", running
    elif isinstance(e, asyncpg.InterfaceError | ValueError):  # asyncpg's refusal of the URL or its options
        what, hint = f"invalid database URL: {e}", f"fix it ({_WHERE})"
    else:
        return None
    return CannotConnect(f"cannot open the database {safe_url(url)}: {what}; {hint}")
