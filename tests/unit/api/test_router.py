"""The router's template matcher (no regular expressions) answers exactly as the anchored regular expression
of each template would: `[^/]+` for a one-segment variable, `.*` for a greedy one, literals as they are."""

from __future__ import annotations

import random
import re

import pytest

from platform_api.api import schema
from platform_api.api.router import Router, parse_template

_VAR = re.compile(r"\{([a-zA-Z0-9_.]+)(?:=([^}]*))?\}")


def reference(template: str) -> re.Pattern[str]:
    out, pos = [], 0
    for i, m in enumerate(_VAR.finditer(template)):
        out.append(re.escape(template[pos : m.start()]))
        out.append(f"(?P<g{i}>.*)" if m.group(2) == "**" else f"(?P<g{i}>[^/]+)")
        pos = m.end()
    return re.compile("".join(out) + re.escape(template[pos:]) + r"\Z")


def names(template: str) -> list[str]:
    return [m.group(1) for m in _VAR.finditer(template)]


SERVED = {r.template for m in schema.methods().values() for r in m.rules if "{" in r.template}
TEMPLATES = [*sorted(SERVED), "/x/v1/{a}/b/{c=**}/d/{e}/f", "/x/v1/{a=**}:verb", "/x/v1/{a}:verb"]
PIECES = ["/", "a", "b", "d", "f", "digests", "size", "sha256:" + "a" * 8, ":verb", "verb", "\n", "é", "//", ":"]


@pytest.mark.parametrize("template", TEMPLATES)
def test_matches_like_the_regular_expression(template: str) -> None:
    rx, t = reference(template), parse_template(template)
    rnd = random.Random(template)
    literal = [p for p in re.split(r"\{[^}]*\}", template) if p]
    for _ in range(3000):
        # Paths built from the template's own literals and a few hostile pieces.
        path = "".join(rnd.choice(literal + PIECES) for _ in range(rnd.randint(1, 9)))
        if rnd.random() < 0.5:
            path = literal[0] + path
        m = rx.match(path)
        got = t.match(path)
        want = None if m is None else {n: m.group(f"g{i}") for i, n in enumerate(names(template))}
        assert got == want, (template, path)


def test_unsupported_templates_are_refused_at_start() -> None:
    for bad in ["/a/{x=**}/b/{y=**}", "/a/x{y}", "/a/{x=a*}", "/a/{x}{y=**}"]:
        with pytest.raises(ValueError):
            parse_template(bad)


def test_routes_resolve_most_specific_first() -> None:
    router = Router(list(schema.methods().values()))
    uid = "a" * 40 + "/" + "b" * 16
    m = router.match("GET", f"/registry/v2/repos/{uid}/digests/sha256:{'c' * 64}/size")
    assert m is not None and m.route.method.name == "GetSize"
    assert m.params == {"repo_uid": uid, "digest": "sha256:" + "c" * 64}
    m = router.match("GET", f"/registry/v2/repos/{uid}")
    assert m is not None and m.route.method.name == "GetRepo" and m.params == {"uid": uid}


CHILD = "a" * 40 + "/" + "b" * 16


class TestRouter:
    router = Router(list(schema.methods().values()))

    def route(self, verb: str, path: str) -> tuple[str, dict[str, str]] | None:
        m = self.router.match(verb, path)
        return None if m is None else (m.route.method.name, m.params)

    def test_greedy_uid_with_slashes(self) -> None:
        assert self.route("GET", f"/registry/v2/repos/{CHILD}") == ("GetRepo", {"uid": CHILD})
        assert self.route("PATCH", f"/registry/v2/repos/{CHILD}") == ("UpdateRepo", {"repo.uid": CHILD})

    def test_suffix_routes_win_over_greedy(self) -> None:
        assert self.route("GET", f"/registry/v2/repos/{CHILD}/readme") == ("GetRepoReadme", {"uid": CHILD})
        d = "sha256:" + "0" * 64
        assert self.route("GET", f"/registry/v2/repos/{CHILD}/digests/{d}/size") == (
            "GetSize",
            {"repo_uid": CHILD, "digest": d},
        )

    def test_exact_and_empty_parent(self) -> None:
        assert self.route("GET", "/registry/v2/repos") == ("ListRepos", {})
        assert self.route("POST", "/iam/v2/groups/") == ("CreateGroup", {"parent": ""})

    def test_no_route(self) -> None:
        assert self.route("GET", "/registry/v2/nothing") is None
        assert self.router.allowed(f"/registry/v2/repos/{CHILD}") == ["DELETE", "GET", "PATCH", "POST"]
