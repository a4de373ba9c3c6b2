"""The resource commands (`iam groups`, `registry repos`, `events subscriptions`, ...): `ls`, `get`, `create`,
`update`, `rm`, all built from one table of specs over the client's methods, so every resource behaves alike:
names accepted for uids (resolve.py), `ls` scoped to `--parent` (default: the default organization) and its
subtree, `update` changing only the flags given, `rm` of several at once with progress."""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from typing import Any

from platform_api.client import UIDPFilter
from platform_api.ctl import output, resolve, values
from platform_api.ctl.common import GENERIC, NOT_FOUND, OK, USAGE, CtlError, Ctx, command, group


@dataclass(frozen=True)
class Flag:
    flag: str  # --description
    path: str  # the record's field, JSON names, dotted for nested fields: claimMatch.issuer
    help: str
    # str, list (repeatable), bool, caps (repeatable, comma-separated), or a resolver of resolve.RESOLVERS.
    # A value's type is its field's in the contract (values.py): `--ttl` a Duration, `--state` an enum, ...
    kind: str = "str"
    create: bool = True
    update: bool = True
    required: bool = False  # on create
    off: str = ""  # a bool's other flag, setting it false (`--enabled` for `--disabled`); else --no-<flag>


@dataclass(frozen=True)
class Spec:
    group: str  # iam
    name: str  # groups
    kind: str  # group (in messages)
    area: str  # the client's area
    field: str  # the request's resource field (create/update): group, role_binding
    methods: dict[str, str]  # verb -> client method: ls get create update rm
    columns: tuple[output.Column, ...]
    wide: tuple[output.Column, ...] = ()
    flags: tuple[Flag, ...] = ()
    named: bool = True  # has a name: positional NAME on create, found by name
    parent: str = "group"  # what --parent names on create and ls
    filters: tuple[Flag, ...] = ()  # ls: request fields (kind: resolver)
    example: str = ""
    # Fields the server answers with on create only (a secret): shown in every output format then, with
    # `once_note` on stderr, since no later call shows them again.
    once: tuple[output.Column, ...] = ()
    once_note: str = ""


CRUD = {"ls": "list_{}", "get": "get_{}", "create": "create_{}", "update": "update_{}", "rm": "delete_{}"}


def crud(singular: str, plural: str, *verbs: str) -> dict[str, str]:
    return {v: CRUD[v].format(plural if v == "ls" else singular) for v in verbs or CRUD}


def _set(target: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        target = target.setdefault(p, {})
    target[parts[-1]] = value


def _dest(flag: Flag) -> str:
    return "f_" + flag.flag.lstrip("-").replace("-", "_")


def _value(ctx: Ctx, flag: Flag, raw: Any) -> Any:
    """The request's value of a flag: typed values were converted by the parser (values.py); names resolved."""
    if flag.kind == "caps":
        return [c for item in raw for c in item]
    if flag.kind in resolve.RESOLVERS:
        return resolve.RESOLVERS[flag.kind](ctx, raw)
    return raw


def _record(ctx: Ctx, spec: Spec, verb: str) -> tuple[dict[str, Any], list[str]]:
    """The resource as JSON from the flags given, and the JSON paths they set."""
    body: dict[str, Any] = {}
    paths: list[str] = []
    if spec.named and verb == "create":
        body["name"] = ctx.args.name
    if spec.named and verb == "update" and ctx.args.f_name is not None:
        body["name"] = ctx.args.f_name
        paths.append("name")
    for flag in spec.flags:
        if not getattr(flag, verb):
            continue
        raw = getattr(ctx.args, _dest(flag), None)
        if raw is None or (flag.kind in ("list", "caps") and raw == []):
            continue
        _set(body, flag.path, _value(ctx, flag, raw))
        paths.append(flag.path)
    return body, paths


def resource_uid(ctx: Ctx, spec: Spec, ref: str) -> str:
    if resolve.is_uid(ref) or not spec.named:
        return ref
    if spec.kind == "group":
        # A path from the organization down; a bare name is first looked for under the default organization,
        # then as an organization itself.
        if "/" in ref or not ctx.org:
            return resolve.group(ctx, ref)
        try:
            return resolve.named(ctx, "group", "iam", "list_groups", ref)
        except CtlError as e:
            if e.code != NOT_FOUND:
                raise
            return resolve.group(ctx, ref)
    return resolve.named(ctx, spec.kind, spec.area, spec.methods["ls"], ref, parent_kind=spec.parent)


def _method(ctx: Ctx, spec: Spec, verb: str) -> Any:
    return getattr(getattr(ctx.client(), spec.area), spec.methods[verb])


def do_ls(ctx: Ctx, spec: Spec) -> int:
    fields: dict[str, Any] = {}
    parent = ctx.args.parent
    scope = resolve.RESOLVERS[spec.parent](ctx, parent) if parent else resolve.default_scope(ctx)
    if scope:
        fields["uidp"] = UIDPFilter(children_of=scope) if ctx.args.children else UIDPFilter(descendants_of=scope)
    if spec.named and ctx.args.name:
        fields["name"] = ctx.args.name
    for flag in spec.filters:
        raw = getattr(ctx.args, _dest(flag), None)
        if raw is not None:
            fields[flag.path] = _value(ctx, flag, raw)
    if ctx.args.page_size:
        fields["page_size"] = ctx.args.page_size
    found = _method(ctx, spec, "ls")(**fields)
    if spec.name == "roles" and scope and not ctx.args.no_builtin:
        # The built-in roles live at the root, outside any organization's subtree, yet are bound in every one
        # (`--role viewer`): listed first, as the API lists them with the filter `uidp.inRoot`.
        found = itertools.chain(_method(ctx, spec, "ls")(**{**fields, "uidp": UIDPFilter(in_root=True)}), found)
    items = output.collect(found, f"listing {spec.name}", ctx.args.limit)
    if spec.parent == "repo" and ctx.output in ("table", "wide"):
        # Tags: which repo each is in (a path of names, from the uid: the record has no such field).
        paths = resolve.Paths(ctx)
        items = [{**output.data(t), "repo": paths.path(str(t.uid).rpartition("/")[0], "repo")} for t in items]
    output.emit(items, ctx.output, _columns(ctx, spec), many=True, enums=_enums(spec))
    return OK


def _columns(ctx: Ctx, spec: Spec) -> tuple[output.Column, ...]:
    columns = spec.columns + spec.wide if ctx.output == "wide" else spec.columns
    return (*columns[:1], ("REPO", "repo"), *columns[1:]) if spec.parent == "repo" else columns


def _enums(spec: Spec) -> dict[str, str]:
    return values.enum_prefixes(spec.area, spec.methods["get"], [p for _, p in spec.columns + spec.wide])


def do_get(ctx: Ctx, spec: Spec) -> int:
    item = _method(ctx, spec, "get")(resource_uid(ctx, spec, ctx.args.ref))
    output.emit(item, ctx.output, spec.columns + spec.wide, enums=_enums(spec))
    return OK


def do_create(ctx: Ctx, spec: Spec) -> int:
    body, _ = _record(ctx, spec, "create")
    parent_ref = ctx.args.parent or (ctx.org if spec.parent == "group" else "")
    if spec.parent != "group" and not parent_ref:
        raise CtlError(f"--{spec.parent.replace('_', '-')} is required", USAGE)
    parent = resolve.RESOLVERS[spec.parent](ctx, parent_ref) if parent_ref else ""
    item = _method(ctx, spec, "create")(parent, body)
    output.emit(item, ctx.output, spec.columns + spec.wide + spec.once, enums=_enums(spec))
    if spec.once_note and any(output.cell(output.data(item), path) for _, path in spec.once):
        print(f"platformctl: {spec.once_note}", file=sys.stderr)
    return OK


def do_update(ctx: Ctx, spec: Spec) -> int:
    body, paths = _record(ctx, spec, "update")
    if not paths:
        raise CtlError("nothing to change: give at least one field flag (see --help)", USAGE)
    body["uid"] = resource_uid(ctx, spec, ctx.args.ref)
    # The mask names exactly the flags given, so a flag set to "" clears its field.
    item = _method(ctx, spec, "update")(body, ",".join(paths))
    output.emit(item, ctx.output, spec.columns + spec.wide, enums=_enums(spec))
    return OK


def rm_uids(ctx: Ctx, spec: Spec, refs: list[str]) -> list[str]:
    """The uids of the refs to delete: those given by path found together (each parent read once,
    resolve.named_many), the others one by one. All are found before anything is deleted."""
    paths = [r for r in refs if "/" in r.strip("/") and not resolve.is_uid(r)] if spec.named else []
    uids = resolve.named_many(ctx, spec.kind, spec.area, spec.methods["ls"], [p.strip("/") for p in paths],
                              parent_kind=spec.parent)  # fmt: skip
    by_path = dict(zip(paths, uids, strict=True))
    return [by_path[ref] if ref in by_path else resource_uid(ctx, spec, ref) for ref in refs]


def do_rm(ctx: Ctx, spec: Spec) -> int:
    uids = rm_uids(ctx, spec, ctx.args.refs)
    if not ctx.args.yes and sys.stdin.isatty() and sys.stderr.isatty() and not _confirmed(spec, ctx.args.refs, uids):
        raise CtlError("nothing deleted", GENERIC)
    progress = output.Progress(f"deleting {spec.name}", len(uids))
    try:
        for uid in uids:
            _method(ctx, spec, "rm")(uid)
            progress.step()
    finally:
        progress.done()
    if ctx.output in ("json", "yaml"):
        output.emit([{"uid": u} for u in uids], ctx.output, (), many=True)
    else:
        for uid in uids:
            print(f"deleted {spec.kind} {uid}")
    return OK


def _confirmed(spec: Spec, refs: list[str], uids: list[str]) -> bool:
    """A person at a terminal says yes to what is about to go (scripts, with no terminal, are never asked)."""
    plural = spec.kind if len(uids) == 1 else f"{spec.kind}s"
    shown = [ref if ref == uid else f"{ref} ({uid})" for ref, uid in zip(refs, uids, strict=True)]
    print(f"delete {len(uids)} {plural}:", *shown, sep="\n  ", file=sys.stderr)
    print("continue? [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline(64).strip().lower() in ("y", "yes")


def flag_field(spec: Spec, verb: str, flag: Flag) -> Any:
    """The contract's field (a FieldDescriptor) that `flag` of `verb` sets: in the resource for create and
    update, in the request for ls."""
    return values.field(spec.area, spec.methods[verb], "" if verb == "ls" else spec.field, flag.path)


class _Switch(argparse.Action):
    """A switch with two flags of their own (`--disabled` / `--enabled`), as BooleanOptionalAction's
    `--x` / `--no-x`: the first sets true, the second false, the last given wins."""

    def __init__(self, option_strings: list[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, option_string == self.option_strings[0])

    def format_usage(self) -> str:
        return " | ".join(self.option_strings)


def _add_flag(p: argparse.ArgumentParser, spec: Spec, verb: str, flag: Flag) -> None:
    dest = _dest(flag)
    metavar = flag.flag.lstrip("-").replace("-", "_").upper()  # --identity IDENTITY, not F_IDENTITY (the dest)
    required = verb == "create" and flag.required
    # Typed values are converted (or refused, exit 2) as the line is parsed: before any call.
    typed = str if flag.kind in resolve.RESOLVERS else values.parser_type(lambda: flag_field(spec, verb, flag),
                                                                           split=flag.kind == "caps")  # fmt: skip
    if flag.kind == "bool" and flag.off:
        p.add_argument(flag.flag, flag.off, dest=dest, action=_Switch, default=None, help=flag.help)
    elif flag.kind == "bool":
        p.add_argument(flag.flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, help=flag.help)
    elif flag.kind in ("list", "caps"):
        p.add_argument(flag.flag, dest=dest, action="append", default=None, required=required, type=typed,
                       metavar=metavar, help=flag.help)  # fmt: skip
    else:
        p.add_argument(flag.flag, dest=dest, required=required, type=typed, metavar=metavar, help=flag.help)


def register(sub: Any, spec: Spec) -> Any:
    """The commands of one resource; its subcommands action (for more commands)."""
    word = f"platformctl {spec.group} {spec.name}"
    res = group(sub, spec.name, f"{spec.name}: {', '.join(spec.methods)}", [f"{word} ls", spec.example] if
                spec.example else [f"{word} ls"])  # fmt: skip
    m = spec.methods
    parent_help = {"group": "a group (uid or path of names: my-org/team)", "repo": "a repo (uid or my-org/name)",
                   "identity_provider": "an identity provider (uid or my-org/name)"}[spec.parent]  # fmt: skip
    if "ls" in m:
        # The example's parent is of the resource's parent kind (a tag's is a repo), and ls takes the parent
        # under the name create does (`tags create --repo` and `tags ls --repo`; groups: --parent or --group).
        under = {"group": "my-org/team", "repo": "my-org/nginx", "identity_provider": "my-org/corp-sso"}[spec.parent]
        p = command(res, "ls", f"list {spec.kind}s", [f"{word} ls", f"{word} ls --parent {under} -o json"],
                    lambda ctx: do_ls(ctx, spec), aliases=["list"])  # fmt: skip
        names = ["--parent", "--group" if spec.parent == "group" else "--" + spec.parent.replace("_", "-")]
        p.add_argument(*names, dest="parent", help=f"list under {parent_help} (default: the default organization)")
        p.add_argument("--children", action="store_true", help="direct children of --parent only, not its subtree")
        if spec.named:
            p.add_argument("--name", help="only those with this exact name")
        if spec.name == "roles":
            p.add_argument("--no-builtin", action="store_true", help="not the built-in roles (listed with the "
                           "organization's own when there is a --parent or a default organization)")  # fmt: skip
        for flag in spec.filters:
            _add_flag(p, spec, "ls", flag)
        p.add_argument("--limit", type=values.count, default=0, help="stop after this many (default: all)")
        p.add_argument("--page-size", type=values.count, default=0, help="items per request (default: the server's)")
    ref_help = f"the {spec.kind}: a uid" + (", or a name / path (my-org/name)" if spec.named else "")
    if "get" in m:
        p = command(res, "get", f"show one {spec.kind}", [f"{word} get <uid>"], lambda ctx: do_get(ctx, spec))
        p.add_argument("ref", help=ref_help)
    if "create" in m:
        p = command(res, "create", f"create a {spec.kind}", [spec.example or f"{word} create ..."],
                    lambda ctx: do_create(ctx, spec))  # fmt: skip
        if spec.named:
            p.add_argument("name", help=f"the new {spec.kind}'s name")
        need = " (required)" if spec.parent != "group" else " (default: the default organization)"
        names = ["--" + spec.parent.replace("_", "-")] if spec.parent != "group" else ["--parent", "--group"]
        p.add_argument(*names, dest="parent", help=f"where to create it: {parent_help}{need}")
        for flag in spec.flags:
            if flag.create:
                _add_flag(p, spec, "create", flag)
    if "update" in m:
        examples = [f"{word} update <ref> --description 'new text'"] if any(f.path == "description" for f in
                    spec.flags) else [f"{word} update <ref> ..."]  # fmt: skip
        examples += [f"{word} update <ref> {f.off}" for f in spec.flags if f.off]
        p = command(res, "update", f"change a {spec.kind} (only the fields whose flags are given)", examples,
                    lambda ctx: do_update(ctx, spec))  # fmt: skip
        p.add_argument("ref", help=ref_help)
        if spec.named:
            p.add_argument("--name", dest="f_name", metavar="NAME", help="a new name")
        for flag in spec.flags:
            if flag.update:
                _add_flag(p, spec, "update", flag)
    if "rm" in m:
        p = command(res, "rm", f"delete {spec.kind}s (at a terminal: after a yes)",
                    [f"{word} rm <ref> [<ref> ...]", f"{word} rm --yes <ref>   # no question at a terminal"],
                    lambda ctx: do_rm(ctx, spec), aliases=["delete"])  # fmt: skip
        p.add_argument("refs", nargs="+", metavar="ref", help=ref_help)
        p.add_argument("-y", "--yes", action="store_true", help="do not ask (asked only when stdin and stderr are "
                       "a terminal)")  # fmt: skip
    return res
