"""Screenshots of every console page at 1280x800 into docs/console/ (issue 30), from a scratch server with a
small demo organization: groups, an image imported with `import oci` carrying an SBOM and a Grype report, a
readme, a custom role, an invite and a subscription.

    .venv/bin/python scripts/screenshots.py [--out docs/console]

Drives Debian's chromium (/usr/bin/chromium) through Playwright; the server and its SQLite database live in a
temporary directory and go with it. The session is the bootstrap owner's token put where the console keeps a
signed-in session (sessionStorage), as the browser login would.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.helpers.registry import GRYPE_REPORT, image  # noqa: E402
from tests.helpers.server import Server, start_server, stop_server  # noqa: E402

README = """# demo-app

A small service image, rebuilt nightly.

## Usage

```
docker run --rm registry.example/demo/demo-app:latest --help
```

- minimal: no shell, no package manager
- signed, with an SBOM for every build
"""


def demo(srv: Server, tmp: Path) -> dict[str, str]:
    http = srv.http
    org = srv.owner_org
    for name in ("platform", "payments", "data"):
        assert http.post(f"/iam/v2/groups/{org}", json={"name": name}).status_code == 200
    team = http.get("/iam/v2/groups", params={"uidp.childrenOf": org}).json()["groups"][0]["uid"]
    repo, _, digest = image(srv, http, team, tmp, ("latest", "1.2", "1.2.3"))
    srv.cli("import", "sbom", repo, digest, str(ROOT / "tests" / "data" / "sbom" / "spdx-2.3.json"))
    srv.cli("import", "vulnreport", repo, digest, str(GRYPE_REPORT))
    http.patch(f"/registry/v2/repos/{repo}", json={"description": "A small service image, rebuilt nightly."})
    http.patch(f"/registry/v2/repos/{repo}/readme", json={"content": README})
    for i in range(12):
        http.post(f"/registry/v2/repos/{team}", json={"name": f"tool-{i:02d}"})
    http.post(f"/iam/v2/roles/{org}", json={"name": "auditor", "description": "reads everything",
                                             "capabilities": ["CAP_REPO_LIST", "CAP_TAG_LIST"]})  # fmt: skip
    http.post(f"/iam/v2/groupInvites/{org}", json={"email": "new.person@example.com", "ttl": "86400s",
                                                   "roleUid": _role(srv, "viewer")})  # fmt: skip
    http.post(f"/events/v2/subscriptions/{org}", json={"sink": "https://hooks.example.com/platform"})
    return {"org": org, "repo": repo}


def _role(srv: Server, name: str) -> str:
    roles = srv.http.get("/iam/v2/roles", params={"uidp.inRoot": "true", "pageSize": 100}).json()["roles"]
    return str(next(r["uid"] for r in roles if r["name"] == name))


def shoot(page: Page, url: str, path: Path) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(path))
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "console")
    args = ap.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("chromium not found: apt-get install -y chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        srv = start_server("sqlite", tmp)
        try:
            ids = demo(srv, tmp)
            base = srv.base_url.replace("127.0.0.1", "localhost")  # the public URL: where the console lives
            q = f"?org={ids['org']}"
            pages = {
                "overview": f"/console/{q}",
                "images": f"/console/images{q}",
                "image-tags": f"/console/images/{ids['repo']}{q}&tab=tags",
                "image-overview": f"/console/images/{ids['repo']}{q}&tab=overview",
                "image-sbom": f"/console/images/{ids['repo']}{q}&tab=sbom",
                "image-vulnerabilities": f"/console/images/{ids['repo']}{q}&tab=vulnerabilities",
                "security": f"/console/security{q}&q=CVE-2023-42363",
                "access": f"/console/access{q}",
                "events": f"/console/events{q}",
            }
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                for scheme in ("light", "dark"):
                    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
                    page = context.new_page()
                    page.goto(base + "/console/")
                    session = json.dumps({"token": srv.token, "refresh": "", "expiry": 0})
                    page.evaluate("s => sessionStorage.setItem('console.session', s)", session)
                    for name, path in pages.items():
                        if scheme == "dark" and name != "images":
                            continue
                        suffix = "-dark" if scheme == "dark" else ""
                        shoot(page, base + path, args.out / f"{name}{suffix}.png")
                    context.close()
                browser.close()
        finally:
            stop_server(srv)


if __name__ == "__main__":
    main()
