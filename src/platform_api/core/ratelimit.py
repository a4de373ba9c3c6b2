"""Token buckets keyed by untrusted strings (client addresses, requested identities), and the anonymous
routes' limit built on them.

Each key has a bucket of `burst` tokens refilled at `rate` per second; a request takes one token or is
told how long to wait. The table is bounded: it keeps the `max_keys` most recently used keys, and a key
evicted while idle loses nothing (an idle bucket is full anyway), so a flood of distinct keys costs
memory proportional to `max_keys` only. Limits are per process: with N worker processes a client may
get up to N times the rate.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from platform_api.core import errors


class TokenBuckets:
    def __init__(
        self, rate: float, burst: int, max_keys: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self.max_keys = max_keys
        self._clock = clock
        # key -> (tokens left, time of that count); most recently used last.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """Take a token for `key`: 0.0 if granted, else the seconds until one is available."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        tokens, then = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)  # the least recently used
        return wait


def retry_after_seconds(wait: float) -> int:
    """A Retry-After value in whole seconds that is never too early (at least 1)."""
    return max(1, math.ceil(wait))


class AnonymousLimit:
    """The limit of the routes that need no token (ping, the public advisory feed and metadata, the OpenAPI
    and discovery documents): one bucket per client address, shared by both transports, so that no client
    can take the server's time from the others for free. Every such request counts, token or not."""

    def __init__(self, rate: float, burst: int) -> None:
        self.buckets = TokenBuckets(rate, burst)

    def check(self, peer: str) -> None:
        """RESOURCE_EXHAUSTED (RATE_LIMITED, Retry-After) when `peer` is over its rate."""
        wait = self.buckets.take(peer)
        if wait > 0:
            raise errors.rate_limited(retry_after_seconds(wait))
