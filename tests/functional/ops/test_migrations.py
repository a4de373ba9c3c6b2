"""Migrations applied by several processes at once on a new SQLite file (`serve --workers N` does that):
each version is applied exactly once and no process fails."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from platform_api.store.migrate import migrations


def test_concurrent_migrations_on_a_new_sqlite_file(tmp_path: Path) -> None:
    for attempt in range(3):  # a race: give it a few chances to happen
        db = tmp_path / f"race-{attempt}.db"
        cmd = [sys.executable, "-m", "platform_api.cli", "migrate", "--database", f"sqlite:///{db}"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (_, err) in zip(procs, outs, strict=True):
            assert p.returncode == 0, err
        applied = [name for out, _ in outs for name in json.loads(out)["applied"]]
        expected = [name for _, name, _ in migrations("sqlite")]
        assert sorted(applied) == sorted(expected)  # each applied by exactly one of the processes
        with sqlite3.connect(db) as conn:
            versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == [v for v, _, _ in migrations("sqlite")]
