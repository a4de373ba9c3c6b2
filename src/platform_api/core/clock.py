"""Time: RFC 3339 UTC text with exactly three fractional digits (sortable as text)."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now() -> str:
    return format_ns(time.time_ns())


def format_ns(ns: int) -> str:
    secs, rem = divmod(ns, 1_000_000_000)
    t = time.gmtime(secs)
    # The year by hand: strftime's %Y does not pad years below 1000, which would break sorting as text.
    return f"{t.tm_year:04d}" + time.strftime("-%m-%dT%H:%M:%S", t) + f".{rem // 1_000_000:03d}Z"


def parse(text: str) -> str:
    """Normalize an RFC 3339 timestamp to our canonical form; ValueError when malformed."""
    if not text or (text[-1] not in "Zz" and "+" not in text[10:] and "-" not in text[10:]):
        raise ValueError("timestamp must be RFC 3339 with a time zone")
    dt = datetime.fromisoformat(text.replace("z", "Z"))
    if dt.tzinfo is None:
        raise ValueError("timestamp must carry a time zone")
    try:
        dt = dt.astimezone(UTC)
    except OverflowError:  # an offset moving it outside years 1-9999
        raise ValueError("timestamp out of range") from None
    return f"{dt.year:04d}" + dt.strftime("-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def to_epoch(text: str) -> float:
    """Seconds since the epoch of one of our timestamps."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def from_epoch(seconds: float) -> str:
    return format_ns(int(seconds * 1_000_000_000))
