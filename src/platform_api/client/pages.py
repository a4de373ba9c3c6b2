"""The items of a List, fetched page by page as they are iterated, following `nextPageToken`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from platform_api.client.contract import Method

T = TypeVar("T")
MAX_PAGES = 100_000  # a server that never stops paging is not followed forever


class Pages(Generic[T]):
    """`for repo in client.registry.list_repos(...)`: the items; `.pages()` yields the whole responses instead
    (for `totalCount`, `skipped`). Nothing is fetched until iterated; each iteration starts again."""

    def __init__(self, call: Callable[[Method, Any], Any], m: Method, request: Any) -> None:
        self._call, self._m, self._request = call, m, request

    def pages(self) -> Iterator[Any]:
        request, seen = self._request, set()
        for _ in range(MAX_PAGES):
            page = self._call(self._m, request)
            yield page
            token = page.next_page_token
            if not token or token in seen:  # a token seen before would loop forever
                return
            seen.add(token)
            request = msgspec.structs.replace(request, page_token=token)

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from getattr(page, self._m.items)
