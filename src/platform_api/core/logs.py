"""Logging set-up for every process we start (serve's workers, the front, dispatch, the CLI): one format, and
messages that always stay on one line.

Log lines carry strings callers control (claims of refused tokens, URLs, names). A line break in one would
let a caller write a line that looks like ours (log forging), so control characters, DEL and Unicode line
separators in a message are escaped (`\\n`, `\\x1b`, `\\u2028`) wherever the message came from. Tracebacks
(exc_info) are ours and keep their lines.
"""

from __future__ import annotations

import logging

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
_ESCAPES = {c: f"\\x{c:02x}" for c in range(32)} | {0x7F: "\\x7f", 0x85: "\\x85", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_ESCAPES |= {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}


def one_line(text: str) -> str:
    return text.translate(_ESCAPES)


class OneLineFormatter(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = one_line(record.message)
        return super().formatMessage(record)


def configure(level: str) -> None:
    """The root logger at `level` (a settings' log_level), writing one-line messages to stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLineFormatter(FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler])
