"""A real upstream OIDC issuer on loopback for tests: discovery document, JWKS, and tokens it signs."""

from __future__ import annotations

import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm


def new_key() -> tuple[Any, dict[str, Any]]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": secrets.token_hex(4), "alg": "RS256", "use": "sig"})
    return key, jwk


class Upstream:
    """Serves /.well-known/openid-configuration and /jwks; counts the requests it gets."""

    def __init__(self) -> None:
        self.key, self.jwk = new_key()
        self.requests: list[str] = []
        self.jwks_uri = ""  # what the discovery document names; default: <issuer>/jwks
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                upstream.requests.append(self.path)
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": upstream.issuer, "jwks_uri": upstream.jwks_uri or upstream.issuer + "/jwks"}
                elif self.path == "/jwks":
                    body = {"keys": [upstream.jwk]}
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def token(self, sub: str, aud: str | list[str], key: Any = None, kid: str | None = None, **claims: Any) -> str:
        now = int(time.time())
        payload = {"iss": self.issuer, "sub": sub, "aud": aud, "iat": now, "nbf": now, "exp": now + 600, **claims}
        return jwt.encode(payload, key or self.key, algorithm="RS256", headers={"kid": kid or self.jwk["kid"]})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
