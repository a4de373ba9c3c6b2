"""v1 Registry.GetPackageVersionMetadata (`GET /registry/v1/versions/{package=**}`) over both transports, from the
end-of-life data `import eol` gave a repo (tests/data/eol/python.json): supported cycles newest first, ended
ones apart with their YYYY-MM-DD EOL dates, NOT_FOUND for a package without data (or out of the caller's
reach), and the vendor's Terraform provider's own reading of the answer (its `chainguard_versions` data source, as
tests/functional/clients/provider.py replays it)."""

from __future__ import annotations

import datetime
import json
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx

from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import TIMEOUT, VIEWER, Server, assert_error, detail, mk_role, rpc_error

CYCLES = Path(__file__).resolve().parents[2] / "data" / "eol" / "python.json"
RESOURCE = "chainguard.platform.registry.PackageVersionMetadata"
# What python.json holds, as each entry answers: 3.13 and 3.12 are supported (EOL 2099), 3.1 and 2.7 ended on
# their dates, 2.6 ended without one (`eol: true`) and is in neither list.
SUPPORTED = [
    {"eolDate": "2099-10-31", "exists": True, "releaseDate": "2024-10-07", "version": "3.13",
     "latestVersion": "3.13.0"},
    {"eolDate": "2099-10-31", "exists": True, "releaseDate": "2023-10-02", "version": "3.12",
     "latestVersion": "3.12.7"},
]  # fmt: skip
ENDED = [
    {"eolDate": "2012-04-09", "exists": True, "releaseDate": "2009-06-27", "version": "3.1", "latestVersion": "3.1.5"},
    {"eolDate": "2020-01-01", "exists": True, "lts": True, "releaseDate": "2010-07-03", "version": "2.7",
     "latestVersion": "2.7.18"},
]  # fmt: skip


def repo_with_cycles(server: Server, http: httpx.Client, parent: str, package: str, cycles: Path = CYCLES) -> str:
    r = http.post(f"/registry/v2/repos/{parent}", json={"name": "v-" + secrets.token_hex(4)})
    assert r.status_code == 200, r.text
    repo = str(r.json()["uid"])
    server.cli("import", "eol", repo, package, str(cycles))
    return repo


def no_data(r: httpx.Response, package: str) -> None:
    """NOT_FOUND naming the package (ResourceInfo)."""
    info = detail(assert_error(r, 404, 5), "ResourceInfo")
    assert (info["resourceType"], info["resourceName"]) == (RESOURCE, package), info


def versions(client: httpx.Client, package: str) -> dict[str, Any]:
    r = client.get(f"/registry/v1/versions/{package}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_versions_over_http(server: Server, http: httpx.Client, org: str) -> None:
    package = "python-" + secrets.token_hex(4)
    before = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    repo_with_cycles(server, http, org, package)
    body = versions(http, package)
    stamp = body.pop("lastUpdatedTimestamp")
    assert body == {"versions": SUPPORTED, "eolVersions": ENDED, "latestVersion": "3.13"}
    # RFC 3339 UTC with milliseconds: the import's time.
    assert len(stamp) == 24 and stamp.endswith("Z") and stamp >= before, stamp


def test_versions_over_grpc(server: Server, http: httpx.Client, org: str) -> None:
    package = "python-" + secrets.token_hex(4)
    repo_with_cycles(server, http, org, package)
    got = registry_pb2_grpc.RegistryStub(server.channel).GetPackageVersionMetadata(
        registry_pb2.PackageVersionMetadataRequest(package=package), timeout=TIMEOUT
    )
    assert [(v.version, v.eolDate, v.releaseDate, v.exists, v.latestVersion) for v in got.versions] == [
        ("3.13", "2099-10-31", "2024-10-07", True, "3.13.0"),
        ("3.12", "2099-10-31", "2023-10-02", True, "3.12.7"),
    ]
    assert [(v.version, v.eolDate, v.lts) for v in got.eolVersions] == [("3.1", "2012-04-09", False),
                                                                          ("2.7", "2020-01-01", True)]  # fmt: skip
    assert (got.latestVersion, got.gracePeriodMonths) == ("3.13", 0) and got.lastUpdatedTimestamp
    # The vendor's product fields answer their zero values.
    assert not any(v.fips or v.eolBroken or v.legacy_lts or v.HasField("versionSource") for v in got.versions)


def _add_months(day: datetime.date, months: int) -> datetime.date:
    """Go's time.AddDate(0, months, 0) on a date: a day past the month's end runs into the next month."""
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return datetime.date(year, month + 1, 1) + datetime.timedelta(days=day.day - 1)


def provider_read(stub: registry_pb2_grpc.RegistryStub, package: str, variant: str = "") -> dict[str, Any]:
    """What the provider's `chainguard_versions` data source makes of the call (facts, section 4): NOT_FOUND is
    its default answer, any other error fails; an entry is used only if `exists` (`fips` for the fips variant);
    the first entry of `versions` is the latest; `eolVersions` entries (not `eolBroken`) have their `eolDate`
    parsed as YYYY-MM-DD (anything else fails) and are kept while that date plus `gracePeriodMonths` is not
    past; `ordered_keys` is the order reversed."""
    key = f"{package}-{variant}" if variant else package
    try:
        answer = stub.GetPackageVersionMetadata(registry_pb2.PackageVersionMetadataRequest(package=package),
                                                timeout=TIMEOUT)  # fmt: skip
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.NOT_FOUND:
            raise
        return {"version_map": {key: {"is_latest": True, "eol": False}}, "ordered_keys": [key]}
    usable = (lambda v: v.fips) if variant == "fips" else (lambda v: v.exists)
    version_map: dict[str, dict[str, Any]] = {}
    keys = []
    for i, v in enumerate(answer.versions):
        if usable(v):
            version_map[f"{key}-{v.version}"] = {"is_latest": i == 0, "eol": False}
            keys.append(f"{key}-{v.version}")
    today = datetime.datetime.now(datetime.UTC).date()
    for v in answer.eolVersions:
        if not usable(v) or v.eolBroken:
            continue
        eol_date = datetime.datetime.strptime(v.eolDate, "%Y-%m-%d").date()  # ValueError fails the data source
        assert v.eolDate == eol_date.isoformat()  # exactly YYYY-MM-DD, as Go's time.DateOnly takes it
        if _add_months(eol_date, answer.gracePeriodMonths) >= today:
            version_map[f"{key}-{v.version}"] = {"is_latest": False, "eol": True, "eol_date": v.eolDate}
            keys.append(f"{key}-{v.version}")
    return {"version_map": version_map, "ordered_keys": keys[::-1]}


def test_the_providers_reading(server: Server, http: httpx.Client, org: str) -> None:
    package = "python-" + secrets.token_hex(4)
    repo_with_cycles(server, http, org, package)
    stub = registry_pb2_grpc.RegistryStub(server.channel)
    read = provider_read(stub, package)
    # Newest first: the provider marks 3.13 latest and lists the keys oldest to newest. The ended cycles are
    # past their EOL dates with no grace period, so the provider keeps none (their dates parsed all the same).
    assert read["version_map"] == {f"{package}-3.13": {"is_latest": True, "eol": False},
                                   f"{package}-3.12": {"is_latest": False, "eol": False}}  # fmt: skip
    assert read["ordered_keys"] == [f"{package}-3.12", f"{package}-3.13"]
    # No FIPS builds are known here: the fips variant finds no usable entry (and no error).
    assert provider_read(stub, package, "fips") == {"version_map": {}, "ordered_keys": []}
    # An unknown package is NOT_FOUND, which the provider turns into its default answer.
    unknown = "nothing-" + secrets.token_hex(4)
    assert provider_read(stub, unknown) == {"version_map": {unknown: {"is_latest": True, "eol": False}},
                                            "ordered_keys": [unknown]}  # fmt: skip


def test_a_cycle_ended_yesterday_is_an_eol_version(
    server: Server, http: httpx.Client, org: str, tmp_path: Path
) -> None:
    """A cycle that ended yesterday is in eolVersions; the reading parses its date (grace 0: not kept)."""
    package = "node-" + secrets.token_hex(4)
    yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
    cycles = [{"cycle": "22", "eol": "2099-04-30", "releaseDate": "2024-04-24", "latest": "22.11.0", "lts": True},
              {"cycle": "9", "eol": yesterday, "releaseDate": "2017-10-31", "latest": "9.11.2"},
              {"cycle": "20", "eol": "2099-04-30", "releaseDate": "2023-04-18", "latest": "20.18.0"}]  # fmt: skip
    (tmp_path / "node.json").write_text(json.dumps(cycles))
    repo_with_cycles(server, http, org, package, tmp_path / "node.json")
    body = versions(http, package)
    assert [v["version"] for v in body["versions"]] == ["22", "20"]  # 22 before 20 before 9: numbers, not text
    assert [(v["version"], v["eolDate"]) for v in body["eolVersions"]] == [("9", yesterday)]
    assert body["versions"][0]["lts"] is True and body["latestVersion"] == "22"
    read = provider_read(registry_pb2_grpc.RegistryStub(server.channel), package)
    assert read["ordered_keys"] == [f"{package}-20", f"{package}-22"]


def test_not_found_bad_names_and_reach(server: Server, http: httpx.Client, anon: httpx.Client, org: str) -> None:
    package = "python-" + secrets.token_hex(4)
    repo_with_cycles(server, http, org, package)
    unknown = "nothing-" + secrets.token_hex(4)
    no_data(http.get(f"/registry/v1/versions/{unknown}"), unknown)
    err, _ = rpc_error(registry_pb2_grpc.RegistryStub(server.channel).GetPackageVersionMetadata,
                       registry_pb2.PackageVersionMetadataRequest(package=unknown))  # fmt: skip
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert_error(http.get("/registry/v1/versions/a%20b"), 400, 3, field="package")
    assert_error(http.get("/registry/v1/versions/python/3.12"), 400, 3, field="package")
    assert_error(anon.get(f"/registry/v1/versions/{package}"), 401, 16)
    # A viewer of the organization (version.list) reads it; a caller who holds version.list nowhere near the
    # repo, or who holds other capabilities there, finds nothing.
    _, token = server.identity_with_role(org, VIEWER)
    with server.client(token) as c:
        assert versions(c, package)["latestVersion"] == "3.13"
    other = http.post("/iam/v2/groups/", json={"name": "o-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, VIEWER)
    with server.client(token) as c:
        no_data(c.get(f"/registry/v1/versions/{package}"), package)
    role = mk_role(http, org, "CAP_REPO_LIST")
    _, token = server.identity_with_role(org, role)
    with server.client(token) as c:
        no_data(c.get(f"/registry/v1/versions/{package}"), package)


def test_the_latest_import_answers(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """Two repos with data for one package: the one imported last answers, whole; importing the other again
    makes it the answer."""
    package = "python-" + secrets.token_hex(4)
    first = repo_with_cycles(server, http, org, package)
    newer = json.loads(CYCLES.read_text())[:2]
    newer[0]["latest"] = "3.13.1"
    (tmp_path / "newer.json").write_text(json.dumps(newer))
    repo_with_cycles(server, http, org, package, tmp_path / "newer.json")
    body = versions(http, package)
    assert [v["latestVersion"] for v in body["versions"]] == ["3.13.1", "3.12.7"] and "eolVersions" not in body
    server.cli("import", "eol", first, package, str(CYCLES))
    assert [v["latestVersion"] for v in versions(http, package)["versions"]] == ["3.13.0", "3.12.7"]
