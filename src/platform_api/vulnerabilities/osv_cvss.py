"""CVSS vectors as OSV carries them: validation of v2, v3.0/v3.1 and v4.0 vector strings, and the v3.x
base score (FIRST.org, CVSS v3.1 specification section 7 and appendix A; v3.0 rounds up plainly).

Pure functions, no I/O. A vector is `/`-separated `metric:value` pairs; v3 and v4 start with their
`CVSS:<version>` prefix, v2 has none. Every base metric must be present with a value the version defines;
the optional (temporal/threat, environmental, supplemental) metrics are accepted when their values are
valid; a metric may appear once. The order of metrics is not enforced (producers differ).
"""

from __future__ import annotations

import math

MAX_VECTOR = 256


class BadVector(ValueError):
    """The vector string is not a valid CVSS vector of its version (the message says why)."""


_V2_BASE = {
    "AV": "LAN",
    "AC": "HML",
    "Au": "MSN",
    "C": "NPC",
    "I": "NPC",
    "A": "NPC",
}
_V2_OPTIONAL = {
    "E": ("U", "POC", "F", "H", "ND"),
    "RL": ("OF", "TF", "W", "U", "ND"),
    "RC": ("UC", "UR", "C", "ND"),
    "CDP": ("N", "L", "LM", "MH", "H", "ND"),
    "TD": ("N", "L", "M", "H", "ND"),
    "CR": ("L", "M", "H", "ND"),
    "IR": ("L", "M", "H", "ND"),
    "AR": ("L", "M", "H", "ND"),
}
_V3_BASE = {
    "AV": "NALP",
    "AC": "LH",
    "PR": "NLH",
    "UI": "NR",
    "S": "UC",
    "C": "HLN",
    "I": "HLN",
    "A": "HLN",
}
_V3_OPTIONAL = {
    "E": "XUPFH",
    "RL": "XOTWU",
    "RC": "XURC",
    "CR": "XLMH",
    "IR": "XLMH",
    "AR": "XLMH",
    "MAV": "XNALP",
    "MAC": "XLH",
    "MPR": "XNLH",
    "MUI": "XNR",
    "MS": "XUC",
    "MC": "XNLH",
    "MI": "XNLH",
    "MA": "XNLH",
}
_V4_BASE = {
    "AV": "NALP",
    "AC": "LH",
    "AT": "NP",
    "PR": "NLH",
    "UI": "NPA",
    "VC": "HLN",
    "VI": "HLN",
    "VA": "HLN",
    "SC": "HLN",
    "SI": "HLN",
    "SA": "HLN",
}
_V4_OPTIONAL: dict[str, tuple[str, ...]] = {
    "E": ("X", "A", "P", "U"),
    "CR": ("X", "H", "M", "L"),
    "IR": ("X", "H", "M", "L"),
    "AR": ("X", "H", "M", "L"),
    "MAV": ("X", "N", "A", "L", "P"),
    "MAC": ("X", "L", "H"),
    "MAT": ("X", "N", "P"),
    "MPR": ("X", "N", "L", "H"),
    "MUI": ("X", "N", "P", "A"),
    "MVC": ("X", "H", "L", "N"),
    "MVI": ("X", "H", "L", "N"),
    "MVA": ("X", "H", "L", "N"),
    "MSC": ("X", "H", "L", "N"),
    "MSI": ("X", "S", "H", "L", "N"),
    "MSA": ("X", "S", "H", "L", "N"),
    "S": ("X", "N", "P"),
    "AU": ("X", "N", "Y"),
    "R": ("X", "A", "U", "I"),
    "V": ("X", "D", "C"),
    "RE": ("X", "L", "M", "H"),
    "U": ("X", "Clear", "Green", "Amber", "Red"),
}


def _metrics(
    parts: list[str], base: dict[str, str], optional: dict[str, tuple[str, ...]] | dict[str, str]
) -> dict[str, str]:
    """{metric: value} of `parts` ("AV:N", ...), checked against the version's tables."""
    out: dict[str, str] = {}
    for part in parts:
        name, sep, value = part.partition(":")
        if not sep or not name or not value:
            raise BadVector(f"{part!r} is not a metric:value pair")
        if name in out:
            raise BadVector(f"metric {name} appears twice")
        allowed: tuple[str, ...] | str | None = base.get(name)
        if allowed is None:
            allowed = optional.get(name)
        if allowed is None:
            raise BadVector(f"unknown metric {name}")
        values = tuple(allowed) if isinstance(allowed, str) else allowed
        if value not in values:
            raise BadVector(f"{name}:{value} is not a valid value (one of {', '.join(values)})")
        out[name] = value
    missing = [m for m in base if m not in out]
    if missing:
        raise BadVector(f"base metric(s) {', '.join(missing)} missing")
    return out


def _split(vector: str) -> list[str]:
    if not isinstance(vector, str) or not vector:
        raise BadVector("empty vector")
    if len(vector) > MAX_VECTOR:
        raise BadVector(f"longer than {MAX_VECTOR} characters")
    return vector.split("/")


def parse_v2(vector: str) -> dict[str, str]:
    """A CVSS v2 vector ("AV:N/AC:L/Au:N/C:P/I:P/A:P", no prefix) as {metric: value}."""
    parts = _split(vector)
    if parts[0].startswith("CVSS:"):
        raise BadVector(f"a CVSS v2 vector has no prefix, got {parts[0]!r}")
    return _metrics(parts, _V2_BASE, _V2_OPTIONAL)


def parse_v3(vector: str) -> tuple[str, dict[str, str]]:
    """A CVSS v3.0 or v3.1 vector ("CVSS:3.1/AV:N/...") as (version, {metric: value})."""
    parts = _split(vector)
    if parts[0] not in ("CVSS:3.0", "CVSS:3.1"):
        raise BadVector(f"a CVSS v3 vector starts with CVSS:3.0/ or CVSS:3.1/, got {parts[0]!r}")
    return parts[0][5:], _metrics(parts[1:], _V3_BASE, _V3_OPTIONAL)


def parse_v4(vector: str) -> dict[str, str]:
    """A CVSS v4.0 vector ("CVSS:4.0/AV:N/AC:L/AT:N/...") as {metric: value}."""
    parts = _split(vector)
    if parts[0] != "CVSS:4.0":
        raise BadVector(f"a CVSS v4 vector starts with CVSS:4.0/, got {parts[0]!r}")
    return _metrics(parts[1:], _V4_BASE, _V4_OPTIONAL)


_AV = {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2}
_AC = {"L": 0.77, "H": 0.44}
_PR_UNCHANGED = {"N": 0.85, "L": 0.62, "H": 0.27}
_PR_CHANGED = {"N": 0.85, "L": 0.68, "H": 0.5}
_UI = {"N": 0.85, "R": 0.62}
_CIA = {"H": 0.56, "L": 0.22, "N": 0.0}


def _roundup_31(x: float) -> float:
    """CVSS v3.1 Roundup: the smallest one-decimal number >= x, free of floating-point artefacts."""
    i = round(x * 100_000)
    if i % 10_000 == 0:
        return i / 100_000.0
    return (math.floor(i / 10_000) + 1) / 10.0


def _roundup_30(x: float) -> float:
    return math.ceil(x * 10) / 10.0


def base_score_v3(vector: str) -> float:
    """The base score (0.0-10.0) of a CVSS v3.0/v3.1 vector; BadVector when it is not one."""
    version, m = parse_v3(vector)
    roundup = _roundup_31 if version == "3.1" else _roundup_30
    changed = m["S"] == "C"
    iss = 1 - (1 - _CIA[m["C"]]) * (1 - _CIA[m["I"]]) * (1 - _CIA[m["A"]])
    impact = 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 if changed else 6.42 * iss
    pr = (_PR_CHANGED if changed else _PR_UNCHANGED)[m["PR"]]
    exploitability = 8.22 * _AV[m["AV"]] * _AC[m["AC"]] * pr * _UI[m["UI"]]
    if impact <= 0:
        return 0.0
    if changed:
        return roundup(min(1.08 * (impact + exploitability), 10))
    return roundup(min(impact + exploitability, 10))


def rating(score: float) -> str:
    """The qualitative rating of a v3/v4 score: NONE, LOW, MEDIUM, HIGH or CRITICAL."""
    if score == 0:
        return "NONE"
    if score < 4.0:
        return "LOW"
    if score < 7.0:
        return "MEDIUM"
    if score < 9.0:
        return "HIGH"
    return "CRITICAL"
