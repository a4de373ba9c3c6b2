"""The OpenID Provider metadata of our issuer (/.well-known/openid-configuration)."""

from __future__ import annotations

from typing import Any

from platform_api.core.settings import Settings

JWKS_PATH = "/.well-known/jwks.json"


def document(settings: Settings) -> dict[str, Any]:
    issuer = settings.issuer
    return {
        "issuer": issuer,
        "jwks_uri": issuer + JWKS_PATH,
        "token_endpoint": issuer + "/sts/exchange",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "grant_types_supported": ["urn:ietf:params:oauth:grant-type:token-exchange", "refresh_token"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "nbf", "jti", "act", "scopes", "cap_limit"],
    }
