"""Readme safety: render the Markdown, sanitize the HTML with a user-generated-content
policy, and refuse the readme when the sanitizer would change anything.

The comparison is on what the HTML means, not its spelling: both versions are parsed and their start
tags (with attributes, entities decoded) and text are compared, so serialization details of the
sanitizer (`<br/>` vs `<br>`, quoting, end tags it adds) never reject a safe readme, while a dropped
tag, attribute, URL or script body always does.
"""

from __future__ import annotations

from html.parser import HTMLParser

import nh3
from markdown_it import MarkdownIt

# CommonMark with raw HTML passed through (that is what consoles render) and GitHub-style tables.
_markdown = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")

# ammonia's defaults (a UGC policy: no script/style/form elements, no event handlers, no style
# attributes, http(s)/mailto and other non-executable URL schemes only), plus what rendered Markdown
# needs: `language-*` classes on code blocks and `text-align` on table cells.
_ATTRIBUTES = {
    **{tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()},
    "code": {"class"},
    "th": {*nh3.ALLOWED_ATTRIBUTES.get("th", ()), "style"},
    "td": {*nh3.ALLOWED_ATTRIBUTES.get("td", ()), "style"},
}


def _keep_attribute(tag: str, attr: str, value: str) -> str | None:
    if attr == "class":
        return value if tag == "code" and value.startswith("language-") and " " not in value else None
    return value


def sanitize(html: str) -> str:
    return nh3.clean(
        html,
        attributes=_ATTRIBUTES,
        attribute_filter=_keep_attribute,
        strip_comments=False,
        link_rel=None,
        filter_style_properties={"text-align"},
    )


class _Meaning(HTMLParser):
    """Start tags with their attributes, and text; end tags and comments are not compared."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[str, ...]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        norm = sorted((k, "".join((v or "").split()).rstrip(";")) for k, v in attrs)
        self.events.append(("tag", tag, *(f"{k}={v}" for k, v in norm)))

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if self.events and self.events[-1][0] == "text":
            self.events[-1] = ("text", self.events[-1][1] + data)
        else:
            self.events.append(("text", data))


def _meaning(html: str) -> list[tuple[str, ...]]:
    p = _Meaning()
    p.feed(html)
    p.close()
    # Whitespace-only text between block elements is layout, not content.
    return [e for e in p.events if e[0] != "text" or e[1].strip()]


def is_safe(markdown: str) -> bool:
    html = _markdown.render(markdown)
    return _meaning(html) == _meaning(sanitize(html))
