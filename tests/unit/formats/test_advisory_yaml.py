"""The advisory YAML parser (vulnerabilities.advisory_yaml): what it accepts and how it names what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from platform_api.formats import advisory_yaml as fmt
from platform_api.service.imports import BadInput

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories"
HEAD = "schema-version: {v}\npackage:\n  name: pkg\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n"


def doc(events: str, v: str = "2.0.2", extra: str = "") -> bytes:
    return (HEAD.format(v=v) + extra + "    events:\n" + events).encode()


def refused(data: bytes) -> BadInput:
    with pytest.raises(BadInput) as e:
        fmt.parse("f.yaml", data)
    return e.value


def test_fixtures_parse() -> None:
    d = fmt.parse("crane", (DATA / "crane.advisories.yaml").read_bytes())
    assert d.package == "crane" and d.advisories[0].id == "CGA-2fq3-jx6r-8w4c"
    assert [e.type for e in d.advisories[0].events] == ["detection", "true-positive-determination", "fixed"]
    assert d.advisories[0].events[2].timestamp == "2023-06-08T10:00:00.250Z"


@pytest.mark.parametrize("version", ["2", "2.0", "2.0.2", "2.1.0", "'2.0.2'"])
def test_schema_2x_accepted(version: str) -> None:
    ev = "      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n        data: {type: manual}\n"
    assert fmt.parse("f", doc(ev, version)).schema_version == version.strip("'")


@pytest.mark.parametrize("version", ["1", "3.0.0", "two", "1.9"])
def test_other_schemas_refused(version: str) -> None:
    assert "schema-version" in refused(doc("", version)).problem


def test_every_event_type() -> None:
    events = ""
    for fp in fmt.FP_TYPES:
        events += f"      - timestamp: 2020-01-01T00:00:00Z\n        type: false-positive-determination\n" \
                  f"        data: {{type: {fp}, note: n}}\n"  # fmt: skip
    for t in ("analysis-not-planned", "fix-not-planned", "pending-upstream-fix"):
        events += f"      - timestamp: 2020-01-02T00:00:00+01:00\n        type: {t}\n        data: {{note: why}}\n"
    events += "      - timestamp: 2020-01-03T00:00:00Z\n        type: true-positive-determination\n"
    events += "      - timestamp: 2020-01-04T00:00:00.5Z\n        type: fixed\n        data: {fixed-version: 1.0-r0}\n"
    adv = fmt.parse("f", doc(events, extra="    aliases: [CVE-2020-12345, GHSA-hqxw-f8mx-cpmw, GO-2023-1234]\n"))
    a = adv.advisories[0]
    assert len(a.events) == 12 and a.events[7].timestamp == "2020-01-01T23:00:00.000Z"
    assert a.events[-1].data == {"fixed-version": "1.0-r0"} and a.events[-2].data == {}
    assert a.aliases == ["CVE-2020-12345", "GHSA-hqxw-f8mx-cpmw", "GO-2023-1234"]


BAD = [
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n"
         "        data: {type: manual, data: {a: b}}\n"),
     "data must be empty"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n        data: {type: psychic}\n"),
     "invalid detection type"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n"
         "        data: {type: nvdapi, data: {cpeSearched: nope, cpeFound: nope}}\n"), "not a CPE 2.3"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n"
         "        data: {type: scan/v1, data: {scanner: grype}}\n"), "subpackageName must not be empty"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: fix-not-planned\n"), "note must not be empty"),
    (doc("      - timestamp: 2020-01-01T00:00:00\n        type: fixed\n        data: {fixed-version: 1}\n"),
     "not an RFC 3339 timestamp"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: fixed\n        data: {fixed-version: 1, x: 2}\n"),
     "unknown field 'x'"),
    (doc("", extra="    aliases: [CVE-2020-12345, CVE-2020-12345]\n"), "duplicated"),
    (doc("      - timestamp: 2020-01-01T00:00:00Z\n        type: [fixed]\n"), "expected a string"),
    (doc("    - 1\n"), "expected a mapping"),
    (doc("      nope\n"), "expected a list"),
    (doc(""), "at least one event"),
    (b"schema-version: 2\npackage: {name: p}\nadvisories: []\n", "at least one advisory"),
    (b"schema-version: 2\npackage: {name: ''}\nadvisories: []\n", "must not be empty"),
    (b"schema-version: 2\npackage: {name: p}\nextra: 1\n", "unknown field 'extra'"),
    (b"schema-version: 2\nschema-version: 2\n", "given twice"),
    (b"- a\n", "expected a mapping"),
    (b"", "empty document"),
    (b"\xff\xfe", "not UTF-8"),
    (b"a: " + b"[" * 100_000, ""),
]  # fmt: skip


@pytest.mark.parametrize(("data", "problem"), BAD)
def test_refused(data: bytes, problem: str) -> None:
    e = refused(data)
    assert problem in e.problem, e
    assert str(e).startswith("f.yaml: ")


def test_duplicate_ids_and_places() -> None:
    ev = "    events:\n      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n        data: {type: manual}\n"
    text = HEAD.format(v=2) + ev + "  - id: CGA-2fq3-jx6r-8w4c\n" + ev
    e = refused(text.encode())
    assert e.place == "10:9 (advisories[1].id)" and "not unique" in e.problem


def test_anchors_refused_and_digest_stable() -> None:
    laughs = b"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    assert "anchors" in refused(laughs).problem
    ev = "      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n        data: {type: manual}\n"
    one, two = fmt.parse("f", doc(ev)), fmt.parse("f", doc(ev.replace("00Z", "00.000Z")))
    assert one.advisories[0].digest == two.advisories[0].digest
    three = fmt.parse("f", doc(ev, extra="    aliases: [CVE-2020-12345]\n"))
    assert three.advisories[0].digest != one.advisories[0].digest
