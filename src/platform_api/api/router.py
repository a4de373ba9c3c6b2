"""HTTP routing from the google.api.http templates, compiled once.

UIDPs go into paths raw, slashes included, so `{uid=**}` is greedy. Exact paths are a dict lookup;
the others are tried per collection prefix, most specific first: `:verb` routes and routes with
literal segments after their last variable (`/readme`, `/digests/{digest}/size`) before routes that
end in a greedy variable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from platform_api.service.methods import HttpRule, MethodInfo

_VAR = re.compile(r"\{([a-zA-Z0-9_.]+)(?:=([^}]*))?\}")


@dataclass
class Route:
    method: MethodInfo
    rule: HttpRule
    regex: re.Pattern[str] | None
    # regex group name -> request field path ("uid", "repo.uid")
    groups: dict[str, str]
    specificity: tuple[int, int]
    # Literal text after the last variable: a cheap test before the regex.
    tail: str = ""


@dataclass
class Match:
    route: Route
    params: dict[str, str]


def _prefix(path: str) -> str:
    """The collection prefix: first three segments, without a :verb ('/iam/v2/groups')."""
    parts = path.split("/", 4)
    head = "/".join(parts[:4])
    return head.split(":", 1)[0]


def compile_template(template: str) -> tuple[re.Pattern[str] | None, dict[str, str], tuple[int, int]]:
    groups: dict[str, str] = {}
    out = []
    pos = 0
    greedy_end = False
    for i, m in enumerate(_VAR.finditer(template)):
        out.append(re.escape(template[pos : m.start()]))
        name, pattern = m.group(1), m.group(2) or "*"
        g = f"g{i}"
        groups[g] = name
        out.append(f"(?P<{g}>.*)" if pattern == "**" else f"(?P<{g}>[^/]+)")
        pos = m.end()
        greedy_end = pattern == "**" and m.end() == len(template)
    tail = template[pos:]
    out.append(re.escape(tail))
    if not groups:
        return None, {}, (0, 0)
    literal_after = tail.count("/") + (1 if ":" in tail else 0) + (1 if tail else 0)
    return re.compile("".join(out) + r"\Z"), groups, (1 if greedy_end else 0, -literal_after)


class Router:
    def __init__(self, methods: list[MethodInfo]) -> None:
        self.exact: dict[tuple[str, str], Route] = {}
        self.patterns: dict[tuple[str, str], list[Route]] = {}
        for m in methods:
            for rule in m.rules:
                regex, groups, spec = compile_template(rule.template)
                route = Route(m, rule, regex, groups, spec, rule.template[rule.template.rfind("}") + 1 :])
                if regex is None:
                    self.exact[(rule.verb, rule.template)] = route
                else:
                    self.patterns.setdefault((rule.verb, _prefix(rule.template)), []).append(route)
        for routes in self.patterns.values():
            routes.sort(key=lambda r: r.specificity)

    def match(self, verb: str, path: str) -> Match | None:
        route = self.exact.get((verb, path))
        if route is not None:
            return Match(route, {})
        for route in self.patterns.get((verb, _prefix(path)), ()):
            if not path.endswith(route.tail):
                continue
            assert route.regex is not None
            m = route.regex.match(path)
            if m is not None:
                return Match(route, {route.groups[g]: v for g, v in m.groupdict().items()})
        return None

    def allowed(self, path: str) -> list[str]:
        """Verbs that would match this path (for telling 'wrong method' from 'no such route')."""
        verbs = {"GET", "POST", "PATCH", "PUT", "DELETE"}
        return sorted(v for v in verbs if self.match(v, path) is not None)
