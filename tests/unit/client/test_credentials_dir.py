"""The login cache's folder (client/auth.py): only its owner may enter it. Created 0700; one left wider (by an
older version, or a person) is tightened on the next write; one another user owns is refused, since they could
read or swap what is kept there."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from platform_api.client import Credentials, FailedPrecondition
from platform_api.client import auth as client_auth

SERVER = "http://127.0.0.1:1"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_folder_is_0700_and_the_cache_0600(tmp_path: Path) -> None:
    cache = tmp_path / "platformctl" / "credentials.json"
    client_auth.save_login(SERVER, Credentials("t", "r", None, "login"), cache)
    assert mode(cache.parent) == 0o700 and mode(cache) == 0o600


@pytest.mark.parametrize("wider", [0o755, 0o777, 0o711, 0o750])
def test_a_wider_folder_is_tightened(tmp_path: Path, wider: int) -> None:
    folder = tmp_path / "platformctl"
    folder.mkdir()
    folder.chmod(wider)
    client_auth.save_login(SERVER, Credentials("t", "r", None, "login"), folder / "credentials.json")
    assert mode(folder) == 0o700
    folder.chmod(wider)
    assert client_auth.forget_login(SERVER, folder / "credentials.json")
    assert mode(folder) == 0o700
    folder.chmod(wider)
    with client_auth.refresh_lock(folder / "credentials.json"):
        assert mode(folder) == 0o700 and mode(folder / "credentials.json.lock") == 0o600


def test_a_folder_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "platformctl"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    owner = folder.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)  # as if another user owned it
    with pytest.raises(FailedPrecondition, match="belongs to another user"):
        client_auth.save_login(SERVER, Credentials("t", "r", None, "login"), folder / "credentials.json")
    assert not (folder / "credentials.json").exists() and mode(folder) == 0o755
