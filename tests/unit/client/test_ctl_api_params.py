"""`platformctl api`'s pure parts: -f/-F parameters as body fields and query parameters, and the merge of pages."""

from __future__ import annotations

import pytest

from platform_api.ctl.api_cmd import merge, nest, query
from platform_api.ctl.common import CtlError


def test_dotted_keys_nest_and_repeated_keys_make_arrays() -> None:
    params = [("name", "a"), ("uidp.childrenOf", "o"), ("tags[]", "x"), ("ids", "1"), ("ids", "2"), ("n", 3)]
    assert nest(params) == {"name": "a", "uidp": {"childrenOf": "o"}, "tags": ["x"], "ids": ["1", "2"], "n": 3}
    with pytest.raises(CtlError):
        nest([("a", "1"), ("a.b", "2")])


def test_query_parameters_are_text() -> None:
    assert query([("a.b", "x"), ("on", True), ("n", 2), ("gone", None), ("k[]", "v")]) == [
        ("a.b", "x"), ("on", "true"), ("n", "2"), ("k", "v"),
    ]  # fmt: skip


def test_pages_merge_their_lists() -> None:
    pages = [{"groups": [1, 2], "nextPageToken": "t1"}, {"groups": [3], "nextPageToken": "t2"}, {"groups": [4]}]
    assert merge(pages) == {"groups": [1, 2, 3, 4]}
    assert merge(pages[:2]) == {"groups": [1, 2, 3], "nextPageToken": "t2"}  # stopped early: where to go on
    assert merge([{"a": 1}]) == {"a": 1}
