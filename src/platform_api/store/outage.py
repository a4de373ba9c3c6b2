"""One log line when the database stops answering and one when it answers again, with the number of calls
refused in between: during an outage every request fails the same way, and a line (or a traceback) per
request buried the log (~130 a second in issue 26's 20-second outage)."""

from __future__ import annotations

import time

from platform_api.store.interface import log


class Outage:
    """The state of one database handle's outage, if any. A store operation notes `failures` as it begins
    and calls `answered` with it when it succeeds (only while `since` is set: one comparison otherwise)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.failures = 0  # every refusal so far: an operation that began before the latest proves nothing
        self.since: float | None = None  # monotonic time of the outage's first refusal; None: no outage
        self.refused = 0  # calls refused in this outage

    def failed(self, error: BaseException) -> None:
        """A call was refused because of `error` (a lost connection, an unreachable database, a failed COMMIT)."""
        self.failures += 1
        self.refused += 1
        if self.since is None:
            self.since = time.monotonic()
            log.error(
                "%s unavailable (%s: %s): answering 503 UNAVAILABLE until it answers again",
                self.name, type(error).__name__, str(error) or "no detail",
            )  # fmt: skip

    def answered(self, began: int) -> None:
        """An operation that began when `failures` was `began` succeeded: the outage is over when no call was
        refused since it began (an older one may have been under way on a connection that survived)."""
        if self.since is not None and began == self.failures:
            log.warning(
                "%s available again after %.1f s; %d calls refused meanwhile",
                self.name, time.monotonic() - self.since, self.refused,
            )  # fmt: skip
            self.since, self.refused = None, 0
