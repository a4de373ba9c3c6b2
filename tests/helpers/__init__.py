"""Everything the tests share that is not a fixture, in one place: import it as `from tests.helpers import ...`.

- backends: the backend matrix (which tests run on both storage backends, which on PostgreSQL only);
- server: a real `platform-api serve` process (start/stop, token minting, clients), the backends, PostgreSQL;
- api_errors: the ApiError an in-process call raises;
- iam: built-in role uids, structured-error assertions, IAM resource makers, listings, stored-state reads;
- registry: registry resource makers and the image reads by digest;
- run_cli: `platform-api <args>` in this process (or as a process of its own), whatever its exit code;
- imports: `platform-api import` runs, their JSON summary or their one-line refusal;
- grpc: the call timeout and the google.rpc.Status of a failed call;
- metrics: the Prometheus exposition read back as samples;
- oidc: a real upstream OIDC issuer on loopback;
- webhooks: a real webhook receiver on loopback and the checks a customer's receiver makes;
- wire_facts: the published wire contract (tests/fixtures/wire-v2.md) as plain data;
- protowire: protobuf bytes written by hand (fields our messages do not declare).
"""

from tests.helpers import backends, wire_facts
from tests.helpers.api_errors import raised, violated_fields
from tests.helpers.grpc import TIMEOUT, error_info, rpc_error, stamp, unpack
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
    mk_idp,
    mk_org,
    mk_role,
    never_shows,
    ok,
    run_db,
    stored_secret,
    unique,
)
from tests.helpers.imports import imported, refusal_of, refused, run_import, summary_of
from tests.helpers.metrics import Samples, metric, parse_metrics
from tests.helpers.oidc import Upstream, new_key
from tests.helpers.pgruns import database_name
from tests.helpers.registry import image_architectures, image_size, mk_repo
from tests.helpers.run_cli import run_cli
from tests.helpers.server import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    PG_ADMIN,
    BearerInterceptor,
    Server,
    cli,
    free_port,
    kill9,
    new_database,
    pg_database,
    pg_execute,
    scratch_database,
    start_server,
    stop_server,
    wait_ready,
)
from tests.helpers.webhooks import (
    EVENT_ENV,
    Behaviour,
    Received,
    Receiver,
    Verifier,
    event_env,
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
    "Samples",
    "Server",
    "Upstream",
    "Verifier",
    "all_items",
    "assert_denied",
    "assert_error",
    "assert_not_found",
    "backends",
    "cli",
    "database_name",
    "detail",
    "error_info",
    "event_env",
    "fails_first",
    "free_port",
    "image_architectures",
    "image_size",
    "imported",
    "kill9",
    "metric",
    "mk_group",
    "mk_idp",
    "mk_org",
    "mk_repo",
    "mk_role",
    "never_shows",
    "new_database",
    "new_key",
    "ok",
    "parse_metrics",
    "pg_database",
    "pg_execute",
    "raised",
    "receiver",
    "refusal_of",
    "refused",
    "rpc_error",
    "run_cli",
    "run_db",
    "run_import",
    "scratch_database",
    "stamp",
    "start_events_server",
    "start_server",
    "stop_server",
    "stored_secret",
    "summary",
    "summary_of",
    "unique",
    "unpack",
    "verify_standard_webhook",
    "violated_fields",
    "wait_ready",
    "wire_facts",
]
