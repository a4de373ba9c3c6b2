"""Log lines stay one line whatever a caller put in the message (log forging), in every process we start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "platform_api"


def test_a_message_with_line_breaks_and_escapes_stays_one_line() -> None:
    code = (
        "import logging; from platform_api.core import logs; logs.configure('info');"
        "logging.getLogger('platform_api.iam').info('token exchange refused: no identity accepts sub=%s',"
        " 'x\\n2026-01-01 00:00:00,000 WARNING platform_api forged\\r\\x1b[31m\\u2028end')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].endswith(
        "INFO platform_api.iam token exchange refused: no identity accepts sub="
        "x\\n2026-01-01 00:00:00,000 WARNING platform_api forged\\r\\x1b[31m\\u2028end"
    ), lines[0]


def test_tracebacks_keep_their_lines() -> None:
    code = (
        "import logging; from platform_api.core import logs; logs.configure('info')\n"
        "try:\n    raise ValueError('a\\nb')\nexcept ValueError:\n    logging.getLogger('x').exception('failed')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stderr.splitlines()[0].endswith("ERROR x failed") and "Traceback" in r.stderr


def test_every_process_configures_logging_through_one_place() -> None:
    """serve's workers, the front, dispatch and the CLI: a basicConfig elsewhere would bypass the escaping."""
    found = [p.relative_to(SRC) for p in SRC.rglob("*.py") if "basicConfig" in p.read_text() and "gen" not in p.parts]
    assert [str(p) for p in found] == ["core/logs.py"]
