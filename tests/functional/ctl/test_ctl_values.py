"""`platformctl` with wrong values: every typed flag of every resource command (its type is its field's in the
contract: a Duration, a Timestamp, an enum, a number, a bool), over gRPC and HTTP, is a usage error (exit 2)
in one line naming the flag and what it takes, before any call; other odd input never shows a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from google.protobuf.descriptor import FieldDescriptor

from platform_api.ctl import resources, specs, values
from platform_api.ctl.resources import Flag, Spec
from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, unique

SPECS = [*specs.IAM, *specs.REGISTRY, *specs.EVENTS, specs.DELIVERIES, specs.ADVISORIES]
SOME_UID = "0" * 40
# A valid value for each required flag of a command line (so that only the flag under test is wrong).
SAMPLE = {"role": "viewer", "identity": SOME_UID, "group": SOME_UID, "caps": "repo.list", "str": "x",
          "list": "x", "identity_provider": SOME_UID}  # fmt: skip


@dataclass(frozen=True)
class Case:
    spec: Spec
    verb: str
    flag: Flag
    field: FieldDescriptor

    def __str__(self) -> str:
        return f"{self.spec.group} {self.spec.name} {self.verb} {self.flag.flag}"


def _flags(spec: Spec, verb: str) -> tuple[Flag, ...]:
    if verb == "ls":
        return spec.filters
    return tuple(f for f in spec.flags if getattr(f, verb))


def all_flags() -> Iterator[Case]:
    for spec in SPECS:
        for verb in ("ls", "create", "update"):
            if verb in spec.methods:
                for flag in _flags(spec, verb):
                    yield Case(spec, verb, flag, resources.flag_field(spec, verb, flag))


def wrong_values(case: Case) -> tuple[list[str], str]:
    """Wrong values for the flag's type, and a word its message must have (the forms it takes)."""
    f = case.field
    if case.flag.kind == "bool":
        return ["maybe", "2"], case.flag.off or "--no-"  # a switch: `--pkce=maybe` is refused, its forms named
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.full_name == "google.protobuf.Duration":
        return ["1h2x", "soon", "", "-5s", "1h1h", "1e9999s"], "3600s"
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.full_name == "google.protobuf.Timestamp":
        return ["yesterday", "2026-13-01", "2026-01-02T25:00:00Z", ""], "RFC 3339"
    if f.type == FieldDescriptor.TYPE_ENUM:
        word = "one of" if len(values.enum_choices(f.enum_type)) > values.MAX_LISTED else values.enum_choices(
            f.enum_type)[-1]  # fmt: skip
        return ["BOGUS", "", "1", "STATE_", "delivered!"], word
    if f.type == FieldDescriptor.TYPE_BOOL:
        return ["maybe"], "true or false"
    return ["x", "1.5", "9" * 30], "number"


def test_every_flag_sets_a_field_of_the_contract() -> None:
    """A flag's path is a field of the request (or of its resource): else its values would go unchecked."""
    cases = list(all_flags())
    typed = [str(c) for c in cases if values.typed(c.field)]
    # The typed flags of today (a new one is found by its field's type without a change here).
    for expected in ("iam invites create --ttl", "events deliveries ls --state", "iam roles create --capabilities",
                     "iam identity-providers create --pkce", "iam invites create --single-use"):  # fmt: skip
        assert expected in typed, typed


def test_duration_and_enum_forms() -> None:
    assert [values.duration(d) for d in ("1h", "7d", "30m", "3600s", "3600", "1h30m", "1.5s", " 2D ")] == [
        "3600s", "604800s", "1800s", "3600s", "3600s", "5400s", "1.5s", "172800s"]  # fmt: skip
    assert values.timestamp("2026-01-02") == "2026-01-02T00:00:00Z"
    assert values.timestamp("2026-01-02T03:04:05.5+02:00") == "2026-01-02T01:04:05.5Z"
    state = resources.flag_field(specs.DELIVERIES, "ls", specs.DELIVERIES.filters[1]).enum_type
    assert {values.enum(state, v) for v in ("DELIVERED", "delivered", "State_Delivered")} == {"STATE_DELIVERED"}
    role = next(f for f in specs.IAM[2].flags if f.flag == "--capabilities")
    caps = resources.flag_field(specs.IAM[2], "create", role).enum_type
    assert values.enum(caps, "repo.list") == values.enum(caps, "CAP_REPO_LIST") == "CAP_REPO_LIST"


@pytest.fixture(params=["grpc", "http"])
def ctl(request: pytest.FixtureRequest, server: Server, tmp_path: Path) -> Ctl:
    ctl = Ctl(server, tmp_path, server.token, request.param)
    org = unique("org")
    assert ctl("iam", "groups", "create", org).code == 0
    assert ctl("config", "set", "org", org).code == 0
    return ctl


def sample(spec: Spec, verb: str, flag: Flag) -> str:
    """A right value of a flag."""
    f = resources.flag_field(spec, verb, flag)
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.full_name == "google.protobuf.Duration":
        return "1h"
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.full_name == "google.protobuf.Timestamp":
        return "2026-01-02"
    if f.type == FieldDescriptor.TYPE_ENUM and flag.kind != "caps":
        return values.enum_choices(f.enum_type)[0]
    return SAMPLE.get(flag.kind, "x")


def command_line(case: Case, flag_args: list[str]) -> list[str]:
    spec = case.spec
    line = [*filter(None, [spec.group]), spec.name, case.verb]
    if case.verb == "create" and spec.named:
        line.append(unique("x"))
    if case.verb == "update":
        line.append(SOME_UID)
    if case.verb == "create" and spec.parent != "group":
        line += ["--" + spec.parent.replace("_", "-"), SOME_UID]
    for other in _flags(spec, case.verb):
        if other.required and case.verb == "create" and other is not case.flag:
            line += [other.flag, sample(spec, case.verb, other)]
    return line + flag_args


def test_wrong_typed_values_are_usage_errors(ctl: Ctl) -> None:
    seen = 0
    for case in all_flags():
        if not values.typed(case.field):
            continue
        wrong, word = wrong_values(case)
        for value in wrong:
            args = [f"{case.flag.flag}={value}"]
            r = ctl(*command_line(case, args))
            lines = r.err.strip().splitlines()
            why = f"{case} {value!r}: {r.code} {r.err}"
            assert r.code == 2 and "Traceback" not in r.err and len(lines) == 1, why
            assert case.flag.flag in lines[0] and word in lines[0] and r.out == "", why
            seen += 1
    assert seen >= 20


def test_right_typed_values_go_through(ctl: Ctl) -> None:
    invite = ctl.json("iam", "invites", "create", "--role", "viewer", "--ttl", "1h")
    assert invite["code"]
    assert ctl.json("events", "deliveries", "ls", "--state", "delivered", "--page-size", "5", "--limit", "1") == []
    role = ctl.json("iam", "roles", "create", unique("r"), "--capabilities", "repo.list,CAP_TAG_LIST")
    assert role["capabilities"] == ["CAP_REPO_LIST", "CAP_TAG_LIST"]


@pytest.mark.parametrize(
    "args",
    [
        ["events", "deliveries", "ls", "--limit", "-1"],
        ["events", "deliveries", "ls", "--page-size", "99999999999"],
        ["iam", "groups", "ls", "--limit", "many"],
        ["iam", "invites", "create", "--role", "viewer", "--ttl"],
    ],
)
def test_counts_and_missing_values_are_usage_errors(ctl: Ctl, args: list[str]) -> None:
    r = ctl(*args)
    assert r.code == 2 and "Traceback" not in r.err and args[-2 if args[-1] != "--ttl" else -1] in r.err


def test_an_argument_not_utf8_is_a_usage_error(ctl: Ctl) -> None:
    r = ctl("iam", "groups", "create", "bad\udcffname")
    assert r.code == 2 and "not valid UTF-8" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize(
    "args",
    [
        ["iam", "groups", "create", "bad\udcffname"],  # not UTF-8 (a shell's bytes, surrogate-escaped)
        ["iam", "groups", "get", "a/" * 300],
        ["registry", "repos", "ls", "--parent", "///"],
        ["iam", "groups", "create", "x" * 100_000],
        ["events", "deliveries", "get", "\x00"],
        ["iam", "roles", "create", "r", "--capabilities", ","],
        ["registry", "tags", "create", "t", "--repo", "nope/nope", "--digest", "sha256:zz"],
        ["--server", "ftp://nowhere", "iam", "groups", "ls"],
        ["--grpc", "[::1", "iam", "groups", "ls"],
    ],
)
def test_odd_input_never_shows_a_traceback(ctl: Ctl, args: list[str]) -> None:
    r = ctl(*args)
    assert "Traceback" not in r.err and (r.code == 0 or len(r.err.strip().splitlines()) <= 2), (r.code, r.err)
