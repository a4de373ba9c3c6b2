"""Where the client's token comes from, in this order (the first that has one wins):

1. an explicit token (`Client(token=...)`);
2. `PLATFORM_API_TOKEN`;
3. the CLI's login cache for this server URL (`platformctl auth login`), refreshed before expiry with its
   refresh token at `/sts/exchange_refresh_token` (the rotated pair is written back);
4. the token exchange (`/sts/exchange`) of an upstream OIDC token: the file `PLATFORM_API_IDENTITY_TOKEN_FILE`,
   else GitHub Actions' token service (`ACTIONS_ID_TOKEN_REQUEST_URL` + `_TOKEN`), else a Kubernetes projected
   service-account token at `PLATFORM_API_KUBERNETES_TOKEN_FILE` (default
   /var/run/secrets/platform-api/token); `PLATFORM_API_IDENTITY` names the identity to act as and
   `PLATFORM_API_AUDIENCE` the audience (default: the server URL). Exchanged again before expiry.

No source: calls go out without a token (the anonymous routes answer; the others say UNAUTHENTICATED).
The cache file holds bearer credentials: written 0600 in a 0700 directory (tightened to 0700 if it was
wider; refused if another user owns it), atomically. Refreshes of the cache take a file lock beside it, so two
processes refreshing at once do not spend one refresh token twice (which the server answers by revoking the
whole login).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from platform_api.client import errors

REFRESH_MARGIN = 120.0  # seconds before expiry a token counts as expired
K8S_TOKEN_FILE = "/var/run/secrets/platform-api/token"
_MAX_UPSTREAM = 64 << 10  # an upstream token file larger than this is not a token


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "platformctl"


def cache_path() -> Path:
    return config_dir() / "credentials.json"


@dataclass(frozen=True)
class Credentials:
    token: str
    refresh_token: str = ""
    expiry: float | None = None  # epoch seconds
    source: str = ""

    def fresh(self, now: float | None = None) -> bool:
        return self.expiry is None or self.expiry - REFRESH_MARGIN > (now or time.time())


def parse_time(value: Any) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, int | float):
        return float(value)
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def jwt_expiry(token: str) -> float | None:
    """The `exp` of a JWT, read without verifying it (only to know when to refresh)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        exp = claims.get("exp")
        return float(exp) if isinstance(exp, int | float) else None
    except (IndexError, ValueError, AttributeError):
        return None


# --- the login cache ----------------------------------------------------------------------------------------


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("servers"), dict) else {}


def private_dir(folder: Path) -> None:
    """`folder` exists, is ours and only ours (0700): created so, or tightened when an older version or a
    person left it wider. One another user owns is refused: they could read or swap what we keep there."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = folder.stat()
    if st.st_uid != os.getuid():
        owner = f"another user (uid {st.st_uid})"
        raise errors.FailedPrecondition(f"{folder} belongs to {owner}: not keeping credentials there")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(folder, 0o700)


@contextlib.contextmanager
def refresh_lock(path: Path) -> Iterator[None]:
    """One refresh at a time of the logins cached in `path`, across processes (an fcntl lock on the file
    `<path>.lock` beside it): a spent refresh token that comes back revokes its whole family on the server."""
    private_dir(path.parent)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _write_private(path: Path, text: str) -> None:
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".credentials.")  # created 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_login(server: str, path: Path | None = None) -> Credentials | None:
    entry = _read_cache(path or cache_path()).get("servers", {}).get(server.rstrip("/"))
    if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
        return None
    return Credentials(entry["token"], str(entry.get("refreshToken", "")), parse_time(entry.get("expiry")), "login")


def save_login(server: str, creds: Credentials, path: Path | None = None) -> None:
    path = path or cache_path()
    data = _read_cache(path) or {"version": 1, "servers": {}}
    expiry = datetime.fromtimestamp(creds.expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if creds.expiry else None
    data["servers"][server.rstrip("/")] = {"token": creds.token, "refreshToken": creds.refresh_token, "expiry": expiry}
    _write_private(path, json.dumps(data, indent=2, sort_keys=True))


def forget_login(server: str, path: Path | None = None) -> bool:
    path = path or cache_path()
    data = _read_cache(path)
    if server.rstrip("/") not in data.get("servers", {}):
        return False
    del data["servers"][server.rstrip("/")]
    _write_private(path, json.dumps(data, indent=2, sort_keys=True))
    return True


# --- the token service ----------------------------------------------------------------------------------------


def _sts(http: httpx.Client, path: str, bearer: str, params: list[tuple[str, str]]) -> dict[str, Any]:
    try:
        r = http.post(path, params=tuple(params), headers={"authorization": f"Bearer {bearer}"}, timeout=30)
    except httpx.TransportError as e:
        where = str(http.base_url).rstrip("/") + path
        if isinstance(e, httpx.ConnectError | httpx.ConnectTimeout):
            raise errors.Unavailable(
                f"cannot connect to {where} ({type(e).__name__}: {e}); {errors.HTTP_SETTING}"
            ) from None
        raise errors.Unavailable(f"the connection to {where} failed ({type(e).__name__}: {e})") from None
    if r.status_code != 200:
        raise errors.from_http(r.status_code, r.content[:65536], r.headers.get("retry-after"))
    data = r.json()
    if not isinstance(data, dict):
        raise errors.Internal(f"{path}: the answer is not an object")
    return data


def refresh(http: httpx.Client, creds: Credentials) -> Credentials:
    data = _sts(http, "/sts/exchange_refresh_token", creds.refresh_token, [])
    token, new_refresh = data.get("token") or {}, data.get("refreshToken") or {}
    value = str(token.get("token", ""))
    return Credentials(
        value, str(new_refresh.get("token", "")), parse_time(token.get("expiry")) or jwt_expiry(value), creds.source
    )


def exchange(http: httpx.Client, upstream: str, audience: str, identity: str) -> Credentials:
    params = ([("aud", audience)] if audience else []) + ([("identity", identity)] if identity else [])
    data = _sts(http, "/sts/exchange", upstream, params)
    value = str(data.get("token", ""))
    expiry = parse_time(data.get("expiry")) or jwt_expiry(value)
    return Credentials(value, str(data.get("refreshToken", "")), expiry, "exchange")


def upstream_token(audience: str, env: dict[str, str] | None = None) -> str | None:
    """An upstream OIDC token from the environment's sources (None when there is none)."""
    env = dict(os.environ) if env is None else env
    path = env.get("PLATFORM_API_IDENTITY_TOKEN_FILE")
    if path:
        return _read_token_file(Path(path))
    url, bearer = env.get("ACTIONS_ID_TOKEN_REQUEST_URL"), env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
    if url and bearer:
        try:
            r = httpx.get(url, params={"audience": audience}, headers={"authorization": f"bearer {bearer}"}, timeout=30)
        except httpx.TransportError as e:
            raise errors.Unavailable(f"GitHub Actions token service: {e}") from None
        if r.status_code != 200:
            raise errors.Unauthenticated(f"GitHub Actions token service answered {r.status_code}")
        return str(r.json().get("value", "")) or None
    k8s = Path(env.get("PLATFORM_API_KUBERNETES_TOKEN_FILE") or K8S_TOKEN_FILE)
    return _read_token_file(k8s) if k8s.is_file() else None


def _read_token_file(path: Path) -> str:
    try:
        with path.open("rb") as f:
            raw = f.read(_MAX_UPSTREAM + 1)
    except OSError as e:
        raise errors.Unauthenticated(f"cannot read the identity token file {path}: {e.strerror}") from None
    if len(raw) > _MAX_UPSTREAM:
        raise errors.Unauthenticated(f"the identity token file {path} is larger than {_MAX_UPSTREAM} bytes")
    return raw.decode("utf-8", "replace").strip()


class Auth:
    """The token for each call to one server, from the first source that has one (module docstring)."""

    def __init__(self, server: str, http: httpx.Client, token: str | None = None, *, use_env: bool = True,
                 use_cache: bool = True, cache: Path | None = None) -> None:  # fmt: skip
        self.server = server.rstrip("/")
        self.http = http
        self.explicit = token
        self.use_env = use_env
        self.use_cache = use_cache
        self.cache = cache
        self._current: Credentials | None = None
        self._lock = threading.Lock()

    def source(self) -> str:
        """Which source answers now: explicit, env, login, exchange, or none."""
        if self.explicit:
            return "explicit"
        if self.use_env and os.environ.get("PLATFORM_API_TOKEN"):
            return "env"
        if self.use_cache and load_login(self.server, self.cache) is not None:
            return "login"
        if self.use_env and self._has_upstream():
            return "exchange"
        return "none"

    def _has_upstream(self) -> bool:
        env = os.environ
        return bool(
            env.get("PLATFORM_API_IDENTITY_TOKEN_FILE")
            or (env.get("ACTIONS_ID_TOKEN_REQUEST_URL") and env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
            or Path(env.get("PLATFORM_API_KUBERNETES_TOKEN_FILE") or K8S_TOKEN_FILE).is_file()
        )

    def credentials(self, *, force_refresh: bool = False) -> Credentials | None:
        with self._lock:
            return self._credentials(force_refresh)

    def _credentials(self, force_refresh: bool) -> Credentials | None:
        if self.explicit:
            return Credentials(self.explicit, source="explicit")
        if self.use_env and os.environ.get("PLATFORM_API_TOKEN"):
            value = os.environ["PLATFORM_API_TOKEN"].strip()
            return Credentials(value, expiry=jwt_expiry(value), source="env")
        if self.use_cache:
            cached = load_login(self.server, self.cache)
            if cached is not None:
                if (force_refresh or not cached.fresh()) and cached.refresh_token:
                    return self._refresh_login(cached)
                return cached
        if self.use_env and self._has_upstream():
            current = self._current
            if current is not None and current.fresh() and not force_refresh:
                return current
            if current is not None and current.refresh_token:
                try:
                    self._current = refresh(self.http, current)
                    return self._current
                except errors.Unauthenticated:
                    pass  # spent or expired: exchange the upstream token again
            audience = os.environ.get("PLATFORM_API_AUDIENCE", "")
            upstream = upstream_token(audience or urlsplit(self.server).hostname or self.server)
            if upstream:
                self._current = exchange(self.http, upstream, audience, os.environ.get("PLATFORM_API_IDENTITY", ""))
                return self._current
        return None

    def _refresh_login(self, seen: Credentials) -> Credentials | None:
        """The cached login `seen` refreshed: by us, or by another process (another `platformctl auth token`)
        that refreshed it while we waited for the lock, whose pair we then use instead of spending its
        refresh token a second time."""
        with refresh_lock(self.cache or cache_path()):
            current = load_login(self.server, self.cache)
            if current is None or (current.token != seen.token and current.fresh()) or not current.refresh_token:
                return current
            renewed = refresh(self.http, current)
            save_login(self.server, renewed, self.cache)
            return renewed

    def token(self, *, force_refresh: bool = False) -> str | None:
        creds = self.credentials(force_refresh=force_refresh)
        return creds.token if creds else None

    def refreshable(self) -> bool:
        """Whether a refused token could be replaced by asking again (a login with a refresh token, or an
        exchange)."""
        src = self.source()
        if src == "login":
            cached = load_login(self.server, self.cache)
            return bool(cached and cached.refresh_token)
        return src == "exchange"
