"""OpenAPI 3 document generated from the contract (filled in by the OpenAPI work)."""

from __future__ import annotations

from typing import Any

from platform_api.api.schema import MethodInfo


def document(methods: list[MethodInfo], server_url: str) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for m in methods:
        for r in m.rules:
            paths.setdefault(r.template, {})[r.verb.lower()] = {"operationId": f"{m.service}.{m.name}"}
    return {"openapi": "3.0.3", "info": {"title": "Platform API v2", "version": "2"}, "paths": paths}
