"""Every shell (and Python) example of the README and of the guide in docs/ runs as written, in order, against one
fresh server, as a reader would run them in one terminal (issue 29 item 10): so they cannot rot. The order is the
README's, then the pages' in the order docs/README.md (the table of contents) links them: a page added there is
run, and its examples may use what the pages before it made ($ORG, $TOKEN, ...).

Each block runs in its own `bash` (`set -euo pipefail`, a timeout each) in a folder holding `.venv` (this venv) and
the server's database (`platform-api.db`, the default of the README's commands); the shell variables a block sets
(with their export flag) are handed to the next block, as one terminal keeps them. A block is run unless SKIPPED
names it (by its first line) with the reason it cannot run here: a new block is run by default.

Fill rules (what the test changes in the text, nothing else):
- `localhost:8080` (the README's server) is this test's server: `127.0.0.1:<its HTTP port>`; gRPC is found where
  the server publishes it (`/.well-known/platform-api`), as for a reader; `PLATFORM_API_URL` names it too.
- `api` is the README's own `alias api='curl ...'` (from its text), with aliases on in the script.
- `curl` fails on an HTTP error (`--fail-with-body`): an error a reader would read in the output fails the block.
- A ```python block runs as `python - <<'PY' ... PY` (the venv's python, the variables exported so far).
- HOME and XDG_CONFIG_HOME are the test's folder (platformctl's config and login cache); PATH starts with the
  venv's bin (the blocks that say `platform-api` or `platformctl` without `.venv/bin/`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import start_server, stop_server

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60  # seconds per block

# First line of a block -> why it is not run here.
SKIPPED = {
    "python3.11 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e . && .venv/bin/platform-api serve":
        "the set-up command: the test starts the server itself (tests/helpers/server.py)",
    "python3.11 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e '.[dev]' && .venv/bin/python -m "
    "pytest": "the set-up command: runs the whole suite",
    ".venv/bin/python -m tests.helpers.oidc_provider --port 8900 --client-id demo --user alice:alice@example.com: &":
        "the sign-in demo: a second server with a login provider and a browser step "
        "(tests/functional/ctl/test_ctl_login.py plays it in a pseudo-terminal)",
    "# (a) on the operator's word, when the operator knows the organization owns the domain: no DNS":
        "`domains check` asks DNS (not loopback); its [...] are optional arguments "
        "(tests/functional/iam/test_join_domains.py covers the domain commands)",
    ".venv/bin/platform-api registry-config --out registry --storage registry/data   # prints what it wrote":
        "runs Debian's docker-registry in the foreground (tests/functional/registry/ drives it)",
    "NAME=$(api localhost:8080/iam/v2/groups/$ORG | jq -r .name)":
        "needs the registry above and the reader's OCI layout ./my-image (tests/functional/registry/)",
    "platform-api import oci $REPO ./layout          # OCI image layout dir (oci-layout, index.json, blobs/sha256/...)":
        "imports the reader's files (a layout, SBOM, grype and endoflife.date JSON; tests/functional/registry/)",
    "IDX=sha256:...   # an image index imported above": "reads the image index the skipped import block imported",
    ".venv/bin/platform-api import advisories ./advisories --group $ORG [--namespace wolfi] [--artifact-type apk]":
        "imports the reader's advisory files (tests/functional/vulnerabilities/test_advisories_import.py)",
    "platform-api import osv path/to/osv-records/     # every *.json below it":
        "imports the reader's OSV files and OSV's export (not loopback; tests/functional/ops/test_import_inputs.py)",
    "# PEP 691 JSON project pages (application/vnd.pypi.simple.v1+json, PEP 700 fields) and/or PyPI JSON":
        "imports the reader's PyPI pages and Maven files (tests/functional/libraries/test_libraries_api.py)",
}  # fmt: skip


@dataclass
class Block:
    page: str
    heading: str
    lang: str
    text: str

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0].strip()


def pages() -> list[Path]:
    """The README, then every page docs/README.md links to, in the order it links them (each once)."""
    toc = ROOT / "docs" / "README.md"
    found = [ROOT / "README.md"]
    for target in re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", toc.read_text()):
        path = (toc.parent / target).resolve()
        if path not in found:
            found.append(path)
    return found


def page_blocks(path: Path) -> list[Block]:
    """A page's ```sh and ```python blocks (also those indented in a list item), in order, with the heading
    they are under."""
    blocks, heading, lines = [], "", path.read_text().splitlines()
    page = str(path.relative_to(ROOT))
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line
        m = re.fullmatch(r"( *)```(sh|python)", line)
        if m:
            indent, body = len(m.group(1)), []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i][indent:])
                i += 1
            blocks.append(Block(page, heading, m.group(2), "\n".join(body) + "\n"))
        i += 1
    return blocks


def readme_blocks() -> list[Block]:
    """The blocks of every page, the README's first."""
    return [block for path in pages() for block in page_blocks(path)]


def api_alias() -> str:
    m = re.search(r"`(alias api='[^']*')`", (ROOT / "README.md").read_text())
    assert m, "README: the `alias api='...'` of First calls is gone"
    return m.group(1)


PRELUDE = """set -euo pipefail
shopt -s expand_aliases
curl() { command curl --fail-with-body "$@"; }
__before=" $(compgen -v | tr '\\n' ' ') "
__save() { for v in $(compgen -v); do case "$__before" in *" $v "*) ;;
  *) [[ $v == __* || $v == FUNCNAME ]] || declare -p "$v";; esac; done > "$__state"; }
trap __save EXIT
[ -f "$__state.in" ] && source "$__state.in"
"""


def script(block: Block, port: str, alias: str) -> str:
    body = block.text.replace("localhost:8080", f"127.0.0.1:{port}")
    if block.lang == "python":
        body = f"python - <<'PY'\n{body}PY\n"
    return f"{PRELUDE}{alias}\n{body}"


def test_readme_blocks_run_in_order(tmp_path: Path) -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 15, [b.first_line for b in blocks]
    known = {b.first_line for b in blocks}
    assert not set(SKIPPED) - known, f"SKIPPED names blocks the pages no longer have: {set(SKIPPED) - known}"
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv").symlink_to(Path(sys.executable).parent.parent)
    server = start_server("sqlite", tmp_path, database_url=f"sqlite:///{work / 'platform-api.db'}")
    port = server.base_url.rsplit(":", 1)[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATFORM_API_")}
    env |= {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "PLATFORM_API_URL": server.base_url,
            "PATH": f"{Path(sys.executable).parent}:{env['PATH']}", "__state": str(tmp_path / "state")}  # fmt: skip
    alias, ran = api_alias(), []
    try:
        for block in blocks:
            if block.first_line in SKIPPED:
                continue
            r = subprocess.run(["bash", "-c", script(block, port, alias)], cwd=work, env=env, capture_output=True,
                               text=True, timeout=TIMEOUT)  # fmt: skip
            assert r.returncode == 0, (
                f"{block.page}: block under {block.heading!r} failed (exit {r.returncode}):\n{block.text}\n"
                f"--- stdout:\n{r.stdout}\n--- stderr:\n{r.stderr}"
            )
            (tmp_path / "state").rename(tmp_path / "state.in")
            ran.append(block.first_line)
    finally:
        stop_server(server)
    assert len(ran) >= 6, ran


if __name__ == "__main__":  # list the blocks and whether they run
    for b in readme_blocks():
        print("SKIP" if b.first_line in SKIPPED else "RUN ", b.page, b.heading, "|", b.first_line[:80])
