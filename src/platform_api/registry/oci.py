"""Reading OCI content: an image layout directory or one manifest / image-index JSON document, into the
facts the registry keeps about images (no database here; `oci_import` applies them).

Everything read is untrusted: each blob read is checked against its sha256 digest and its descriptor's
size, media types must be the OCI or Docker v2 manifest / index types, reads stay inside the layout
(symlinks and `..` included), and documents, their counts and the nesting of indexes are bounded.
Layer blobs are never read: a layer's size is its descriptor's (checked against the file when present);
every other blob is read and hashed once per import, however many manifests share it (cached by digest).

`flatten` computes, at import time, an index's platform entries with its nested indexes spliced in: each
distinct digest once, within caps on the entries kept and stepped through.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from platform_api.core import validate
from platform_api.core.patterns import Pattern
from platform_api.service import imports
from platform_api.service.imports import BadInput

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_INDEX = "application/vnd.docker.distribution.manifest.list.v2+json"
MANIFESTS = (OCI_MANIFEST, DOCKER_MANIFEST)
INDEXES = (OCI_INDEX, DOCKER_INDEX)
REF_NAME = "org.opencontainers.image.ref.name"

MAX_DOCUMENT = 4 << 20  # a manifest or index (the distribution spec's 4 MiB)
MAX_CONFIG = 8 << 20
MAX_DOCUMENTS = 10_000  # manifests and indexes in one import
MAX_ENTRIES = 1_000  # children of one index, layers of one manifest
MAX_DEPTH = 4  # indexes nested in index.json
MAX_SIZE = 1 << 50  # a descriptor's size (1 PiB)
MAX_PLATFORMS = 1_000  # entries of one index once its nested indexes are flattened (as many as it may list)
MAX_FLATTEN_STEPS = 1_000_000  # entries one import's flattening steps through (a nested list counts per use)
# The OCI image spec's digest grammar (algorithm:encoded), for telling another algorithm from garbage.
_DIGEST = Pattern(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+")


@dataclass
class Image:
    """One manifest or image index, as recorded per repo. `size` (manifests): config + layers (reference
    6.12); `children` (indexes): {digest, mediaType, size, os, architecture, variant} of each entry;
    `platforms` (indexes): the entries with nested indexes flattened (`flatten`), None on rows recorded
    before imports computed it."""

    digest: str
    media_type: str
    is_index: bool
    size: int = 0
    os: str = ""
    architecture: str = ""
    variant: str = ""
    config: str = ""
    layers: list[int] = field(default_factory=list)
    children: list[dict[str, Any]] = field(default_factory=list)
    platforms: list[dict[str, Any]] | None = None

    def facts(self) -> dict[str, Any]:
        """What the row's body keeps beyond its columns."""
        if self.is_index:
            return {"children": self.children} | ({} if self.platforms is None else {"platforms": self.platforms})
        return {"config": self.config, "layers": self.layers}

    def entries(self) -> list[dict[str, Any]]:
        """An index's entries, flattened as far as its import could (its own children on older rows)."""
        return self.children if self.platforms is None else self.platforms


@dataclass
class Content:
    """What one input holds: images by digest (in the order met) and the tags the layout names."""

    images: dict[str, Image] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)  # tag name -> digest


def _type(value: Any, kind: type | tuple[type, ...], file: Path, place: str, what: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadInput(file, place, f"{what} has the wrong type ({type(value).__name__})")
    return value


def _digest(value: Any, file: Path, place: str) -> str:
    _type(value, str, file, place, "digest")
    if validate.is_digest(value):
        return str(value)
    if _DIGEST.fullmatch(value) and not value.startswith("sha256:"):
        raise BadInput(file, place, f"digest algorithm {value.split(':')[0]!r} is not supported (only sha256)")
    raise BadInput(file, place, f"{value[:80]!r} is not a sha256 digest (sha256:<64 lowercase hex digits>)")


def _platform(desc: dict[str, Any], file: Path, place: str) -> dict[str, str]:
    p = desc.get("platform")
    if p is None:
        return {}
    _type(p, dict, file, f"{place}.platform", "platform")
    out = {}
    for key in ("os", "architecture", "variant"):
        v = p.get(key, "")
        out[key] = _type(v, str, file, f"{place}.platform.{key}", key)[:64]
    return out


@dataclass
class Descriptor:
    media_type: str
    digest: str
    size: int
    platform: dict[str, str]
    annotations: dict[str, str]


def descriptor(value: Any, file: Path, place: str, kinds: tuple[str, ...] = ()) -> Descriptor:
    """A descriptor's fields, checked; with `kinds`, its media type must be one of them."""
    _type(value, dict, file, place, "descriptor")
    media = _type(value.get("mediaType"), str, file, f"{place}.mediaType", "mediaType")
    if kinds and media not in kinds:
        raise BadInput(
            file, f"{place}.mediaType", f"unsupported media type {media[:100]!r} (expected one of {', '.join(kinds)})"
        )
    digest = _digest(value.get("digest"), file, f"{place}.digest")
    size = _type(value.get("size"), int, file, f"{place}.size", "size")
    if not 0 <= size <= MAX_SIZE:
        raise BadInput(file, f"{place}.size", f"size {size} is out of range")
    annotations = value.get("annotations") or {}
    _type(annotations, dict, file, f"{place}.annotations", "annotations")
    for k, v in annotations.items():
        _type(v, str, file, f"{place}.annotations[{k[:60]!r}]", "annotation")
    return Descriptor(media, digest, size, _platform(value, file, place), annotations)


def _document(file: Path, data: bytes, media: str | None) -> dict[str, Any]:
    """A manifest or index document; its own mediaType (when it says one) must agree with `media`."""
    doc: dict[str, Any] = _type(imports.load_json(file, data), dict, file, "$", "the document")
    if doc.get("schemaVersion") != 2:
        raise BadInput(
            file, "$.schemaVersion", f"unsupported schemaVersion {str(doc.get('schemaVersion'))[:20]} (expected 2)"
        )
    own = doc.get("mediaType")
    if own is not None:
        _type(own, str, file, "$.mediaType", "mediaType")
        if media is not None and own != media:
            raise BadInput(file, "$.mediaType", f"says {own[:100]!r} but its descriptor says {media!r}")
    return doc


def kind_of(file: Path, doc: dict[str, Any]) -> str:
    """The media type of a document read alone: its own, else what its fields show."""
    media = doc.get("mediaType")
    if media is None:
        media = OCI_INDEX if "manifests" in doc else OCI_MANIFEST if "config" in doc else None
    if media not in MANIFESTS + INDEXES:
        raise BadInput(file, "$.mediaType", f"not an image manifest or index ({str(media)[:100]!r})")
    return str(media)


def manifest(file: Path, digest: str, media: str, doc: dict[str, Any]) -> Image:
    """A manifest's facts from its document: config digest, layer sizes, size = config + layers."""
    config = descriptor(doc.get("config"), file, "$.config")
    layers = _type(doc.get("layers", []), list, file, "$.layers", "layers")
    if len(layers) > MAX_ENTRIES:
        raise BadInput(file, "$.layers", f"{len(layers)} layers is over the limit of {MAX_ENTRIES}")
    sizes = [descriptor(layer, file, f"$.layers[{i}]").size for i, layer in enumerate(layers)]
    return Image(digest, media, False, config.size + sum(sizes), config=config.digest, layers=sizes)


def index(file: Path, digest: str, media: str, doc: dict[str, Any]) -> tuple[Image, list[Descriptor]]:
    """An index's facts and its entries' descriptors (manifests or nested indexes)."""
    entries = _type(doc.get("manifests"), list, file, "$.manifests", "manifests")
    if len(entries) > MAX_ENTRIES:
        raise BadInput(file, "$.manifests", f"{len(entries)} entries is over the limit of {MAX_ENTRIES}")
    descs = [descriptor(e, file, f"$.manifests[{i}]", MANIFESTS + INDEXES) for i, e in enumerate(entries)]
    children = [{"digest": d.digest, "mediaType": d.media_type, "size": d.size, **d.platform} for d in descs]
    return Image(digest, media, True, children=children), descs


def read_document(path: Path) -> Content:
    """One manifest or index file alone: its digest is the sha256 of its bytes; the blobs it references
    need not be there (a manifest's size comes from its descriptors)."""
    data = imports.read_file(path, limit=MAX_DOCUMENT)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    doc = _document(path, data, None)
    media = kind_of(path, doc)
    image = index(path, digest, media, doc)[0] if media in INDEXES else manifest(path, digest, media, doc)
    return Content(images={digest: image})


class Layout:
    """An OCI image layout directory being read (imageLayoutVersion 1.0.0)."""

    def __init__(self, root: Path, progress: imports.Progress) -> None:
        self.root, self.progress = root, progress
        self.content = Content()
        self.configs: dict[str, _Config] = {}  # config blobs read, by digest

    def blob_path(self, digest: str) -> Path:
        return self.root / "blobs" / "sha256" / digest.removeprefix("sha256:")

    def has_blob(self, digest: str) -> bool:
        return self.blob_path(digest).exists()

    def blob(self, d: Descriptor, limit: int) -> tuple[Path, bytes]:
        """The blob of `d`, checked against its digest and size."""
        path = self.blob_path(d.digest)
        if d.size > limit:
            raise BadInput(path, "", f"descriptor size {d.size} is over the limit of {limit} bytes")
        if not path.exists() and not path.is_symlink():
            raise BadInput(path, "", f"blob {d.digest} is missing from the layout")
        data = imports.read_file(path, self.root, limit)
        if len(data) != d.size:
            raise BadInput(path, "", f"{len(data)} bytes, but its descriptor says {d.size}")
        if hashlib.sha256(data).hexdigest() != d.digest.removeprefix("sha256:"):
            raise BadInput(path, "", f"content does not match its digest {d.digest}")
        return path, data

    def read(self) -> Content:
        marker = self.root / "oci-layout"
        if not self.root.is_dir():
            raise BadInput(self.root, "", "not a directory")
        layout = imports.load_json(marker, imports.read_file(marker, self.root, 4096))
        version = layout.get("imageLayoutVersion") if isinstance(layout, dict) else None
        if version != "1.0.0":
            raise BadInput(
                marker, "$.imageLayoutVersion", f"unsupported layout version {str(version)[:20]!r} (expected 1.0.0)"
            )
        path = self.root / "index.json"
        doc = _document(path, imports.read_file(path, self.root, MAX_DOCUMENT), None)
        descs = index(path, "", OCI_INDEX, doc)[1]
        self.progress.total = len(descs)
        for i, d in enumerate(descs):
            name = d.annotations.get(REF_NAME)
            if name is not None:
                self._tag(path, f"$.manifests[{i}].annotations[{REF_NAME!r}]", name, d.digest)
            self._visit(d, 1)
            self.progress.advance()
        return self.content

    def _tag(self, file: Path, place: str, name: str, digest: str) -> None:
        if not validate.is_tag_name(name):
            raise BadInput(file, place, f"{name[:140]!r} is not a valid tag name")
        if self.content.tags.get(name, digest) != digest:
            raise BadInput(file, place, f"tag {name!r} names two digests")
        self.content.tags[name] = digest

    def _visit(self, d: Descriptor, depth: int) -> None:
        images = self.content.images
        if d.digest in images:
            _merge_platform(images[d.digest], d.platform)
            return
        if len(images) >= MAX_DOCUMENTS:
            raise BadInput(self.root, "", f"more than {MAX_DOCUMENTS} manifests and indexes")
        path, data = self.blob(d, MAX_DOCUMENT)
        doc = _document(path, data, d.media_type)
        if d.media_type in INDEXES:
            if depth > MAX_DEPTH:
                raise BadInput(path, "", f"image indexes nested deeper than {MAX_DEPTH}")
            image, children = index(path, d.digest, d.media_type, doc)
            images[d.digest] = image
            for child in children:
                self._visit(child, depth + 1)
            return
        image = manifest(path, d.digest, d.media_type, doc)
        images[d.digest] = image
        self._config(image, path, doc)
        for i, layer in enumerate(doc.get("layers", [])):
            self._layer(path, i, descriptor(layer, path, f"$.layers[{i}]"))
        _merge_platform(image, d.platform)

    def _config(self, image: Image, manifest_path: Path, doc: dict[str, Any]) -> None:
        """The platform from the config blob, when the layout has it. Each config blob is read, hashed and
        parsed once per import: many manifests may share one (up to MAX_CONFIG bytes each)."""
        d = descriptor(doc["config"], manifest_path, "$.config")
        config = self.configs.get(d.digest)
        if config is None:
            if not self.has_blob(d.digest):
                return
            path, data = self.blob(d, MAX_CONFIG)
            config = self.configs[d.digest] = _Config(path, d.size, _config_platform(path, data))
        elif config.size != d.size:
            raise BadInput(config.path, "", f"{config.size} bytes, but its descriptor says {d.size}")
        if not d.media_type.endswith("json"):
            return
        if isinstance(config.platform, BadInput):
            raise config.platform
        _merge_platform(image, config.platform)

    def _layer(self, manifest_path: Path, i: int, d: Descriptor) -> None:
        """A layer present in the layout must have its descriptor's size (its content is not read)."""
        path = self.blob_path(d.digest)
        if path.exists() or path.is_symlink():
            imports.inside(path, self.root)
            if path.stat().st_size != d.size:
                raise BadInput(
                    path, "", f"{path.stat().st_size} bytes, but layer {i} of {manifest_path.name} says {d.size}"
                )


@dataclass
class _Config:
    """A config blob read (its digest and size checked): its platform, or why its JSON was refused (which
    matters only to a descriptor with a JSON media type)."""

    path: Path
    size: int
    platform: dict[str, str] | BadInput


def _config_platform(path: Path, data: bytes) -> dict[str, str] | BadInput:
    try:
        config = imports.load_json(path, data)
    except BadInput as e:
        return e
    if not isinstance(config, dict):
        return {}
    found = {k: config.get(k) for k in ("os", "architecture", "variant")}
    return {k: v[:64] for k, v in found.items() if isinstance(v, str)}


def _merge_platform(image: Image, platform: dict[str, str]) -> None:
    """Fill the platform fields still empty (the config's word first, then an index's descriptor)."""
    for key in ("os", "architecture", "variant"):
        if not getattr(image, key) and platform.get(key):
            setattr(image, key, platform[key])


def read(path: Path, progress: imports.Progress) -> Content:
    """A layout directory or a single manifest / index file."""
    if path.is_dir():
        return Layout(path, progress).read()
    if not path.exists():
        raise BadInput(path, "", "no such file or directory")
    return read_document(path)


class TooWide(Exception):
    """Flattening an index would pass one of its caps (the message says which)."""


class Steps:
    """What a flattening may still step through: entries, each time a list is spliced in."""

    def __init__(self, limit: int) -> None:
        self.limit, self.left = limit, limit

    def take(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise TooWide(f"flattening its nested indexes steps through more than {self.limit} entries")


def is_index(entry: dict[str, Any]) -> bool:
    return entry.get("mediaType") in INDEXES


def flatten(
    entries: list[dict[str, Any]], nested: Callable[[str], list[dict[str, Any]] | None], steps: Steps
) -> list[dict[str, Any]]:
    """An index's entries with each nested index's own flattened entries spliced in its place: each
    distinct digest once (its first entry), in index order. `nested(digest)` is None for an index not known
    (not imported yet): its entry stays, a placeholder that reads resolve if it is imported later. TooWide
    beyond MAX_PLATFORMS entries or the `steps` left."""
    out: dict[str, dict[str, Any]] = {}
    spliced: set[str] = set()
    stack = [iter(entries)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        steps.take(1)
        digest = entry["digest"]
        if is_index(entry):
            if digest in spliced:
                continue
            spliced.add(digest)
            inner = nested(digest)
            if inner is not None:
                stack.append(iter(inner))
                continue
        out.setdefault(digest, entry)
        if len(out) > MAX_PLATFORMS:
            raise TooWide(f"its nested indexes flatten to more than {MAX_PLATFORMS} entries")
    return list(out.values())


def flatten_all(images: Mapping[str, Image], stored: Mapping[str, list[dict[str, Any]]], steps: Steps) -> None:
    """Set `platforms` of every index in `images` (one input), nested indexes first so that each is
    flattened once; `stored` gives the flattened entries of indexes recorded before, outside the input."""
    lists = dict(stored)
    for digest in _nested_first(images):
        image = images[digest]
        try:
            image.platforms = lists[digest] = flatten(image.children, lists.get, steps)
        except TooWide as e:
            raise TooWide(f"image index {digest}: {e}") from None


def _nested_first(images: Mapping[str, Image]) -> list[str]:
    """The indexes of `images`, each after the indexes of `images` it contains (depth first, no recursion:
    an input may chain thousands)."""
    order: list[str] = []
    placed: set[str] = set()
    for root, image in images.items():
        if not image.is_index or root in placed:
            continue
        placed.add(root)
        stack = [(root, iter(image.children))]
        while stack:
            digest, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                order.append(digest)
            elif child["digest"] not in placed and (inner := images.get(child["digest"])) and inner.is_index:
                placed.add(child["digest"])
                stack.append((child["digest"], iter(inner.children)))
    return order


def body(image: Image) -> str:
    return json.dumps(image.facts(), sort_keys=True, separators=(",", ":"))
