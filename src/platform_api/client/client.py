"""One client object per server: typed methods per API area over the generated records (`client.registry.
create_repo(parent, Repo(name=...))`), built from the contract's descriptors, over gRPC (default) or
HTTP/JSON; retries with backoff and jitter; Lists as iterators that follow `nextPageToken`."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import msgspec

from platform_api.client import checks, contract, creates, discovery, errors, retries
from platform_api.client.auth import Auth
from platform_api.client.contract import Method
from platform_api.client.methods import advisory, events, iam, libraries, ping, registry, vulnerabilities
from platform_api.client.pages import Pages
from platform_api.client.transport import USER_AGENT, GrpcTransport, HttpTransport, Transport

DEFAULT_URL = "http://localhost:8080"
T = TypeVar("T")


class Area:
    """The methods of one API area (`registry`, `iam`, ...), by python name. Each takes the request record,
    or its fields: positionally in the request's field order, or by name (`create_repo(parent, repo)`,
    `list_repos(uidp=UIDPFilter(descendants_of=org))`). Paged Lists return `Pages`."""

    def __init__(self, client: Client, area: str) -> None:
        self._client = client
        self._area = area
        self._methods = contract.area_methods(area)

    def __dir__(self) -> list[str]:
        return sorted(self._methods)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        m = self._methods.get(name)
        if m is None:
            raise AttributeError(f"the {self._area} API has no method {name!r}")
        client = self._client

        def method(*args: Any, **kwargs: Any) -> Any:
            return client.invoke(m, *args, **kwargs)

        fields = ", ".join(f.name for f in m.input.fields)
        answer = f"Pages[{m.items}]" if m.items else m.output_record.__name__
        method.__name__, method.__qualname__ = name, f"{self._area}.{name}"
        method.__doc__ = f"{m.full_name}: {name}({fields}) -> {answer}"
        return method


def build_request(m: Method, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if len(args) == 1 and not kwargs and isinstance(args[0], m.input_record):
        checks.request(m.input, args[0])
        return args[0]
    names = [f.name for f in m.input.fields]
    if len(args) > len(names):
        raise TypeError(f"{m.python_name}() takes at most {len(names)} positional arguments ({', '.join(names)})")
    values = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{m.python_name}() has no field {key!r} (fields: {', '.join(names)})")
        if key in values:
            raise TypeError(f"{m.python_name}() got {key!r} twice")
        values[key] = value
    values = {k: v for k, v in values.items() if v is not None}  # None: not set (the field keeps its default)
    # Through builtins and back: dicts are accepted for message fields, and a wrong type fails here, naming it;
    # a value of the right type its field cannot take (a duration "1h", an unknown enum name) is InvalidArgument.
    data = msgspec.to_builtins(m.input_record(**values))
    checks.request(m.input, data)
    try:
        return msgspec.convert(data, m.input_record)
    except msgspec.ValidationError as e:
        raise TypeError(f"{m.python_name}(): {e}") from None


class Client:
    """A client of one server.

    url: the server's HTTP URL (default `$PLATFORM_API_URL`, else http://localhost:8080); grpc: the gRPC
    address (default `$PLATFORM_API_GRPC`, else what the server publishes, read at the first call: see
    client/discovery.py);
    transport: "grpc" or "http" (default `$PLATFORM_API_TRANSPORT`, else grpc);
    token: an explicit access token (else the sources of client.auth, in order); retries: how many times an
    UNAVAILABLE or rate-limited call is tried again.
    """

    # The areas of the v2 API: each an Area at run time, described by its generated Protocol (client/methods/).
    advisory: advisory.Advisory
    events: events.Events
    iam: iam.Iam
    libraries: libraries.Libraries
    ping: ping.Ping
    registry: registry.Registry
    vulnerabilities: vulnerabilities.Vulnerabilities

    def __init__(self, url: str | None = None, *, grpc: str | None = None, transport: str | None = None,
                 token: str | None = None, timeout: float = 30.0, retries: int = 4, max_retry_wait: float = 30.0,
                 use_login_cache: bool = True, user_agent: str = USER_AGENT,
                 sleep: Callable[[float], None] = time.sleep) -> None:  # fmt: skip
        self.url = (url or os.environ.get("PLATFORM_API_URL") or DEFAULT_URL).rstrip("/")
        transport = transport or os.environ.get("PLATFORM_API_TRANSPORT") or "grpc"
        if transport not in ("grpc", "http"):
            raise ValueError(f"transport must be 'grpc' or 'http', not {transport!r}")
        self.transport_name = transport
        grpc = grpc or os.environ.get("PLATFORM_API_GRPC") or None
        self._sts_http = httpx.Client(base_url=self.url, headers={"user-agent": user_agent})
        self.transport: Transport
        if transport == "http":
            self.transport = HttpTransport(self.url, user_agent=user_agent)
        elif grpc:
            address = discovery.explicit(self.url, grpc)
            self.transport = GrpcTransport(
                address.target, tls=address.tls, user_agent=user_agent, source=address.source
            )
        else:
            self.transport = discovery.DiscoveredGrpc(self.url, self._sts_http, user_agent)
        self.auth = Auth(self.url, self._sts_http, token, use_cache=use_login_cache)
        self.timeout = timeout
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self._sleep = sleep
        for area in contract.areas():
            setattr(self, area, Area(self, area))

    @property
    def grpc_target(self) -> str:
        """The gRPC address calls go to ("" over HTTP/JSON, or when the server serves no gRPC); found out
        from the server first if it is not known yet."""
        if isinstance(self.transport, discovery.DiscoveredGrpc):
            return self.transport.resolve().target
        return self.transport.target if isinstance(self.transport, GrpcTransport) else ""

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()
        self._sts_http.close()

    def invoke(self, m: Method, *args: Any, **kwargs: Any) -> Any:
        request = build_request(m, args, kwargs)
        if m.items:
            return Pages(self.call, m, request)
        return self.call(m, request)

    def call(self, method: Method | str, request: Any) -> Any:
        """One RPC (by Method or full name) with the request record; its response record. Retries
        UNAVAILABLE with exponential backoff and full jitter, and RESOURCE_EXHAUSTED when the server says
        when to come back (RetryInfo, or the rate limit's retryAfterSeconds / Retry-After), waiting at least
        that long; a token refused as UNAUTHENTICATED is renewed once when its source can renew it. An
        attempt that may have been carried out (the request left, and no answer says it did nothing) is sent
        again only for reads and for creates that cannot store twice (client/retries.py); such a create's
        ALREADY_EXISTS then answers the stored resource (client/creates.py)."""
        m = contract.methods()[method] if isinstance(method, str) else method
        attempt = 0
        unknown = False  # an earlier attempt of this create may have been stored (client/creates.py)
        while True:
            try:
                return self.authorized(lambda token: self.transport.call(m, request, token, self.timeout))
            except errors.AlreadyExists as e:
                found = creates.stored(self.call, m, request, e) if unknown else None
                if found is None:
                    raise
                return found
            except (errors.Unavailable, errors.ResourceExhausted) as e:
                if isinstance(e, errors.Unavailable) and retries.outcome_unknown(e):
                    if not retries.repeatable(m):
                        raise  # sent again, it could be carried out twice
                    unknown = unknown or creates.is_create(m)
                delay = self._retry_delay(e, attempt)
                if delay is None:
                    raise
                attempt += 1
                self._sleep(delay)

    def authorized(self, send: Callable[[str | None], T]) -> T:
        """`send(token)` with this client's token; a token refused as UNAUTHENTICATED is renewed and sent once
        more when its source can renew it (a login's refresh token, a token file rewritten, a CI token asked
        again). Every call of the client goes through here, and `platformctl api`'s raw requests."""
        try:
            return send(self.auth.token())
        except errors.Unauthenticated:
            if not self.auth.refreshable():
                raise
            return send(self.auth.token(force_refresh=True))

    def _retry_delay(self, e: errors.ApiError, attempt: int) -> float | None:
        if attempt >= self.retries:
            return None
        asked = e.retry_delay
        if isinstance(e, errors.ResourceExhausted):
            if asked is None or asked > self.max_retry_wait:
                return None  # a cap, not a rate: retrying cannot help; or longer than the caller would wait
            return asked + random.uniform(0, max(0.05, asked * 0.1))
        backoff = min(self.max_retry_wait, 0.2 * 2**attempt)
        return max(asked or 0.0, random.uniform(0, backoff))
