"""Which failed calls the client may send again (docs/python-client.md, Retries).

A failure is safe to repeat when the attempt cannot have been carried out: the request never left this client
(no connection could be made: refused, unresolvable, timed out connecting), or the server answered that it did
nothing (a 503 whose reason is NOTHING_STORED or UNAVAILABLE, a rate limit). Any other failure may have been
carried out (a connection lost, or an answer that did not come in time, after the request left; a 503 whose
reason is COMMIT_OUTCOME_UNKNOWN): sent again, the call could be carried out twice, so it is sent again only
where that does nothing twice: a read (its HTTP rule's verb is GET; the one GET that reads something once, a
headless login's session, answers NOT_FOUND the second time, its first answer lost either way), or a create
whose key the server keeps unique (client/creates.py, which turns the second attempt's ALREADY_EXISTS into the
stored resource). Updates and deletes are not: a delete sent twice answers NOT_FOUND for a delete that
happened, and an update sent again after someone else's could undo theirs.
"""

from __future__ import annotations

from platform_api.client import creates, errors
from platform_api.client.contract import Method

# The server's reasons for a 503 that did nothing (a rate limit or the server's own "retry" answers are not 503).
NOTHING_DONE = frozenset({"NOTHING_STORED", "UNAVAILABLE"})


def outcome_unknown(e: errors.ApiError) -> bool:
    """Whether the failed attempt `e` (an UNAVAILABLE) may have been carried out."""
    return e.request_sent and e.reason not in NOTHING_DONE


def repeatable(m: Method) -> bool:
    """Whether `m` may be sent again after an attempt that may have been carried out."""
    return is_read(m) or m.name in creates.REPEATABLE


def is_read(m: Method) -> bool:
    return m.rule is not None and m.rule.verb == "GET"
