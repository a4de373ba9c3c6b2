"""Import memory and time on hostile and realistic inputs (issue 16), optionally against an older checkout.

    python bench/imports.py [--before SRC] [--records 50000] [--cap-gib 4]

Each input is imported by a child `platform-api import ...` on a scratch SQLite file, its address space
capped (--cap-gib, 4 GiB by default: an unbounded reader dies of MemoryError instead of taking the
machine); reported per input: exit code, the child's peak RSS (its rusage) and wall time. With --before
SRC (an older checkout's `src`, e.g. `git archive 3afac2e src | tar -x -C /tmp/before` then
`--before /tmp/before/src`) each input is run with that code too (PYTHONPATH), beside this checkout's.

Inputs (built under bench/results/imports-<time>/, removed at the end):
- bzip2.zip: one member of 2 GiB of spaces, bzip2 (~1 KB: the issue's 915-byte zip reached 2.1 GB RSS);
- lzma.zip: one member of 512 MiB, LZMA (~76 KB: the issue's reached 1.1 GB);
- /dev/zero given to `import osv` (the issue measured 9.3 GB);
- flood.json: 64 MiB of `[{},{},...]` (22 million dicts: 1.76 GB);
- dashes.json: a PEP 691 page of 100,000 files named with 500 dashes (quadratic name scan);
- all.zip: --records realistic OSV records (bench/osv.py's generator), deflate: the realistic large input;
- pypi.json: a 58 MiB PyPI JSON document of 1,200 versions x 100 files: a realistic large single file.
Prints a table and writes bench/results/imports-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, ROOT, log, results_dir, write_json
from osv import generate

# The import runs as the grandchild of a small Python that caps its address space and reads its peak RSS
# from wait4: a direct child would report at least this (large) process's RSS at fork (Linux carries it
# over exec). No preexec_fn here either: the same helper as tests/functional/ops/test_import_inputs.py.
MEASURED = """
import os, resource, subprocess, sys
cap = int(sys.argv[2])
child = subprocess.Popen([sys.executable, "-m", "platform_api.cli", *sys.argv[3:]],
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def bomb(path: Path, method: int, inflated: int) -> Path:
    with zipfile.ZipFile(path, "w", method) as z, z.open("bomb.json", "w", force_zip64=True) as member:
        chunk = b" " * (1 << 20)
        for _ in range(inflated >> 20):
            member.write(chunk)
    return path


def flood(path: Path) -> Path:
    with path.open("wb") as f:
        f.write(b"[" + b"{}," * ((64 << 20) // 3 - 1) + b"{}]")
    return path


def dashes(path: Path, files: int = 100_000) -> Path:
    name = "-" * 500 + "1.0.tar.gz"
    page = {"meta": {"api-version": "1.1"}, "name": "dashes", "files": [
        {"filename": name, "url": "https://files.example/x", "hashes": {}} for _ in range(files)]}  # fmt: skip
    path.write_text(json.dumps(page))
    return path


def pypi(path: Path, versions: int = 1_200, files: int = 100) -> Path:
    """A PyPI JSON document (/pypi/<name>/json) of a project with many wheels per release."""
    releases = {}
    for v in range(versions):
        version = f"{v // 100}.{v % 100}.0"
        releases[version] = [{
            "filename": f"bigproject-{version}-cp3{k % 10}-cp3{k % 10}-manylinux_2_17_x86_64.{k}.whl",
            "url": f"https://files.pythonhosted.org/packages/aa/bb/{v:08x}{k:04x}/bigproject-{version}.whl",
            "digests": {"sha256": f"{v:032x}{k:032x}", "md5": f"{v:016x}{k:016x}"},
            "size": 123_456_789 + k, "upload_time": "2024-01-02T03:04:05",
            "upload_time_iso_8601": "2024-01-02T03:04:05.123456Z", "yanked": False, "yanked_reason": None,
            "packagetype": "bdist_wheel", "python_version": f"cp3{k % 10}", "requires_python": ">=3.8",
        } for k in range(files)]  # fmt: skip
    doc = {"info": {"name": "bigproject", "version": "19.99.0", "summary": "A project with many wheels"},
           "releases": releases}  # fmt: skip
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def run(src: str | None, database: Path, cap: int, *args: str) -> dict[str, Any]:
    """One child import: exit code, peak RSS (MiB), wall time (s), its last stderr line."""
    database.unlink(missing_ok=True)
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    with tempfile.TemporaryDirectory() as tmp:
        peak = Path(tmp) / "peak"
        cmd = [
            sys.executable,
            "-c",
            MEASURED,
            str(peak),
            str(cap),
            "import",
            *args,
            "--database",
            f"sqlite:///{database}",
        ]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        secs = time.perf_counter() - t0
        lines = r.stderr.decode(errors="replace").strip().splitlines()
        peak_kib = int(peak.read_text())
    return {"exit": r.returncode, "peak_mib": round(peak_kib / 1024), "seconds": round(secs, 2),
            "stderr_lines": len(lines), "last": lines[-1][-110:] if lines else ""}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", help="an older checkout's src directory, run beside this one")
    p.add_argument("--records", type=int, default=50_000, help="OSV records in the realistic all.zip")
    p.add_argument("--cap-gib", type=float, default=4, help="the children's address-space cap")
    args = p.parse_args()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    work = results_dir() / f"imports-{stamp}"
    work.mkdir()
    cap = int(args.cap_gib * (1 << 30))
    try:
        log("building inputs ...")
        inputs = {
            "bzip2 bomb (2 GiB)": ("osv", str(bomb(work / "bzip2.zip", zipfile.ZIP_BZIP2, 2 << 30))),
            "LZMA bomb (512 MiB)": ("osv", str(bomb(work / "lzma.zip", zipfile.ZIP_LZMA, 512 << 20))),
            "/dev/zero": ("osv", "/dev/zero"),
            "64 MiB of {}": ("osv", str(flood(work / "flood.json"))),
            "100,000 dashed names": ("libraries", "python", str(dashes(work / "dashes.json"))),
            f"OSV all.zip ({args.records:,})": ("osv", str(work / "all.zip")),
            "PyPI JSON (120,000 files)": ("libraries", "python", str(pypi(work / "pypi.json"))),
        }
        generate(work / "all.zip", args.records)
        sizes = {k: os.path.getsize(v[-1]) for k, v in inputs.items() if v[-1] != "/dev/zero"}
        rows = []
        for label, command in inputs.items():
            for name, src in (("before", args.before), ("after", None)) if args.before else (("after", None),):
                row = {"input": label, "bytes": sizes.get(label), "code": name, **run(src, work / "db", cap, *command)}
                log(f"  {label:28} {name:6} exit {row['exit']:3}  {row['peak_mib']:6} MiB  {row['seconds']:7} s  "
                    f"{row['last']}")  # fmt: skip
                rows.append(row)
        out = write_json(RESULTS / f"imports-{stamp}.json", {"cap_gib": args.cap_gib, "rows": rows})
        log(f"wrote {out}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
