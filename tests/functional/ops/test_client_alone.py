"""The Python client and platformctl install and work without the server's dependencies: clients/python is a
second distribution from this repository (platform-api-client), whose src/ links to the client, ctl and gen
packages and the few api/core modules they import.

Two kinds of check. Read from the source (no install, milliseconds): the links are exactly the import closure
of the client and platformctl, whose other imports are all declared by clients/python/pyproject.toml, in the
root pyproject.toml's ranges. And for real, once per change (`install`-marked): a virtual environment with the
client distribution and only its dependencies (none of the server's), where `platformctl --version`, a
platformctl command and a `Client` call answer against a server. The environment's dependencies are kept under
build/client-alone/ between runs (keyed by the two files that decide them, constraints.txt and
clients/python/pyproject.toml), and the client is reinstalled only when its sources changed. Measured on 2
cores under a load average of 15-20 (2026-11-28, wheels from the local package cache): the first run 39-46 s
(a fresh clone's, as in CI), a rerun after a source change 18-21 s, one without changes 5 s.
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.helpers import BACKENDS, Server, start_server, unique

ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "src"
CLIENT = ROOT / "clients" / "python"
CLIENT_SRC = CLIENT / "src"
CACHE = ROOT / "build" / "client-alone"
# The server's own dependencies, which the client's environment must not hold.
SERVER_ONLY = {"asyncpg", "granian", "uvloop", "starlette", "grpcio-health-checking", "grpcio-reflection",
               "prometheus-client", "nh3", "pyjwt", "dnspython", "markdown-it-py"}  # fmt: skip
TIMEOUT = 600  # a guard against a hang on a loaded machine, never a measure


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _file_of(module: str) -> Path | None:
    base = SRC.joinpath(*module.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, text: str) -> set[str]:
    """Every module `path` (holding `text`) imports, module-level or not (relative imports made absolute), and
    for `from a import b` both `a` and `a.b` (b may be a module)."""
    here = _module_of(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found |= {base} | {f"{base}.{a.name}" for a in node.names}
    return found


def closure(edited: dict[Path, str] | None = None) -> tuple[set[Path], set[str]]:
    """The source files the client and platformctl import, transitively (with their packages' __init__.py),
    and the top-level names of everything else they import; `edited`: files read as if they held that text."""
    edited = edited or {}
    todo = [_module_of(p) for name in ("client", "ctl") for p in (SRC / "platform_api" / name).rglob("*.py")]
    files: set[Path] = set()
    others: set[str] = set()
    while todo:
        module = todo.pop()
        path = _file_of(module)
        if path is None or path in files:
            continue
        files.add(path)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        for name in _imports(path, edited.get(path) or path.read_text()):
            if name.split(".")[0] == "platform_api":
                todo.append(name)
            else:
                others.add(name.split(".")[0])
    # contract.py reads every generated module by walking its package: gen is shipped whole.
    files |= set((SRC / "platform_api" / "gen").rglob("*.py"))
    return files, others - set(sys.stdlib_module_names)


def linked() -> set[Path]:
    """The files clients/python/src holds, as the files of src/ they link to (as setuptools finds them: through
    linked folders too)."""
    return {
        (Path(folder) / name).resolve()
        for folder, _, names in os.walk(CLIENT_SRC, followlinks=True)
        for name in names
        if "__pycache__" not in folder
    }


def shipped() -> set[Path]:
    return {p for p in linked() if p.suffix == ".py"}


def _requirements(pyproject: Path) -> dict[str, Requirement]:
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    return {metadata_name(r.name): r for r in map(Requirement, deps)}


def metadata_name(name: str) -> str:
    return name.lower().replace("_", "-")


def test_the_client_distribution_holds_exactly_what_the_client_and_platformctl_import() -> None:
    files, _ = closure()
    assert {p.resolve() for p in files} == shipped()


def test_the_client_distribution_declares_what_they_import_and_nothing_of_the_servers() -> None:
    _, others = closure()
    declared = _requirements(CLIENT / "pyproject.toml")
    providers = metadata.packages_distributions()  # import name -> distributions (of this environment)
    undeclared = {name for name in others if not {metadata_name(d) for d in providers.get(name, [])} & set(declared)}
    assert undeclared == set()
    assert not set(declared) & SERVER_ONLY
    # In the root's ranges: one version set serves both (constraints.txt pins it).
    root = _requirements(ROOT / "pyproject.toml")
    assert {name: str(r.specifier) for name, r in declared.items()} == {
        name: str(root[name].specifier) for name in declared
    }
    assert set(root) >= SERVER_ONLY


def test_a_server_module_imported_by_the_client_is_caught() -> None:
    """The closure check itself: a client module importing the store would pull it in."""
    path = SRC / "platform_api" / "client" / "pages.py"
    files, _ = closure({path: path.read_text() + "\nimport platform_api.store.db\n"})
    assert SRC / "platform_api" / "store" / "db.py" in files
    assert {p.resolve() for p in files} != shipped()


# --- installed for real ----------------------------------------------------------------------------------------


def _digest(base: Path, paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _pip(python: Path, *args: str) -> None:
    # This environment's pip works on the other ones (no pip of their own: creating them stays instant).
    cmd = [sys.executable, "-m", "pip", "--python", str(python), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-4000:]


def _wheel(builder: Path, tmp: Path) -> Path:
    """The client's wheel, built from a plain copy of the links' targets (what a wheel holds, nothing written
    in the repository) by `builder`, an environment holding only the build backend (no isolated environment
    made per build: 7 s a build instead of 15)."""
    tree = tmp / "python"
    shutil.copytree(CLIENT, tree, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    _pip(builder, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp / "wheel"), str(tree))
    return next((tmp / "wheel").glob("platform_api_client-*.whl"))


def client_environment(tmp: Path) -> Path:
    """The python of an environment holding platform-api-client and its dependencies only, up to date."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once share one environment
        pyproject = CLIENT / "pyproject.toml"
        home = CACHE / _digest(ROOT, [ROOT / "constraints.txt", pyproject])
        env, builder = home / "env" / "bin" / "python", home / "builder" / "bin" / "python"
        sources = _digest(ROOT, sorted(linked() | {pyproject}))
        stamp = home / "client-sources"
        if not (home / "ready").exists():
            shutil.rmtree(home, ignore_errors=True)
            venv.create(home / "env", with_pip=False)
            venv.create(home / "builder", with_pip=False)
            _pip(builder, "install", "-q", *tomllib.loads(pyproject.read_text())["build-system"]["requires"])
            _pip(env, "install", "-q", "-c", str(ROOT / "constraints.txt"), str(_wheel(builder, tmp)))
            (home / "ready").write_text("")
        elif not stamp.exists() or stamp.read_text() != sources:
            _pip(env, "install", "-q", "--no-deps", "--force-reinstall", str(_wheel(builder, tmp)))
        stamp.write_text(sources)
    return env


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, _servers: dict[str, Server]) -> Server:
    """One backend's server of this process (conftest's): the client's environment is what is tested here."""
    backend = BACKENDS[0]
    if backend not in _servers:
        _servers[backend] = start_server(backend, tmp_path_factory.mktemp(backend))
    return _servers[backend]


def _run(tmp: Path, *cmd: str, env: dict[str, str] | None = None) -> str:
    base = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp / "config")}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env={**base, **(env or {})},
                          cwd=tmp, check=False)  # fmt: skip
    assert done.returncode == 0, (cmd, done.stdout[-2000:], done.stderr[-4000:])
    return done.stdout


@pytest.mark.install
def test_the_client_and_platformctl_work_without_the_servers_dependencies(srv: Server, tmp_path: Path) -> None:
    python = client_environment(tmp_path)
    listing = "import importlib.metadata as m, json; print(json.dumps([d.metadata['Name'] for d in m.distributions()]))"
    installed = json.loads(_run(tmp_path, str(python), "-c", listing))
    assert "platform-api-client" in installed and "platform-api" not in installed
    assert not {metadata_name(n) for n in installed} & SERVER_ONLY, installed

    platformctl = str(python.parent / "platformctl")
    assert _run(tmp_path, platformctl, "--version").strip() == "platformctl 0.1.0"
    name = unique("alone")
    env = {"PLATFORM_API_TOKEN": srv.token, "PLATFORM_API_URL": srv.base_url}
    # gRPC (its address from the server's document), then HTTP/JSON from Python.
    created = json.loads(_run(tmp_path, platformctl, "-o", "json", "registry", "repos", "create", name, "--org",
                              srv.owner_org, env=env))  # fmt: skip
    script = (
        "import sys\n"
        "from platform_api.client import Client\n"
        "with Client(transport='http', use_login_cache=False) as c:\n"
        "    print(c.registry.get_repo(sys.argv[1]).name)\n"
        "import platform_api.ctl.main, pkgutil, importlib\n"
        "for p in ('platform_api.client', 'platform_api.ctl', 'platform_api.gen'):\n"
        "    for m in pkgutil.walk_packages(importlib.import_module(p).__path__, p + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('platform_api.store') is None  # the wheel holds the client's part only\n"
    )
    assert _run(tmp_path, str(python), "-c", script, created["uid"], env=env).strip() == name
