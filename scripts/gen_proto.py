"""Regenerate src/platform_api/gen from proto/: protobuf + gRPC modules, then the msgspec records.

Usage: python scripts/gen_proto.py [--out DIR]   (default: src/platform_api/gen)

Generated code is committed; tests/test_generated.py fails when it is stale.
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
# that name, so imports are rewritten to live under our package.
_IMPORT_RE = re.compile(r"^(from|import) platform\.", re.M)
_PKG = "platform_api.gen.platform."


def _includes() -> list[str]:
    import google.api.annotations_pb2 as ann  # googleapis-common-protos ships the .proto sources

    googleapis = Path(ann.__file__).resolve().parent.parent.parent
    builtin = Path(grpc_tools.__file__).resolve().parent / "_proto"
    return [str(PROTO), str(googleapis), str(builtin)]


def compile_protos(out: Path) -> None:
    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    args = ["protoc", *(f"-I{i}" for i in _includes())]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [f"--descriptor_set_out={out / 'descriptors.binpb'}", "--include_imports", *files]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    for path in out.rglob("*.py*"):
        text = path.read_text()
        new = _IMPORT_RE.sub(lambda m: f"{m.group(1)} {_PKG}", text)
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
