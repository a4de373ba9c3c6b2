"""The CLI's settings file, `$XDG_CONFIG_HOME/platformctl/config.yaml` (default ~/.config/...): the server URL,
its gRPC address, the transport, the default organization and output format. The login cache lives beside it
(platform_api.client.auth)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from platform_api.client.auth import config_dir

KEYS = {
    "server": "the server's URL (default http://localhost:8080; env PLATFORM_API_URL)",
    "grpc": "the gRPC address, host:port (default: the port the server publishes; env PLATFORM_API_GRPC)",
    "transport": "grpc or http (default grpc; env PLATFORM_API_TRANSPORT)",
    "org": "the default organization: a uid or a name (scope of ls, parent of create)",
    "output": "the default output format: table, wide, json or yaml (default table)",
}
_MAX = 64 << 10


def path() -> Path:
    return config_dir() / "config.yaml"


class ConfigError(Exception):
    pass


def load() -> dict[str, str]:
    p = path()
    try:
        with p.open("rb") as f:
            raw = f.read(_MAX + 1)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"cannot read {p}: {e.strerror}") from None
    if len(raw) > _MAX:
        raise ConfigError(f"{p} is larger than {_MAX} bytes")
    try:
        data: Any = yaml.safe_load(raw) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{p} is not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p} must hold a mapping of settings")
    return {str(k): str(v) for k, v in data.items() if k in KEYS and v is not None}


def save(values: dict[str, str]) -> None:
    p = path()
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".config.")
    try:
        with os.fdopen(fd, "w") as f:
            yaml.safe_dump({k: v for k, v in sorted(values.items()) if v}, f, default_flow_style=False)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
