"""The transactional outbox: every mutation records its CloudEvent in the same transaction as the change.

Domain code calls `emit(tx, ctx, body)` inside its transaction, once the response (create, update) or
the request (delete) it describes is known; the event type and subject come from the method's
`events` option. A change that commits always has its event; a change that rolls back never does.
"""

from __future__ import annotations

from typing import Any

from platform_api.core.service import Context
from platform_api.store.db import Conn


async def emit(tx: Conn, ctx: Context, body: Any, *, subject: str = "", group: str = "") -> None:
    """Record the event of `ctx.method` carrying `body` (a record) in the outbox, inside `tx`.

    `subject` and `group` override what the method's events option and the event-type rules derive.
    """
    # The events issue fills this in (outbox table, dispatcher); until then mutations record nothing.
    del tx, ctx, body, subject, group
