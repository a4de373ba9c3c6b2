"""Each table has one owner module, the only one whose SQL names it (DESIGN section 2): everyone else calls the
owner's functions. Read from the source: every string that is SQL (a FROM, JOIN, INTO, UPDATE or TABLE
followed by a table of the migrations) and every table name handed to the generic statement builders
(`crud.Resource`, `crud.UniqueName`, `listing.Table`, `storage.get`, `rows.get`, `rows.bodies`) counts as naming
it. A table named at run time (`FROM {table}`) is only for those generic modules, which take it from the owner.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "platform_api"
MIGRATIONS = SRC / "store" / "migrations"

# table -> the module that owns it (path below src/platform_api)
OWNERS = {
    "groups": "iam/groups.py",
    "identities": "iam/identities.py",
    "roles": "iam/roles.py",
    "role_bindings": "iam/queries.py",
    "external_group_role_mappings": "iam/queries.py",
    "identity_providers": "iam/identity_providers.py",
    "scim_credentials": "iam/identity_providers.py",
    "account_associations": "iam/account_associations.py",
    "group_invites": "iam/group_invites.py",
    "terms_acceptances": "iam/terms.py",
    "group_domains": "signin/domains.py",
    "group_access_requests": "signin/domains.py",
    "refresh_tokens": "signin/sts.py",
    "login_spent_states": "signin/login_state.py",
    "headless_sessions": "signin/login.py",
    "repos": "registry/queries.py",
    "tags": "registry/queries.py",
    "tag_history": "registry/queries.py",
    "vuln_reports": "registry/queries.py",
    "images": "registry/images.py",
    "sboms": "registry/sboms.py",
    "sbom_packages": "registry/sboms.py",
    "eol_cycles": "registry/eol.py",
    "events": "outbox/queries.py",
    "subscriptions": "outbox/queries.py",
    "deliveries": "outbox/queries.py",
    "dispatcher_lease": "events/dispatcher.py",
    "advisories": "vulnerabilities/advisory_queries.py",
    "advisory_aliases": "vulnerabilities/advisory_queries.py",
    "advisory_events": "vulnerabilities/advisory_queries.py",
    "vulnerability_metadata": "vulnerabilities/metadata.py",
    "vulnerability_aliases": "vulnerabilities/metadata.py",
    "advisory_documents": "advisory/documents.py",
    "advisory_document_entries": "advisory/documents.py",
    "advisory_document_entry_cves": "advisory/documents.py",
    "library_artifacts": "libraries/queries.py",
    "library_versions": "libraries/queries.py",
    "child_counts": "service/listing.py",
    "authz_version": "auth/authz.py",
    "signing_keys": "auth/keys.py",
    "service_secrets": "service/runtime.py",
}
# They build statements from a table name their caller (the owner) gives them.
GENERIC = {"service/crud.py", "service/listing.py", "service/storage.py", "store/rows.py", "store/migrate.py"}
BUILDERS = {"Resource", "UniqueName", "Table", "get", "bodies"}
_SQL = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(\w+)")  # our SQL keywords are upper case
_AT_RUN_TIME = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+\{")


def _tables() -> set[str]:
    """The tables the migrations leave (created and not dropped since)."""
    created: set[str] = set()
    dropped: set[str] = set()
    for path in MIGRATIONS.glob("*/*.sql"):
        text = path.read_text()
        created |= set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", text))
        dropped |= set(re.findall(r"DROP TABLE (?:IF EXISTS )?(\w+)", text))
    return created - dropped


def _sources() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "gen" not in p.relative_to(SRC).parts)


def _documented(node: ast.AST) -> bool:
    if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) or not node.body:
        return False
    first = node.body[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _named(path: Path, tables: set[str]) -> list[tuple[int, str]]:
    """(line, table) of each table the module names in SQL or hands to a statement builder; (line, '{')
    for SQL naming a table at run time."""
    out: list[tuple[int, str]] = []
    tree = ast.parse(path.read_text())
    docstrings = {id(n.body[0].value) for n in ast.walk(tree) if _documented(n)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out += [(node.lineno, t) for t in _SQL.findall(node.value) if t in tables]
        elif isinstance(node, ast.JoinedStr):  # an f-string: its parts, with {} where values go
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            if _AT_RUN_TIME.search(text):
                out.append((node.lineno, "{"))
        elif isinstance(node, ast.Call) and node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = [a for a in node.args if isinstance(a, ast.Constant) and a.value in tables]
            if name in BUILDERS:
                out += [(node.lineno, str(a.value)) for a in args]
    return out


def test_every_table_has_one_owner() -> None:
    assert set(OWNERS) == _tables()


def test_only_the_owner_names_a_table() -> None:
    tables = _tables()
    wrong: list[str] = []
    for path in _sources():
        here = str(path.relative_to(SRC))
        for line, table in _named(path, tables):
            if table == "{":
                if here not in GENERIC:
                    wrong.append(f"{here}:{line} names a table at run time (only {', '.join(sorted(GENERIC))} may)")
            elif OWNERS[table] != here:
                wrong.append(f"{here}:{line} names {table} (owner: {OWNERS[table]})")
    assert wrong == [], "\n".join(wrong)
