"""Console first paint with 10,000 repos in the organization (issue 30): how long until a page shows.

    python bench/console_first_paint.py --backend sqlite|postgres|both [--repos 10000] [--samples 20]

Loads a fresh database through the store layer (bench/load.py: one organization with an owner, 100 groups,
`repos` repos), serves it, and opens each console page in Debian's chromium (Playwright, executable
/usr/bin/chromium) as that owner, `samples` times each, in a fresh page (the browser's cache warm, as for a
person who used the console before). Per page it records two times from the navigation's start:
  - first contentful paint (the browser's `first-contentful-paint` entry): the skeleton and its heading;
  - data painted: when the page's first table row, list item or empty/error state appears in <main> (a
    MutationObserver installed before the page's own code), i.e. the first page of data from the API.
Target: first paint < 300 ms on loopback. Prints a table, writes bench/results/console-<time>.json.
Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from common import (  # noqa: E402
    add_backend_options,
    backends,
    free_port,
    log,
    pct,
    results_dir,
    scratch_database,
    serve,
    token,
    write_json,
)
from load import load  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

TARGET_MS = 300.0
# Installed before the page's own scripts (Playwright injects it outside the page's CSP): notes the time the
# first row of data, or an empty or error state, appears in <main>.
WATCH = """
(() => {
  const seen = () => document.querySelector(
    "main tbody tr, main .recent li, main .counts dd, main .state.empty, main .state.error, main .markdown");
  new MutationObserver((_, obs) => {
    if (window.__dataPaint === undefined && seen()) { window.__dataPaint = performance.now(); obs.disconnect(); }
  }).observe(document, {subtree: true, childList: true});
})();
"""


def measure(base: str, tok: str, org: str, repo: str, samples: int) -> dict[str, dict[str, float]]:
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("chromium not found: apt-get install -y chromium")
    pages = {
        "overview": f"/console/?org={org}",
        "images": f"/console/images?org={org}",
        "images search": f"/console/images?org={org}&q=repo-0000123",
        "image": f"/console/images/{repo}?org={org}",
        "access": f"/console/access?org={org}",
        "events": f"/console/events?org={org}",
    }
    out: dict[str, dict[str, float]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(base + "/console/")
        session = json.dumps({"token": tok, "refresh": "", "expiry": 0})
        page.evaluate("s => sessionStorage.setItem('console.session', s)", session)
        for name, path in pages.items():
            fcp: list[float] = []
            data: list[float] = []
            for i in range(samples + 1):
                page.goto(base + path)
                # Polled with evaluate: wait_for_function's predicate is an eval, which the console's CSP refuses.
                deadline = time.monotonic() + 30
                # The paint entry is recorded a frame after the paint: wait for it too (it was missing once).
                ready = (
                    "window.__dataPaint !== undefined && performance.getEntriesByName('first-contentful-paint').length"
                )
                while not page.evaluate(ready):
                    if time.monotonic() > deadline:
                        raise SystemExit(f"{name}: no data (or no first paint) in 30 s")
                    time.sleep(0.005)
                got = page.evaluate(
                    "[performance.getEntriesByName('first-contentful-paint')[0]?.startTime, window.__dataPaint]"
                )
                if i:  # the first load warms the browser's cache and the server's
                    fcp.append(float(got[0]))
                    data.append(float(got[1]))
            out[name] = {
                "fcp_p50": pct(fcp, 0.5), "fcp_p95": pct(fcp, 0.95),
                "data_p50": pct(data, 0.5), "data_p95": pct(data, 0.95),
            }  # fmt: skip
            log(f"  {name:14} first paint p50 {out[name]['fcp_p50']:6.1f} ms  p95 {out[name]['fcp_p95']:6.1f} ms"
                f"   data p50 {out[name]['data_p50']:6.1f} ms  p95 {out[name]['data_p95']:6.1f} ms")  # fmt: skip
        browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_backend_options(ap)
    ap.add_argument("--repos", type=int, default=10_000)
    ap.add_argument("--samples", type=int, default=20)
    args = ap.parse_args()
    # The machine's load at the start: browser timings on a shared 2-core machine move with it.
    load_average = os.getloadavg()
    log(f"load average {load_average[0]:.1f} {load_average[1]:.1f} {load_average[2]:.1f} on {os.cpu_count()} CPUs")
    results: dict[str, Any] = {"repos": args.repos, "samples": args.samples, "target_ms": TARGET_MS,
                               "load_average": load_average, "backends": {}}  # fmt: skip
    for backend in backends(args):
        with scratch_database(backend, results_dir() / "console.db", "pa_console_", args.pg_url) as url:
            t0 = time.perf_counter()
            ds = asyncio.run(load(url, repos=args.repos, groups=100))
            log(f"{backend}: loaded {args.repos} repos in {time.perf_counter() - t0:.1f} s")
            port = free_port()  # known before serving: the public URL (the console's home) names it
            base = f"http://localhost:{port}"
            server = serve(url, results_dir() / f"console-{backend}.log", "--public-url", base, port=port)
            try:
                tok = token(url, ds.owner)
                results["backends"][backend] = measure(base, tok, ds.org, ds.repo_uids[-1], args.samples)
            finally:
                server.stop()
    path = write_json(results_dir() / f"console-{time.strftime('%Y%m%dT%H%M%S')}.json", results)
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
