"""Protobuf wire bytes written by hand, as another client's encoder writes them: for fields our messages do
not declare (the contract's fields we leave out arrive so), which the generated classes cannot set."""

from __future__ import annotations


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def delimited(number: int, payload: bytes) -> bytes:
    """A length-delimited field: a string, bytes, an embedded message, a map entry or one packed list."""
    return tag(number, 2) + varint(len(payload)) + payload
