"""Where a request's CPU goes: py-spy samples the server under wrk load; self time grouped by component.

    python bench/cpu_profile.py --backend sqlite|postgres|both [--what get|list200|ping] [--seconds 15]

Steps: load a fresh database (bench/load.py, 20k repos by default), serve it pinned to core 0, drive the
request with wrk (64 connections) pinned to core 1 while `py-spy record --native --format raw` samples the
server process; then the samples' leaf frames are grouped (see GROUPS) and printed with the top functions
by self time and by cumulative time. Needs py-spy (`pip install py-spy`) and permission to ptrace
(root, or `kernel.yama.ptrace_scope=0`). The raw profile is kept in bench/results/ for flame graphs.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import BENCH, RESULTS, add_backend_options, backends, log, results_dir, scratch_database, serve, token

# First match wins, on the leaf frame's "function (file)" text.
GROUPS: list[tuple[str, tuple[str, ...]]] = [
    ("encoding (msgspec, json)", ("msgspec", "/json/")),
    ("driver (sqlite3, asyncpg)", ("sqlite3", "asyncpg", "libsqlite", "_sqlite")),
    ("token and authz", ("platform_api/auth/", "jwt", "joserfc", "cryptography", "libcrypto", "authlib")),
    (
        "routing and transcoding",
        ("platform_api/api/router", "platform_api/api/transcode", "platform_api/api/caps", "urllib/parse"),
    ),
    ("metrics", ("prometheus", "platform_api/core/metrics", "platform_api/api/metrics")),
    ("server (Granian, ASGI, uvloop)", ("granian", "_granian", "uvloop", "libuv", "asyncio/", "tokio")),
    ("our code", ("platform_api/",)),
    ("interpreter and libc", ("libpython", "python3", "libc.so", "libc-", "<frozen", "ld-linux")),
]


def group_of(frame: str) -> str:
    for name, needles in GROUPS:
        if any(n in frame for n in needles):
            return name
    return "other"


def summarize(raw: Path, top: int = 25) -> str:
    """Grouped self time, then the top functions by self and by cumulative time, from py-spy's raw output
    (one `frame;frame;...;leaf count` line per distinct stack)."""
    self_time: collections.Counter[str] = collections.Counter()
    cumulative: collections.Counter[str] = collections.Counter()
    groups: collections.Counter[str] = collections.Counter()
    total = server_threads = 0
    lines = raw.read_text(errors="replace").splitlines()
    app_threads = {line.split(";", 1)[0] for line in lines if "platform_api/" in line}
    for line in lines:
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        # `--threads` roots each stack at its thread; only the threads that ran our code count as the request's
        # (Granian's own I/O threads are reported apart, as "server threads").
        thread, frames = frames[0], frames[1:]
        if thread not in app_threads:
            server_threads += count
            continue
        # Idle: the event loop waiting for I/O (not request work).
        if frames and ("epoll" in frames[-1] or "select (selectors" in frames[-1]):
            continue
        total += count
        self_time[frames[-1]] += count
        groups[group_of(frames[-1])] += count
        for f in set(frames):
            cumulative[f] += count
    if not total:
        return "no samples"
    out = [
        f"{total:,} busy samples on the Python thread; {server_threads:,} on Granian's other threads",
        "",
        "| component (leaf frame) | share of busy samples |",
        "|---|---|",
    ]
    out += [f"| {g} | {n / total:.0%} |" for g, n in groups.most_common()]
    out += ["", "top self time:"]
    out += [f"  {n / total:6.1%}  {f[:150]}" for f, n in self_time.most_common(top)]
    out += ["", "top cumulative (platform_api frames):"]
    ours = [(f, n) for f, n in cumulative.most_common() if "platform_api/" in f][:top]
    out += [f"  {n / total:6.1%}  {f[:150]}" for f, n in ours]
    return "\n".join(out)


def profile_backend(backend: str, args: argparse.Namespace, stamp: str) -> str:
    from load import load

    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database(backend, RESULTS / f"profile-{stamp}.db", "pa_prof_", args.pg_url))
        ds = asyncio.run(load(url, repos=args.repos, groups=10))
        uids = RESULTS / f"profile-uids-{stamp}.txt"
        uids.write_text("\n".join(ds.repo_uids) + "\n")
        stack.callback(lambda: uids.unlink(missing_ok=True))
        server = serve(url, RESULTS / f"profile-server-{backend}-{stamp}.log", cpu="0")
        stack.callback(server.stop)
        bearer = token(url, ds.owner)
        wrk = [
            "taskset",
            "-c",
            "1",
            "wrk",
            "-t1",
            "-c64",
            f"-d{args.seconds + 4}s",
            "-H",
            f"Authorization: Bearer {bearer}",
        ]
        if args.what == "get":
            wrk += ["-s", str(BENCH / "get_random.lua"), server.url, "--", str(uids)]
        elif args.what == "list200":
            wrk.append(f"{server.url}/registry/v2/repos?uidp.descendants_of={ds.org}&page_size=200")
        else:
            wrk.append(f"{server.url}/ping/v2/ping")
        load_proc = subprocess.Popen(wrk, stdout=subprocess.PIPE, text=True)
        time.sleep(2)  # warm
        # The Granian worker is the server's child process that runs the app.
        worker = subprocess.run(["pgrep", "-P", str(server.proc.pid), "-f", "platform_api|granian|python"],
                                capture_output=True, text=True).stdout.split()  # fmt: skip
        pids = worker or [str(server.proc.pid)]
        raw = RESULTS / f"profile-{backend}-{args.what}-{stamp}.txt"
        cmd = ["py-spy", "record", "--native", "--format", "raw", "--rate", "250", "--threads",
               "--nonblocking" if args.nonblocking else "",
               "--duration", str(args.seconds), "--output", str(raw), "--pid", pids[-1]]  # fmt: skip
        subprocess.run([c for c in cmd if c], check=True, capture_output=True)
        out, _ = load_proc.communicate()
        rps = next((line for line in out.splitlines() if "Requests/sec" in line), "")
        return f"## {backend} {args.what}  ({rps.strip()} while sampled)\n\n{summarize(raw)}\n\nraw: {raw}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--what", choices=("get", "list200", "ping"), default="get")
    p.add_argument("--seconds", type=int, default=15)
    p.add_argument("--repos", type=int, default=20_000)
    p.add_argument("--nonblocking", action="store_true", help="py-spy without pausing the process per sample")
    args = p.parse_args()
    if not shutil.which("py-spy"):
        sys.exit("py-spy not found: pip install py-spy")
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for backend in backends(args):
        log(profile_backend(backend, args, stamp))


if __name__ == "__main__":
    main()
