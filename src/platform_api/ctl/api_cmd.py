"""`platformctl api`: any call of the API as JSON, in the manner of `gh api`, with the signed-in token and the
configured server (the client's own transports, so the token source, retries of a refused token and the gRPC
address are those of every other command):

- `platformctl api [METHOD] PATH [-f k=v ...] [-d JSON | --input FILE]`: an HTTP/JSON call to any route;
- `platformctl api grpc pkg.Service/Method [-d JSON] [-f k=v ...]`: a gRPC call built from the contract's own
  descriptors (every version, v1 included), JSON in, protobuf on the wire, JSON out; no reflection needed and
  nothing to install (grpcurl is not packaged everywhere).

`--paginate` follows `nextPageToken` and merges the list fields of the pages into one answer."""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import sys
from typing import Any

import msgspec

from platform_api.client import contract
from platform_api.client.contract import Method
from platform_api.client.pages import Pages
from platform_api.client.transport import HttpTransport, request_from_json
from platform_api.ctl import output
from platform_api.ctl.common import USAGE, CtlError, Ctx, command

VERBS = ("GET", "POST", "PATCH", "PUT", "DELETE")
BODY_VERBS = ("POST", "PATCH", "PUT")
MAX_PAGES = 100

EXAMPLES = [
    'platformctl api GET /iam/v2/groups -f uidp.childrenOf="$ORG"',
    'platformctl api POST /registry/v2/repos/"$ORG" -f name=nginx -f description="web server"',
    'platformctl api /registry/v2/repos -f uidp.descendantsOf="$ORG" -f pageSize=50 --paginate -o yaml',
    'platformctl api PATCH "/registry/v2/repos/$REPO?updateMask=description" -d \'{"description": "web"}\'',
    'platformctl api /registry/v1/repos -f uidp.childrenOf="$ORG"',
    "platformctl api grpc chainguard.platform.iam.v2.GroupsService/ListGroups -d '{\"pageSize\": 10}'",
    'platformctl api grpc chainguard.platform.iam.Groups/List -f uidp.childrenOf="$ORG"',
]


def register(sub: Any) -> None:
    p = command(sub, "api", "call any API route (HTTP/JSON) or gRPC method with the signed-in token; JSON out "
                "(-o yaml)", EXAMPLES, run)  # fmt: skip
    p.usage = (
        "platformctl api [METHOD] PATH [-f KEY=VALUE ...] [-d JSON | --input FILE] [--paginate] [-o FMT]\n"
        "       platformctl api grpc pkg.Service/Method [-d JSON] [-f KEY=VALUE ...] [--paginate] [-o FMT]"
    )
    p.add_argument("request", nargs="+", metavar="ARG",
                   help="an HTTP method (GET, POST, PATCH, PUT, DELETE; default GET, POST with a body) and a "
                   "path on the server; or `grpc` and a method's full name (pkg.Service/Method or "
                   "pkg.Service.Method)")  # fmt: skip
    p.add_argument("-f", "--field", action="append", default=[], metavar="KEY=VALUE",
                   help="a string parameter: a query parameter for GET/DELETE, else a body field (dotted keys nest: "
                   "uidp.childrenOf=...; a key given twice or ending in [] makes an array); repeatable")  # fmt: skip
    p.add_argument("-F", "--typed-field", action="append", default=[], metavar="KEY=VALUE",
                   help="as -f, with true, false, null and numbers as JSON values")  # fmt: skip
    body = p.add_mutually_exclusive_group()
    body.add_argument("-d", "--data", metavar="JSON", help="the request body (gRPC: the request message) as JSON")
    body.add_argument("--input", metavar="FILE", help="the body from a file of JSON (- for standard input)")
    p.add_argument("--paginate", action="store_true",
                   help="follow nextPageToken and merge the pages' lists into one answer")  # fmt: skip
    p.add_argument("--max-pages", type=_positive, default=MAX_PAGES, metavar="N",
                   help=f"with --paginate, stop after N pages (default {MAX_PAGES}; the answer keeps the "
                   "nextPageToken to go on from)")  # fmt: skip


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return n


# --- parameters ---------------------------------------------------------------------------------------------


def _typed(text: str) -> Any:
    if text in ("true", "false", "null"):
        return json.loads(text)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def fields(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """The -f and -F parameters as (key, value), in the order given (-f first)."""
    out: list[tuple[str, Any]] = []
    for flag, given, typed in (("-f", args.field, False), ("-F", args.typed_field, True)):
        for item in given:
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise CtlError(f"{flag} {item!r}: give KEY=VALUE", USAGE)
            out.append((key, _typed(value) if typed else value))
    return out


def nest(params: list[tuple[str, Any]], into: dict[str, Any] | None = None) -> dict[str, Any]:
    """Body fields from parameters: `a.b=1` -> {"a": {"b": 1}}; `k[]=x` or `k` twice -> an array."""
    out: dict[str, Any] = into if into is not None else {}
    for key, value in params:
        array = key.endswith("[]")
        parts = key.removesuffix("[]").split(".")
        cur = out
        for i, part in enumerate(parts[:-1]):
            nxt = cur.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise CtlError(f"{'.'.join(parts[: i + 1])} is given both as a value and as an object", USAGE)
            cur = nxt
        last = parts[-1]
        if array:
            old = cur.get(last)
            cur[last] = (old if isinstance(old, list) else [] if old is None else [old]) + [value]
        elif last in cur:
            old = cur[last]
            cur[last] = (old if isinstance(old, list) else [old]) + [value]
        else:
            cur[last] = value
    return out


def query(params: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    out = []
    for key, value in params:
        if value is None:
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        out.append((key.removesuffix("[]"), text))
    return out


def raw_body(args: argparse.Namespace) -> Any:
    """The JSON of -d or --input, parsed (None: not given)."""
    if args.data is not None:
        text, where = args.data, "-d"
    elif args.input is not None:
        where = "standard input" if args.input == "-" else args.input
        try:
            if args.input == "-":
                text = sys.stdin.read()
            else:
                with open(args.input, encoding="utf-8") as f:
                    text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise CtlError(f"--input: cannot read {where}: {getattr(e, 'strerror', None) or e}", USAGE) from None
    else:
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        raise CtlError(f"{where}: not JSON: {e}", USAGE) from None


# --- output and pages ---------------------------------------------------------------------------------------


def emit(value: Any, fmt: str) -> None:
    """JSON (pretty) unless -o yaml, as every command writes them; table and wide have no columns for an
    arbitrary answer: JSON."""
    if isinstance(value, str):  # an answer that is not JSON, as it came
        sys.stdout.write(value if not value or value.endswith("\n") else value + "\n")
    else:
        output.emit(value, "yaml" if fmt == "yaml" else "json", ())


def merge(pages: list[Any]) -> Any:
    """One answer of several pages: each list field holds the items of every page in order; the other fields
    are the first page's; `nextPageToken` is the last page's (absent when the list is complete)."""
    if len(pages) == 1 or not all(isinstance(p, dict) for p in pages):
        return pages[0] if len(pages) == 1 else pages
    out = dict(pages[0])
    for page in pages[1:]:
        for key, value in page.items():
            if isinstance(value, list):
                out[key] = list(out.get(key) or []) + value
    out.pop("nextPageToken", None)
    last = pages[-1].get("nextPageToken")
    if last:
        out["nextPageToken"] = last
    return out


def _next(answer: Any, seen: set[str]) -> str:
    token = answer.get("nextPageToken") if isinstance(answer, dict) else None
    if not isinstance(token, str) or not token or token in seen:  # a token seen before would loop for ever
        return ""
    seen.add(token)
    return token


def _stopped(ctx: Ctx) -> None:
    print(f"platformctl: stopped after {ctx.args.max_pages} pages (--max-pages); the answer's nextPageToken "
          "goes on from there", file=sys.stderr)  # fmt: skip


# --- the command --------------------------------------------------------------------------------------------


def run(ctx: Ctx) -> int:
    words: list[str] = ctx.args.request
    params = fields(ctx.args)
    body = raw_body(ctx.args)
    fmt = ctx.output
    if words[0].lower() == "grpc":
        if len(words) != 2:
            raise CtlError("give one method: platformctl api grpc pkg.Service/Method", USAGE)
        emit(call_grpc(ctx, words[1], params, body), fmt)
        return 0
    if len(words) > 2:
        raise CtlError(f"give [METHOD] PATH, not {' '.join(words)!r}", USAGE)
    verb = words[0].upper() if len(words) == 2 else ("POST" if body is not None else "GET")
    if verb not in VERBS:
        raise CtlError(f"{words[0]!r} is not a method: give one of {', '.join(VERBS)}", USAGE)
    emit(call_http(ctx, verb, words[-1], params, body), fmt)
    return 0


def _path(ctx: Ctx, given: str) -> str:
    if given.startswith(("http://", "https://")):
        if not given.startswith(ctx.server + "/"):
            raise CtlError(f"{given!r} is not on the server {ctx.server}: give a path (/iam/v2/groups)", USAGE)
        given = given[len(ctx.server) :]
    return given if given.startswith("/") else "/" + given


def call_http(ctx: Ctx, verb: str, path: str, params: list[tuple[str, Any]], body: Any) -> Any:
    path = _path(ctx, path)
    # Fields are the body of a POST/PATCH/PUT unless a body is given whole; then, and for GET/DELETE, the query.
    if body is None and verb in BODY_VERBS:
        body, q = nest(params), []
    else:
        q = query(params)
    ctx.args.transport = "http"  # this call is HTTP whatever the configured transport
    client = ctx.client()
    transport = client.transport
    assert isinstance(transport, HttpTransport)
    pages: list[Any] = []
    seen: set[str] = set()
    while True:
        pages.append(_send(client, transport, verb, path, q, body))
        token = _next(pages[-1], seen) if ctx.args.paginate else ""
        if not token:
            break
        if len(pages) >= ctx.args.max_pages:
            _stopped(ctx)
            break
        if isinstance(body, dict) and verb in BODY_VERBS:
            body = {**{k: v for k, v in body.items() if k != "page_token"}, "pageToken": token}
        else:
            q = [(k, v) for k, v in q if k not in ("pageToken", "page_token")] + [("pageToken", token)]
    return merge(pages)


def _send(client: Any, transport: HttpTransport, verb: str, path: str, q: list[tuple[str, str]], body: Any) -> Any:
    """One request with the client's token, renewed once if refused and renewable (Client.authorized)."""
    answer = client.authorized(lambda token: transport.send(verb, path, q, body, token, client.timeout))
    try:
        return json.loads(answer) if answer.strip() else {}
    except ValueError:
        return answer.decode("utf-8", "replace")


# --- gRPC ---------------------------------------------------------------------------------------------------


def find_method(name: str) -> Method:
    """A method by `pkg.Service/Method` or `pkg.Service.Method` (a leading / allowed); a usage error naming the
    closest methods otherwise."""
    wanted = name.strip().lstrip("/").replace("/", ".")
    methods = contract.methods()
    m = methods.get(wanted)
    if m is not None:
        return m
    service = wanted.rpartition(".")[0]
    slashed = {f"{full.rpartition('.')[0]}/{m.name}": full for full, m in methods.items()}
    same_service = sorted(k for k, full in slashed.items() if full.rpartition(".")[0] == service)
    if same_service:
        raise CtlError(f"the service {service} has no method {wanted.rpartition('.')[2]!r}; its methods: "
                       f"{', '.join(k.rpartition('/')[2] for k in same_service)}", USAGE)  # fmt: skip
    probe = wanted.rpartition(".")[0] + "/" + wanted.rpartition(".")[2]
    close = difflib.get_close_matches(probe, list(slashed), n=5, cutoff=0.6)
    if not close:  # a method name alone, or a service's short name: the methods that end the same way
        tail = probe.rsplit(".", 1)[-1].lower()
        close = sorted(k for k in slashed if k.lower().endswith(tail) or tail in k.lower())[:5]
    hint = f"; did you mean: {', '.join(close)}" if close else " (names are pkg.Service/Method)"
    raise CtlError(f"no gRPC method {name!r} in the contract{hint}", USAGE)


def grpc_request(m: Method, data: Any) -> Any:
    """The request record of `data` (JSON of the request message), checked as protobuf's JSON mapping does:
    unknown fields and wrong types are a usage error naming them."""
    if not isinstance(data, dict):
        raise CtlError(f"the request of {m.name} is a JSON object ({m.input.full_name}), not {data!r}", USAGE)
    try:
        return request_from_json(m, data)
    except ValueError as e:
        raise CtlError(f"the request is not a valid {m.input.full_name}: {e}", USAGE) from None


def call_grpc(ctx: Ctx, name: str, params: list[tuple[str, Any]], body: Any) -> Any:
    m = find_method(name)
    data = body if body is not None else {}
    if params:
        if not isinstance(data, dict):
            raise CtlError("-f/-F add fields to a JSON object: -d must be one", USAGE)
        data = nest(params, json.loads(json.dumps(data)))
    request = grpc_request(m, data)
    ctx.args.transport = "grpc"  # the gRPC address as every command finds it (--grpc, config, discovery)
    client = ctx.client()
    pages = "page_token" in m.input.fields_by_name and "next_page_token" in m.output.fields_by_name
    if not (ctx.args.paginate and pages):
        return msgspec.to_builtins(client.call(m, request))
    # The client's own paging (a token seen before ends it), at most --max-pages pages.
    answers = list(itertools.islice(Pages(client.call, m, request).pages(), ctx.args.max_pages))
    last, earlier = answers[-1].next_page_token, {a.next_page_token for a in answers[:-1]}
    if len(answers) == ctx.args.max_pages and last and last not in earlier:
        _stopped(ctx)
    return merge([msgspec.to_builtins(a) for a in answers])
