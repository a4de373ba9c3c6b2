"""The XML the Java import parses: no document type declaration gets through, whatever the encoding."""

from __future__ import annotations

import pytest

from platform_api.libraries import java_input
from platform_api.service.imports import BadInput

EVIL = '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<p>&x;</p>'


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_doctype_in_another_encoding_is_refused(codec: str) -> None:
    with pytest.raises(BadInput) as e:
        java_input._load("x.pom", EVIL.encode(codec))
    assert "not UTF-8" in e.value.problem or "NUL" in e.value.problem


def test_utf8_doctype_and_nul_refused_plain_xml_parsed() -> None:
    with pytest.raises(BadInput, match="DOCTYPE"):
        java_input._load("x.pom", EVIL.replace("UTF-16", "UTF-8").encode())
    with pytest.raises(BadInput, match="NUL"):
        java_input._load("x.pom", b"<p>\x00</p>")
    assert java_input._load("x.pom", "\ufeff<p>é</p>".encode()).text == "é"
