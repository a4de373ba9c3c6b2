"""The advisory YAML parser on hostile input (issue 16): the CPE check cannot backtrack, a document's YAML
nodes and nesting are budgeted while it is composed, control characters and NUL are refused in one line,
and the hand-split format checks agree with the format's patterns."""

from __future__ import annotations

import subprocess
import sys

import pytest

from platform_api.formats import advisory_yaml as fmt
from platform_api.service.imports import BadInput

HEAD = "schema-version: 2.0.2\npackage:\n  name: pkg\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n"


def nvdapi(cpe: str) -> bytes:
    return (
        HEAD + "    events:\n      - timestamp: 2020-01-01T00:00:00Z\n        type: detection\n        data:\n"
        f"          type: nvdapi\n          data: {{cpeSearched: '{cpe}', cpeFound: 'cpe:2.3:a:b:c:*:*:*:*:*:*:*:*'}}\n"
    ).encode()


def refused(data: bytes) -> BadInput:
    with pytest.raises(BadInput) as e:
        fmt.parse("f.yaml", data)
    return e.value


# 11 components after `cpe:2.3`; a backslash quotes the next character, so `\:` never separates.
GOOD_CPES = [
    "cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*",
    r"cpe:2.3:a:foo\:bar:baz:1.0:*:*:*:*:*:*:*",
    r"cpe:2.3:a:v\\:p:1:*:*:*:*:*:*:*",
    r"cpe:2.3:a:b:c:d:e:f:g:h:i:j:k\*",
]
BAD_CPES = [
    "cpe:2.3:a:b:c:*:*:*:*:*:*:*",  # 10 components
    "cpe:2.3:a:b:c:*:*:*:*:*:*:*:*:*",  # 12
    "cpe:2.3:a:b c:d:*:*:*:*:*:*:*:*",  # white space
    r"cpe:2.3:a:b:c:*:*:*:*:*:*:x\:*",  # 10: a quoted colon never separates (`x\` + `*` would be 11)
    "cpe:2.2:a:b:c:*:*:*:*:*:*:*:*",
    "cpe:2.3:a:b:c:*:*:*:*:*:*:*:*\\",  # a backslash quoting nothing
]


@pytest.mark.parametrize("cpe", GOOD_CPES)
def test_cpe_accepted(cpe: str) -> None:
    event = fmt.parse("f", nvdapi(cpe.replace("'", "''"))).advisories[0].events[0]
    assert event.data["cpeSearched"] == cpe


@pytest.mark.parametrize("cpe", BAD_CPES)
def test_cpe_refused(cpe: str) -> None:
    assert "is not a CPE 2.3 formatted string" in refused(nvdapi(cpe)).problem


# Escaped colons only: every way of splitting them into 11 components fails at the end. A backtracking
# matcher tries them all (17 s of CPU for 100 characters, doubling every ~4 more); RE2 answers at once.
PATHOLOGICAL = [("cpe:2.3:" + "a\\:" * n)[: 8 + 3 * n - 1] + " " for n in (40, 200, 2000)]


def test_pathological_cpes_are_refused_at_once() -> None:
    """In a child process with a generous timeout, so that a backtracking matcher fails the test rather
    than hanging it."""
    script = (
        "import sys\n"
        "from tests.unit.formats.test_advisory_yaml_bounds import PATHOLOGICAL, nvdapi, refused\n"
        "for cpe in PATHOLOGICAL:\n"
        "    e = refused(nvdapi(cpe))\n"
        "    assert 'is not a CPE 2.3 formatted string' in e.problem, e\n"
        "    assert '\\n' not in str(e)\n"
        "print('refused', len(PATHOLOGICAL))\n"
    )
    try:
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the CPE check backtracks: 60 s were not enough for three strings")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused 3"


def test_node_budget() -> None:
    """A flow sequence of one-letter scalars is ~2 bytes per node: composing 8 MB of it took 1.3 GB and 14 s.
    The composer stops at MAX_NODES, naming the node where it stopped."""
    items = fmt.MAX_NODES + 10
    data = (HEAD + "    aliases: [" + "a," * items + "a]\n").encode()
    assert len(data) < fmt.MAX_DOCUMENT
    e = refused(data)
    assert e.problem == f"more than {fmt.MAX_NODES} YAML nodes in one document", e
    assert e.place.startswith("6:")
    # Just within the budget, the same shape reaches validation (and fails there, on the alias format).
    within = (HEAD + "    aliases: [" + "a," * (fmt.MAX_NODES - 20) + "a]\n").encode()
    assert "over the limit of 200" in refused(within).problem


def test_nesting_budget() -> None:
    # The top mapping is the first level: the list opened at column 3 + MAX_DEPTH is one too many.
    e = refused(b"a: " + b"[" * fmt.MAX_DEPTH + b"]" * fmt.MAX_DEPTH + b"\n")
    assert e.problem == f"nested deeper than {fmt.MAX_DEPTH} levels" and e.place == f"1:{fmt.MAX_DEPTH + 3}", e
    assert "expected a mapping" in refused(b"- " * (fmt.MAX_DEPTH - 1) + b"x\n").problem  # deep enough is fine


def test_document_size_cap() -> None:
    data = b"schema-version: 2\n#" + b"x" * fmt.MAX_DOCUMENT + b"\n"
    assert "over the limit of 4194304 bytes for a document" in refused(data).problem


def test_control_character_is_one_line_with_its_place() -> None:
    """PyYAML says `unacceptable character #x0001: ...\\n  in "<byte string>", position 40`; the place is
    line:column, counted in characters (é€ are 5 bytes but 2 columns)."""
    e = refused("schema-version: 2\npackage:\n  name: é€\x01\n".encode())
    assert "\n" not in str(e)
    assert e.place == "3:11", e
    assert e.problem == "malformed YAML: unacceptable character #x0001: control characters are not allowed"
    assert str(e) == f"f.yaml: 3:11: {e.problem}"


@pytest.mark.parametrize("scalar", ['"a\\0b"', '"\\x00"', '"pending\\0"'])
def test_nul_refused_in_any_string(scalar: str) -> None:
    """YAML's escapes can write a NUL, which the API refuses in any string (PostgreSQL cannot store it)."""
    data = (
        HEAD + "    events:\n      - timestamp: 2020-01-01T00:00:00Z\n        type: fix-not-planned\n"
        f"        data: {{note: {scalar}}}\n"
    ).encode()
    e = refused(data)
    assert e.problem == "a NUL character is not allowed" and e.place == "9:22", e


def test_other_errors_are_one_line() -> None:
    for data in (b"a: [\n", b"a: b\n---\nc: d\n", b'a: "\\ud800"\n', b"a: 'x\n", b"\t- a: b\n"):
        e = refused(data)
        assert "\n" not in str(e), repr(str(e))


IDS = [
    (fmt.grouped_id, "CGA", "CGA-2fq3-jx6r-8w4c", True),
    (fmt.grouped_id, "CGA", "CGA-2fq3-jx6r-8w4", False),
    (fmt.grouped_id, "CGA", "CGA-2fq3-jx6r-8w4a", False),  # a is not in the alphabet
    (fmt.grouped_id, "CGA", "CGA-2fq3-jx6r8w4c-", False),
    (fmt.grouped_id, "GHSA", "GHSA-hqxw-f8mx-cpmw", True),
    (fmt.year_id, "CVE", "CVE-2024-1234", True),
    (fmt.year_id, "CVE", "CVE-2024-1234567", True),
    (fmt.year_id, "CVE", "CVE-2024-123", False),
    (fmt.year_id, "CVE", "CVE-24-12345", False),
    (fmt.year_id, "CVE", "CVE-2024-12-34", False),
    (fmt.year_id, "CVE", "CVE-٢٠٢٤-12345", False),  # digits, but not ASCII ones
    (fmt.year_id, "GO", "GO-2023-1234", True),
]


@pytest.mark.parametrize(("check", "prefix", "value", "ok"), IDS)
def test_id_formats(check: object, prefix: str, value: str, ok: bool) -> None:
    assert check(value, prefix) is ok  # type: ignore[operator]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2024-01-02T03:04:05Z", True),
        ("2024-01-02t03:04:05z", True),
        ("2024-01-02T03:04:05.123456789+05:30", True),
        ("2024-01-02T03:04:05.5-00:00", True),
        ("2024-01-02T03:04:05", False),
        ("2024-01-02 03:04:05Z", False),
        ("2024-01-02T03:04:05.Z", False),
        ("2024-01-02T03:04:05.1234567890Z", False),
        ("2024-01-02T03:04:05+0530", False),
        ("2024-1-02T03:04:05Z", False),
        ("2024-01-02T03:04:05ZZ", False),
    ],
)
def test_timestamp_format(value: str, ok: bool) -> None:
    assert fmt.is_timestamp(value) is ok


def test_small_formats() -> None:
    assert [fmt.schema_major(v) for v in ("2", "2.0", "2.0.2", "2.0.2.1", "2.x", "", "٢")] == [
        "2", "2", "2", None, None, None, None,
    ]  # fmt: skip
    assert fmt.is_package_name("py3-foo_bar+x.1") and not fmt.is_package_name("-foo")
    assert not fmt.is_package_name("a" * 256) and not fmt.is_package_name("a b")
    assert fmt.is_version("1.2.3-r0") and not fmt.is_version("1.2 3") and not fmt.is_version("")
