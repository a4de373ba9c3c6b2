"""Regenerate src/platform_api/gen from proto/: protobuf + gRPC modules, then the msgspec records.

Usage: python scripts/gen_proto.py [--out DIR]   (default: src/platform_api/gen)

Generated code is committed; tests/functional/ops/test_generated.py fails when it is stale.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import grpc_tools
from grpc_tools import protoc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recordgen

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
DEFAULT_OUT = ROOT / "src" / "platform_api" / "gen"
# The generated top-level package would be `platform`, which shadows the standard library module of
# that name, so imports are rewritten to live under our package (`grpc.reflection`, the v1 reflection
# protocol, too: `grpc` itself is grpcio).
_IMPORT_RE = re.compile(r"^(from|import) (platformapi|chainguard|grpc\.reflection)\b", re.M)
_PKG = "platform_api.gen."
# The v2beta1 packages (which older clients call) are the v2 contract under another version segment (same
# messages, same numbers, paths /<domain>/v2beta1/...). They are derived here, never edited by hand.


def _includes() -> list[str]:
    import google.api.annotations_pb2 as ann  # googleapis-common-protos ships the .proto sources

    googleapis = Path(ann.__file__).resolve().parent.parent.parent
    builtin = Path(grpc_tools.__file__).resolve().parent / "_proto"
    return [str(PROTO), str(googleapis), str(builtin)]


def _with_v2beta1(src: Path) -> None:
    """Copy proto/ into src, adding a v2beta1 copy of every chainguard/platform/<domain>/v2 file."""
    shutil.copytree(PROTO, src)
    for path in sorted(src.glob("chainguard/platform/*/v2/*.proto")):
        domain = path.parent.parent.name
        text = path.read_text()
        v2, beta = f"chainguard.platform.{domain}.v2", f"chainguard.platform.{domain}.v2beta1"
        text = text.replace(f"package {v2};", f"package {beta};")
        text = text.replace(f'"/{domain}/v2/', f'"/{domain}/v2beta1/')  # HTTP rules
        text = text.replace(f'"{v2.replace(".", "/")}/', f'"{beta.replace(".", "/")}/')  # imports of the same package
        copy = path.parent.parent / "v2beta1" / path.name
        copy.parent.mkdir(exist_ok=True)
        copy.write_text(text)


def compile_protos(out: Path) -> None:
    src = Path(tempfile.mkdtemp(prefix="proto-")) / "proto"
    _with_v2beta1(src)
    files = sorted(str(p.relative_to(src)) for p in src.rglob("*.proto"))
    args = ["protoc", f"-I{src}", *(f"-I{i}" for i in _includes()[1:])]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [f"--descriptor_set_out={out / 'descriptors.binpb'}", "--include_imports", *files]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    shutil.rmtree(src.parent, ignore_errors=True)
    for path in out.rglob("*.py*"):
        text = path.read_text()
        new = _IMPORT_RE.sub(lambda m: f"{m.group(1)} {_PKG}{m.group(2)}", text)
        if new != text:
            path.write_text(new)
    for d in [out, *[p for p in out.rglob("*") if p.is_dir()]]:
        if d.name != "__pycache__":
            (d / "__init__.py").touch()


def generate(out: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="gen-"))
    try:
        compile_protos(tmp)
        (tmp / "__init__.py").write_text('"""Generated from proto/ by scripts/gen_proto.py; do not edit."""\n')
        # Records are generated from the freshly compiled descriptor set, not from imported modules.
        recordgen.write_records(tmp / "descriptors.binpb", tmp / "records")
        (tmp / "descriptors.binpb").unlink()
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(tmp, out, ignore=shutil.ignore_patterns("__pycache__"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ns = parser.parse_args()
    os.chdir(ROOT)
    generate(ns.out.resolve())


if __name__ == "__main__":
    main()
