"""Everything the tests share that is not a fixture, in one place: import it as `from tests.helpers import ...`.

- server: a real `platform-api serve` process (start/stop, token minting, clients), the backends, PostgreSQL;
- iam: built-in role uids, structured-error assertions, resource makers, listings, stored-state reads;
- grpc: the call timeout and the google.rpc.Status of a failed call;
- oidc: a real upstream OIDC issuer on loopback;
- webhooks: a real webhook receiver on loopback and the checks a customer's receiver makes;
- wire_facts: the published wire contract (tests/fixtures/wire-v2.md) as plain data.
"""

from tests.helpers import wire_facts
from tests.helpers.grpc import TIMEOUT, error_info, rpc_error, unpack
from tests.helpers.iam import (
    EDITOR,
    OWNER,
    VIEWER,
    all_items,
    assert_denied,
    assert_error,
    assert_not_found,
    detail,
    mk_group,
    mk_org,
    mk_role,
    never_shows,
    ok,
    run_db,
    stored_secret,
    unique,
)
from tests.helpers.oidc import Upstream, new_key
from tests.helpers.server import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    PG_ADMIN,
    BearerInterceptor,
    Server,
    free_port,
    pg_execute,
    scratch_database,
    start_server,
    stop_server,
)
from tests.helpers.webhooks import (
    EVENT_ENV,
    Behaviour,
    Received,
    Receiver,
    Verifier,
    fails_first,
    receiver,
    start_events_server,
    summary,
    verify_standard_webhook,
)

__all__ = [
    "BACKENDS",
    "BUILTIN_ROLE_UIDS",
    "EDITOR",
    "EVENT_ENV",
    "OWNER",
    "PG_ADMIN",
    "TIMEOUT",
    "VIEWER",
    "BearerInterceptor",
    "Behaviour",
    "Received",
    "Receiver",
    "Server",
    "Upstream",
    "Verifier",
    "all_items",
    "assert_denied",
    "assert_error",
    "assert_not_found",
    "detail",
    "error_info",
    "fails_first",
    "free_port",
    "mk_group",
    "mk_org",
    "mk_role",
    "never_shows",
    "new_key",
    "ok",
    "pg_execute",
    "receiver",
    "rpc_error",
    "run_db",
    "scratch_database",
    "start_events_server",
    "start_server",
    "stop_server",
    "stored_secret",
    "summary",
    "unique",
    "unpack",
    "verify_standard_webhook",
    "wire_facts",
]
