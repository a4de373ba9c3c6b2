"""Python project documents: PEP 691 JSON simple-index project pages (with PEP 700's `versions`, `size`
and `upload-time`) and PyPI-style JSON metadata documents (`/pypi/<name>/json`).

Names are normalized per PEP 503 (the artifact uid is `python:<normalized name>`, its name the normalized
name). Versions are PEP 440-normalized where they parse (`1.0-RC1` -> `1.0rc1`), kept as written otherwise.
A file of a simple page belongs to the version its name carries (wheel, sdist or egg naming); a file whose
name names no version of the project is ignored.
"""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion, Version

from platform_api.core import clock, patterns
from platform_api.core.patterns import Pattern
from platform_api.libraries import facts
from platform_api.libraries.facts import ArtifactFacts, Collected, FileFact
from platform_api.service.imports import BadInput

_NAME = Pattern(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", ignore_case=True)
_SEPARATORS = str.maketrans("_.", "--")
_SDIST = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")


def normalize(name: str) -> str:
    """PEP 503: runs of -, _ and . become one -, lower case."""
    t = name.translate(_SEPARATORS).lower()
    if "--" not in t:
        return t
    core = "-".join(p for p in t.split("-") if p)
    if not core:
        return "-"
    return ("-" if t[0] == "-" else "") + core + ("-" if t[-1] == "-" else "")


def uid_of(name: str) -> str:
    return "python:" + normalize(name)


def canonical_version(v: str) -> str:
    try:
        return str(Version(v))
    except InvalidVersion:
        return v


def parse(file: str, doc: Any, out: Collected) -> None:
    """Adds what one JSON document says to `out`; BadInput when it is neither kind or malformed."""
    if not isinstance(doc, dict):
        raise BadInput(file, "$", f"expected a JSON object, not {type(doc).__name__}")
    if "meta" in doc and "files" in doc:
        _simple(file, doc, out)
    elif "info" in doc and "releases" in doc:
        _pypi_json(file, doc, out)
    else:
        raise BadInput(file, "$", "neither a PEP 691 project page (meta, name, files) nor a PyPI JSON document "
                                  "(info, releases)")  # fmt: skip


def _project(file: str, place: str, value: object, out: Collected) -> ArtifactFacts:
    name = facts.text(file, place, value, "project name")
    if not _NAME.fullmatch(name):
        raise BadInput(file, place, f"{name!r} is not a valid project name (PEP 508)")
    return out.artifact(uid_of(name), "python", normalize(name))


def _object(file: str, place: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadInput(file, place, f"expected an object, not {type(value).__name__}")
    return value


def _array(file: str, place: str, value: object) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(file, place, f"expected an array, not {type(value).__name__}")
    return value


def _size(file: str, place: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadInput(file, place, f"size must be a non-negative integer, not {value!r}"[:200])
    if value > facts.MAX_SIZE:
        raise BadInput(file, place, f"size {value} is over the limit of {facts.MAX_SIZE} bytes"[:200])
    return value


def _time(file: str, place: str, value: object, naive_utc: bool = False) -> str | None:
    if value is None:
        return None
    t = facts.text(file, place, value, "timestamp", 64)
    if naive_utc and len(t) >= 19 and t[-1] not in "Zz" and "+" not in t[10:]:
        t += "Z"
    try:
        return clock.parse(t)
    except ValueError as e:
        raise BadInput(file, place, f"{t!r} is not an ISO 8601 timestamp with a time zone: {e}") from None


def _yanked(file: str, place: str, value: object) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):  # PEP 592: a reason means yanked
        return True
    raise BadInput(file, place, f"yanked must be a boolean or a string, not {type(value).__name__}")


def _simple(file: str, doc: dict[str, Any], out: Collected) -> None:
    meta = _object(file, "$.meta", doc["meta"])
    api = meta.get("api-version")
    if not isinstance(api, str) or not (api.startswith("1.") and patterns.digits(api[2:])):
        raise BadInput(file, "$.meta.api-version", f"unsupported api-version {api!r} (1.x is supported)")
    artifact = _project(file, "$.name", doc.get("name"), out)
    versions = doc.get("versions")
    if versions is not None:
        for i, v in enumerate(_array(file, "$.versions", versions)):
            artifact.version(
                file, f"$.versions[{i}]", canonical_version(facts.version_text(file, f"$.versions[{i}]", v))
            )
    for i, f in enumerate(_array(file, "$.files", doc["files"])):
        place = f"$.files[{i}]"
        f = _object(file, place, f)
        filename = facts.text(file, place + ".filename", f.get("filename"), "filename", 512)
        facts.text(file, place + ".url", f.get("url"), "url", 4096)
        _object(file, place + ".hashes", f.get("hashes"))
        fact = FileFact(
            size=_size(file, place + ".size", f.get("size")),
            upload_time=_time(file, place + ".upload-time", f.get("upload-time")),
            yanked=_yanked(file, place + ".yanked", f.get("yanked")),
        )
        version = version_of(filename, artifact.name)
        if version is not None:
            artifact.file(file, place, version, filename, fact)


def _pypi_json(file: str, doc: dict[str, Any], out: Collected) -> None:
    info = _object(file, "$.info", doc["info"])
    artifact = _project(file, "$.info.name", info.get("name"), out)
    releases = _object(file, "$.releases", doc["releases"])
    for key, files in releases.items():
        place = f"$.releases[{key!r}]"[:200]
        version = canonical_version(facts.version_text(file, place, key))
        artifact.version(file, place, version)
        for i, f in enumerate(_array(file, place, files)):
            fplace = f"{place}[{i}]"
            f = _object(file, fplace, f)
            filename = facts.text(file, fplace + ".filename", f.get("filename"), "filename", 512)
            upload = f.get("upload_time_iso_8601")
            fact = FileFact(
                size=_size(file, fplace + ".size", f.get("size")),
                upload_time=_time(file, fplace + ".upload_time_iso_8601", upload)
                if upload is not None
                else _time(file, fplace + ".upload_time", f.get("upload_time"), naive_utc=True),
                yanked=_yanked(file, fplace + ".yanked", f.get("yanked")),
            )
            artifact.file(file, fplace, version, filename, fact)
    current = info.get("version")
    if current is not None:
        version = canonical_version(facts.version_text(file, "$.info.version", current))
        v = artifact.version(file, "$.info.version", version)
        summary = info.get("summary")
        if summary is not None:
            v.description = facts.text(file, "$.info.summary", summary, "summary", facts.MAX_DESCRIPTION, empty=True)


def version_of(filename: str, project: str) -> str | None:
    """The version a distribution file's name carries, or None."""
    if filename.endswith(".whl"):
        # {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl, the name escaped (no "-"): the version is
        # the second part (cheaper than packaging's parse_wheel_filename, which also parses the tags).
        parts = filename[:-4].split("-")
        if len(parts) not in (5, 6) or normalize(parts[0]) != project:
            return None
        try:
            return str(Version(parts[1]))
        except InvalidVersion:
            return None
    stem = None
    for ext in (*_SDIST, ".egg"):
        if filename.endswith(ext):
            stem = filename[: -len(ext)]
            break
    if stem is None:
        return None
    end = _name_end(stem, project)
    if end is None:
        return None
    rest = stem[end + 1 :]
    if filename.endswith(".egg"):
        rest = rest.split("-py", 1)[0]
    return canonical_version(rest) if rest and len(rest) <= facts.MAX_VERSION else None


def _name_end(stem: str, project: str) -> int | None:
    """The index of the first "-" of `stem` whose prefix normalizes (PEP 503) to `project`, in one pass.

    The normalized prefixes of a string extend one another (a character adds its lowercase, a run of
    separators one "-"), so the scan follows `project` character by character and stops at the first
    difference: linear in the name, where normalizing each prefix before a "-" was quadratic (a name of
    100,000 dashes took minutes)."""
    matched, in_run = 0, False
    for i, c in enumerate(stem):
        if c in "-_.":
            if c == "-" and matched == len(project):
                return i
            if not in_run and not project.startswith("-", matched):
                return None
            matched += 0 if in_run else 1
            in_run = True
        else:
            low = c.lower()
            if not project.startswith(low, matched):
                return None
            matched += len(low)
            in_run = False
    return None
