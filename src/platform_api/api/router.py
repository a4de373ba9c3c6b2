"""HTTP routing from the google.api.http templates, compiled once.

UIDPs go into paths raw, slashes included, so `{uid=**}` is greedy. Exact paths are a dict lookup;
the others are tried per collection prefix, most specific first: `:verb` routes and routes with
literal segments after their last variable (`/readme`, `/digests/{digest}/size`) before routes that
end in a greedy variable.
"""

from __future__ import annotations

from dataclasses import dataclass

from platform_api.service.methods import HttpRule, MethodInfo


@dataclass(frozen=True)
class Template:
    """A path template as literal text and variables: `lead` (literals and one-segment variables before the
    greedy variable, or all of them when there is none), the greedy `{x=**}` variable's field if any, and
    `trail` (what follows it). Variables are (field path, None); literals are (None, text).

    Matching is deterministic, without regular expressions: a one-segment variable is the text up to the
    next `/` (left of the greedy variable) or back to the previous `/` (right of it), so every literal
    before a variable ends with `/` and the greedy variable, if any, takes what lies between. The same
    answers as the regular expression `[^/]+` / `.*` (no line break) / literals, anchored at both ends.
    """

    lead: tuple[tuple[str | None, str], ...]
    greedy: str | None
    trail: tuple[tuple[str | None, str], ...]

    def parts(self) -> list[tuple[str | None, str]]:
        """Literals and variables in template order (the greedy variable as (field, ""))."""
        return [*self.lead, *([(self.greedy, "")] if self.greedy is not None else []), *self.trail]

    def match(self, path: str) -> dict[str, str] | None:
        params: dict[str, str] = {}
        lo = 0
        hi = len(path)
        if self.greedy is None:
            return params if self._from_right(path, self.lead, lo, hi, params) == lo else None
        for name, text in self.lead:
            if name is None:
                if not path.startswith(text, lo):
                    return None
                lo += len(text)
            else:
                end = path.find("/", lo)
                if end <= lo:
                    return None
                params[name] = path[lo:end]
                lo = end
        start = self._from_right(path, self.trail, lo, hi, params)
        if start is None:
            return None
        middle = path[lo:start]
        if "\n" in middle:
            return None
        params[self.greedy] = middle
        return params

    @staticmethod
    def _from_right(
        path: str, parts: tuple[tuple[str | None, str], ...], lo: int, hi: int, params: dict[str, str]
    ) -> int | None:
        """Match `parts` ending at `hi`, not before `lo`; where they begin, or None."""
        for name, text in reversed(parts):
            if name is None:
                if hi - len(text) < lo or not path.startswith(text, hi - len(text)):
                    return None
                hi -= len(text)
            else:
                begin = max(path.rfind("/", lo, hi) + 1, lo)
                if begin >= hi:
                    return None
                params[name] = path[begin:hi]
                hi = begin
        return hi


def parse_template(template: str) -> Template:
    """The literals and variables of an http rule's path template (`{field}`, `{field=*}`, `{field=**}`)."""
    parts: list[tuple[str | None, str]] = []
    greedy_at = -1
    pos = 0
    while True:
        open_ = template.find("{", pos)
        if open_ < 0:
            break
        close = template.index("}", open_)
        if open_ > pos:
            parts.append((None, template[pos:open_]))
        name, _, pattern = template[open_ + 1 : close].partition("=")
        if pattern not in ("", "*", "**"):
            raise ValueError(f"{template}: unsupported variable pattern {pattern!r}")
        if not parts or parts[-1][0] is not None or not parts[-1][1].endswith("/"):
            raise ValueError(f"{template}: a variable must start a path segment")
        if pattern == "**":
            if greedy_at >= 0:
                raise ValueError(f"{template}: at most one greedy variable")
            greedy_at = len(parts)
        parts.append((name, ""))
        pos = close + 1
    if pos < len(template):
        parts.append((None, template[pos:]))
    if greedy_at < 0:
        return Template(tuple(parts), None, ())
    lead = tuple(parts[:greedy_at])
    for i, (var, _) in enumerate(lead):
        follower = lead[i + 1][1] if i + 1 < len(lead) else "/"
        if var is not None and not follower.startswith("/"):
            raise ValueError(f"{template}: a variable before the greedy one must end its segment")
    greedy = parts[greedy_at][0]
    assert greedy is not None
    return Template(lead, greedy, tuple(parts[greedy_at + 1 :]))


@dataclass
class Route:
    method: MethodInfo
    rule: HttpRule
    template: Template
    specificity: tuple[int, int, int]
    # Literal text after the last variable: a cheap test before matching.
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


def specificity(template: Template) -> tuple[int, int, int]:
    """Sort key among the routes of one prefix: routes ending in a greedy variable last; the more literal
    segments (or a :verb) after the last variable, the earlier; then the longer literal text before it
    (`/iam/v1/rolebindings/batch/{parent=**}` before `/iam/v1/rolebindings/{parent=**}`)."""
    tail = template.trail[-1][1] if template.trail and template.trail[-1][0] is None else ""
    if template.greedy is None:
        tail = template.lead[-1][1] if template.lead[-1][0] is None else ""
    greedy_end = template.greedy is not None and not template.trail
    literal_after = tail.count("/") + (1 if ":" in tail else 0) + (1 if tail else 0)
    lead = sum(len(text) for name, text in template.lead if name is None)
    return (1 if greedy_end else 0, -literal_after, -lead)


class Router:
    def __init__(self, methods: list[MethodInfo]) -> None:
        self.exact: dict[tuple[str, str], Route] = {}
        self.patterns: dict[tuple[str, str], list[Route]] = {}
        for m in methods:
            for rule in m.rules:
                template = parse_template(rule.template)
                route = Route(m, rule, template, specificity(template), rule.template[rule.template.rfind("}") + 1 :])
                if template.greedy is None and len(template.lead) == 1:
                    self.exact[(rule.verb, rule.template)] = route
                else:
                    self.patterns.setdefault((rule.verb, _prefix(rule.template)), []).append(route)
        for routes in self.patterns.values():
            routes.sort(key=lambda r: r.specificity)

    def routes(self) -> list[Route]:
        """Every route, one per HTTP rule of the contract (`platform-api routes` lists them)."""
        return [*self.exact.values(), *(r for routes in self.patterns.values() for r in routes)]

    def match(self, verb: str, path: str) -> Match | None:
        route = self.exact.get((verb, path))
        if route is not None:
            return Match(route, {})
        for route in self.patterns.get((verb, _prefix(path)), ()):
            if not path.endswith(route.tail):
                continue
            params = route.template.match(path)
            if params is not None:
                return Match(route, params)
        return None

    def allowed(self, path: str) -> list[str]:
        """Verbs that would match this path (for telling 'wrong method' from 'no such route')."""
        verbs = {"GET", "POST", "PATCH", "PUT", "DELETE"}
        return sorted(v for v in verbs if self.match(v, path) is not None)
