"""XML we did not write (Maven files, a cloud token service's answers), parsed with the standard library's
expat parser, but only within a byte bound and after refusing any document type declaration (`<!DOCTYPE`,
hence any entity definition: no external entities, no entity expansion). UTF-8 only, no NUL: then the
declaration check sees what the parser will see (in UTF-16 a DOCTYPE would not match the ASCII pattern).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

_XML_SPACE = b" \t\n\r\x0b\x0c"


class Refused(ValueError):
    """The document is not parsed: where (`byte N`, `line:column` or ''), and why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.where = where
        self.reason = reason


def declaration(data: bytes) -> int:
    """Where `<!` followed by optional whitespace and DOCTYPE or ENTITY (any case) begins, or -1. Each
    whitespace run is read once, after the one `<!` it follows: linear in `data`."""
    at = data.find(b"<!")
    while at >= 0:
        i = at + 2
        while i < len(data) and data[i] in _XML_SPACE:
            i += 1
        word = data[i : i + 7].upper()
        if word == b"DOCTYPE" or word[:6] == b"ENTITY":
            return at
        at = data.find(b"<!", i)
    return -1


def parse(data: bytes, limit: int) -> ET.Element:
    """The document's root element; Refused when it is over `limit` bytes, not UTF-8, holds a NUL or a
    document type declaration, or is malformed."""
    if len(data) > limit:
        raise Refused("", f"{len(data)} bytes is over the XML limit of {limit} bytes")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Refused(f"byte {e.start}", "not UTF-8 text (the only encoding accepted)") from None
    if b"\x00" in data:
        raise Refused(f"byte {data.index(0)}", "NUL byte in XML")
    at = declaration(data)
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        col = at - (data.rfind(b"\n", 0, at) + 1) + 1
        raise Refused(f"{line}:{col}", "document type declarations (DOCTYPE/ENTITY) are refused")
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise Refused(f"{line}:{col + 1}", f"malformed XML: {str(e).split(':', 1)[0]}") from None


def local_name(el: ET.Element) -> str:
    """The element's name without its namespace."""
    return el.tag.rsplit("}", 1)[-1]


def child(el: ET.Element, name: str) -> ET.Element | None:
    """The first child element named `name` (any namespace)."""
    for c in el:
        if local_name(c) == name:
            return c
    return None
