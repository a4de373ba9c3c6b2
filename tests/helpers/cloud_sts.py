"""Fakes of the three clouds' token services on loopback, for the account association check: AWS STS
(AssumeRoleWithWebIdentity), GCP STS (token exchange) and Azure AD (client credentials with a federated client
assertion), one HTTP server with a path prefix each (`aws_url`, `gcp_url`, `azure_url`).

Each checks what the real one checks before it issues anything: the request's shape as the real API takes it
(a form; GCP also JSON, in camelCase or snake_case), the role / workload identity pool provider / tenant and
application named, the token's issuer as registered there, its audience and subject, its time claims, and
its signature against the issuer's JWKS, fetched through the issuer's discovery document. It answers as the
real one does: AWS an XML AssumeRoleWithWebIdentityResponse or ErrorResponse; GCP a JSON token or OAuth error;
Azure a JSON token or an AADSTS error. Every request is kept (`calls`), with the claims of its token.

The issuers' documents are fetched where `reach` says (issuer URL -> base URL): a test server's issuer is its
public URL, which need not be the address it listens on.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit
from xml.sax.saxutils import escape

import httpx
import jwt

AWS_NS = "https://sts.amazonaws.com/doc/2011-06-15/"
AWS_NO_KEY = (
    "Couldn't retrieve verification key from your identity provider, please reference "
    "AssumeRoleWithWebIdentity documentation for requirements"
)
AWS_NOT_VALIDATED = (
    "The web identity token that was passed could not be validated by AWS. Get a new identity token "
    "from the identity provider and then retry the request."
)
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
GCP_PROVIDER = (
    "//iam.googleapis.com/projects/{number}/locations/global/workloadIdentityPools/{pool}/providers/{provider}"
)


class Refusal(Exception):
    """A token a fake does not accept: `kind` (malformed, keys, signature, expired, issuer, audience) and text."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Call:
    cloud: str
    path: str
    content_type: str
    form: dict[str, str]
    claims: dict[str, Any] = field(default_factory=dict)  # of the token sent, as read (before any check)


@dataclass
class AwsRole:
    provider: str  # the OIDC provider's URL without scheme, as AWS names it in conditions ("<host>/<path>")
    subjects: set[str]
    audience: str


class CloudFakes:
    def __init__(self) -> None:
        self.reach: dict[str, str] = {}
        self.calls: list[Call] = []
        # AWS: (account, provider URL without scheme) -> its client ids (audiences); role ARN -> trust policy.
        self.aws_providers: dict[tuple[str, str], list[str]] = {}
        self.aws_roles: dict[str, AwsRole] = {}
        # GCP: provider resource name -> (issuer, allowed audiences, subjects the attribute condition allows or None).
        self.gcp_providers: dict[str, tuple[str, list[str], set[str] | None]] = {}
        # Azure: tenant -> client id -> federated identity credentials (issuer, subject, audiences).
        self.azure_apps: dict[str, dict[str, list[tuple[str, str, list[str]]]]] = {}
        # Azure tenants whose token endpoint never answers in time.
        self.hanging_tenants: set[str] = set()
        fakes = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                kind = (self.headers.get("content-type") or "").split(";")[0].strip()
                path = urlsplit(self.path).path
                status, ctype, answer = fakes.serve(path, kind, body)
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    # ----------------------------------------------------------------------------------------- configuration

    @property
    def aws_url(self) -> str:
        return self.base + "/aws/"

    @property
    def gcp_url(self) -> str:
        return self.base + "/gcp/v1/token"

    @property
    def azure_url(self) -> str:
        return self.base + "/azure"

    def flags(self) -> list[str]:
        """`serve` flags pointing a server at these fakes."""
        return ["--aws-sts-url", self.aws_url, "--gcp-sts-url", self.gcp_url, "--azure-login-url", self.azure_url]

    def aws_role(self, account: str, role: str, issuer: str, subjects: set[str], audience: str = "amazon") -> str:
        """An IAM OIDC provider for `issuer` in `account` (client id `audience`) and a role it may assume for
        these subjects; the role's ARN."""
        provider = issuer.split("://", 1)[1]
        self.aws_providers.setdefault((account, provider), []).append(audience)
        arn = f"arn:aws:iam::{account}:role/{role}"
        self.aws_roles[arn] = AwsRole(provider, subjects, audience)
        return arn

    def gcp_provider(self, number: str, pool: str, provider: str, issuer: str, audiences: list[str],
                     subjects: set[str] | None = None) -> str:  # fmt: skip
        name = GCP_PROVIDER.format(number=number, pool=pool, provider=provider)
        self.gcp_providers[name] = (issuer, audiences, subjects)
        return name

    def azure_app(self, tenant: str, client_id: str, issuer: str, subject: str,
                  audiences: tuple[str, ...] = ("api://AzureADTokenExchange",)) -> None:  # fmt: skip
        self.azure_apps.setdefault(tenant, {}).setdefault(client_id, []).append((issuer, subject, list(audiences)))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ----------------------------------------------------------------------------------------- tokens

    def verify(self, token: str, audience: str | None) -> dict[str, Any]:
        """The token's claims once its signature (by the issuer's JWKS), times and (when given) audience hold."""
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise Refusal("malformed", "not a JWT") from None
        iss = claims.get("iss")
        base = self.reach.get(iss) if isinstance(iss, str) else None
        if base is None:
            raise Refusal("keys", f"cannot reach issuer {iss!r}")
        try:
            config = httpx.get(base + "/.well-known/openid-configuration", timeout=5).json()
            assert config["issuer"] == iss, config
            keys = httpx.get(base + config["jwks_uri"].removeprefix(iss), timeout=5).json()
            key = next(k for k in jwt.PyJWKSet.from_dict(keys).keys if k.key_id == header.get("kid"))
        except (httpx.HTTPError, ValueError, KeyError, AssertionError, StopIteration, jwt.PyJWTError):
            raise Refusal("keys", f"no key {header.get('kid')!r} from the issuer's JWKS") from None
        try:
            return dict(jwt.decode(token, key, algorithms=["RS256"], audience=audience, issuer=iss,
                                   options={"require": ["exp", "iat", "iss", "sub", "aud"],
                                            "verify_aud": audience is not None}))  # fmt: skip
        except jwt.ExpiredSignatureError:
            raise Refusal("expired", "the token has expired") from None
        except jwt.InvalidAudienceError:
            raise Refusal("audience", f"audience {claims.get('aud')!r}") from None
        except jwt.InvalidSignatureError:
            raise Refusal("signature", "bad signature") from None
        except jwt.PyJWTError as e:
            raise Refusal("malformed", str(e)) from None

    def serve(self, path: str, kind: str, body: bytes) -> tuple[int, str, bytes]:
        text = body.decode("utf-8", "replace")
        form = dict(parse_qsl(text, keep_blank_values=True)) if kind == "application/x-www-form-urlencoded" else {}
        if path == "/aws/":
            return self._aws(kind, form)
        if path == "/gcp/v1/token":
            return self._gcp(kind, form, text)
        parts = path.split("/")
        if len(parts) == 6 and parts[1] == "azure" and parts[3:] == ["oauth2", "v2.0", "token"]:
            return self._azure(unquote(parts[2]), kind, form)
        return 404, "text/plain", b"Not Found"

    def _record(self, cloud: str, path: str, kind: str, form: dict[str, str], token: str) -> None:
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            claims = {}
        self.calls.append(Call(cloud, path, kind, form, claims))

    # ----------------------------------------------------------------------------------------- AWS STS

    def _aws(self, kind: str, form: dict[str, str]) -> tuple[int, str, bytes]:
        self._record("aws", "/aws/", kind, form, form.get("WebIdentityToken", ""))
        if kind != "application/x-www-form-urlencoded":
            return _aws_error(400, "InvalidAction", "The action or operation requested is invalid.")
        if form.get("Action") != "AssumeRoleWithWebIdentity" or form.get("Version") != "2011-06-15":
            return _aws_error(400, "InvalidAction", f"Could not find operation {form.get('Action')} for version "
                              f"{form.get('Version')}")  # fmt: skip
        for name in ("RoleArn", "RoleSessionName", "WebIdentityToken"):
            if not form.get(name):
                field = name[0].lower() + name[1:]
                return _aws_error(400, "ValidationError", f"1 validation error detected: Value null at '{field}' "
                                  "failed to satisfy constraint: Member must not be null")  # fmt: skip
        session = form["RoleSessionName"]
        if not (2 <= len(session) <= 64 and all(c.isalnum() or c in "_+=,.@-" for c in session)):
            return _aws_error(400, "ValidationError", "Value at 'roleSessionName' failed to satisfy constraint")
        if not 900 <= int(form.get("DurationSeconds") or 3600) <= 43200:
            return _aws_error(400, "ValidationError", "Value at 'durationSeconds' failed to satisfy constraint")
        arn, token = form["RoleArn"], form["WebIdentityToken"]
        account = arn.split(":")[4] if arn.count(":") == 5 else ""
        try:
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return _aws_error(400, "InvalidIdentityToken", "The ID Token provided is not a valid JWT. (You may see "
                              "this error if you sent an Access Token)")  # fmt: skip
        iss = str(unverified.get("iss", ""))
        provider = iss.split("://", 1)[-1]
        audiences = self.aws_providers.get((account, provider))
        if audiences is None:
            return _aws_error(400, "InvalidIdentityToken", f"No OpenIDConnect provider found in your account for {iss}")
        if unverified.get("aud") not in audiences:
            return _aws_error(400, "InvalidIdentityToken", "Incorrect token audience")
        try:
            claims = self.verify(token, str(unverified["aud"]))
        except Refusal as e:
            if e.kind == "expired":
                return _aws_error(400, "ExpiredTokenException", "Token expired: current date/time must be before "
                                  "the expiration date/time")  # fmt: skip
            if e.kind == "keys":
                return _aws_error(400, "InvalidIdentityToken", AWS_NO_KEY)
            return _aws_error(400, "InvalidIdentityToken", AWS_NOT_VALIDATED)
        role = self.aws_roles.get(arn)
        if role is None or role.provider != provider or claims["sub"] not in role.subjects or \
                claims["aud"] != role.audience:  # fmt: skip
            return _aws_error(403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        name = arn.rsplit("/", 1)[1]
        result = (
            f"<SubjectFromWebIdentityToken>{escape(claims['sub'])}</SubjectFromWebIdentityToken>"
            f"<Audience>{escape(claims['aud'])}</Audience>"
            f"<AssumedRoleUser><Arn>arn:aws:sts::{account}:assumed-role/{name}/{escape(session)}</Arn>"
            f"<AssumedRoleId>AROA{secrets.token_hex(8).upper()}:{escape(session)}</AssumedRoleId></AssumedRoleUser>"
            f"<Credentials><SessionToken>{secrets.token_hex(32)}</SessionToken>"
            f"<SecretAccessKey>{secrets.token_hex(20)}</SecretAccessKey>"
            f"<Expiration>{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() + 900))}</Expiration>"
            f"<AccessKeyId>ASIA{secrets.token_hex(8).upper()}</AccessKeyId></Credentials>"
            f"<Provider>arn:aws:iam::{account}:oidc-provider/{escape(provider)}</Provider>"
        )
        doc = (f'<AssumeRoleWithWebIdentityResponse xmlns="{AWS_NS}"><AssumeRoleWithWebIdentityResult>{result}'
               f"</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>{secrets.token_hex(8)}</RequestId>"
               "</ResponseMetadata></AssumeRoleWithWebIdentityResponse>")  # fmt: skip
        return 200, "text/xml", doc.encode()

    # ----------------------------------------------------------------------------------------- GCP STS

    def _gcp(self, kind: str, form: dict[str, str], text: str) -> tuple[int, str, bytes]:
        if kind == "application/json":
            try:
                doc = json.loads(text)
            except ValueError:
                return _oauth_error(400, "invalid_request", "Invalid JSON payload received.")
            # Google APIs take a message's JSON in lowerCamelCase or with its proto field names.
            camel = {"grantType": "grant_type", "requestedTokenType": "requested_token_type",
                     "subjectToken": "subject_token", "subjectTokenType": "subject_token_type"}  # fmt: skip
            form = {camel.get(k, k): str(v) for k, v in doc.items()} if isinstance(doc, dict) else {}
        self._record("gcp", "/gcp/v1/token", kind, form, form.get("subject_token", ""))
        if kind not in ("application/json", "application/x-www-form-urlencoded"):
            return _oauth_error(400, "invalid_request", "Invalid Content-Type.")
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
            return _oauth_error(400, "invalid_grant", 'Invalid value for "grant_type".')
        if form.get("requested_token_type") != "urn:ietf:params:oauth:token-type:access_token":
            return _oauth_error(400, "invalid_request", 'Invalid value for "requested_token_type".')
        if form.get("subject_token_type") not in ("urn:ietf:params:oauth:token-type:jwt",
                                                  "urn:ietf:params:oauth:token-type:id_token"):  # fmt: skip
            return _oauth_error(400, "invalid_request", 'Invalid value for "subject_token_type".')
        if not form.get("subject_token"):
            return _oauth_error(400, "invalid_request", 'Missing required parameter: "subject_token".')
        provider = self.gcp_providers.get(form.get("audience", ""))
        if provider is None:
            return _oauth_error(400, "invalid_target", 'The target service indicated by the "audience" parameters is '
                                "invalid. This might either be because the pool or provider is disabled or deleted or "
                                "because it doesn't exist.")  # fmt: skip
        issuer, audiences, subjects = provider
        try:
            unverified = jwt.decode(form["subject_token"], options={"verify_signature": False})
            if unverified.get("iss") != issuer:
                raise Refusal("issuer", "")
            if unverified.get("aud") not in audiences:
                raise Refusal("audience", "")
            claims = self.verify(form["subject_token"], str(unverified["aud"]))
        except jwt.PyJWTError:
            return _oauth_error(400, "invalid_grant", "Unable to parse the ID Token.")
        except Refusal as e:
            texts = {
                "issuer": f"The issuer in ID Token {unverified.get('iss')} does not match the expected ones: {issuer}.",
                "audience": f"The audience in ID Token [{unverified.get('aud')}] does not match the expected audience.",
                "expired": "ID Token has expired.",
                "keys": f"Unable to fetch the public keys of the issuer {issuer}.",
            }
            return _oauth_error(400, "invalid_grant", texts.get(e.kind, "Invalid JWT signature."))
        if subjects is not None and claims["sub"] not in subjects:
            return _oauth_error(400, "invalid_grant", "The given credential is rejected by the attribute condition.")
        token = {"access_token": "ya29." + secrets.token_urlsafe(32), "token_type": "Bearer", "expires_in": 3599,
                 "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}  # fmt: skip
        return 200, "application/json", json.dumps(token).encode()

    # ----------------------------------------------------------------------------------------- Azure AD

    def _azure(self, tenant: str, kind: str, form: dict[str, str]) -> tuple[int, str, bytes]:
        self._record("azure", f"/azure/{tenant}/oauth2/v2.0/token", kind, form, form.get("client_assertion", ""))
        if tenant in self.hanging_tenants:
            time.sleep(30)
        apps = self.azure_apps.get(tenant)
        if apps is None:
            return _aad_error(400, "invalid_request", 90002, f"Tenant '{tenant}' not found. Check to make sure you "
                              "have the correct tenant ID and are signing into the correct cloud.")  # fmt: skip
        if kind != "application/x-www-form-urlencoded":
            return _aad_error(400, "invalid_request", 900144, "The request body must contain the following parameter: "
                              "'grant_type'.")  # fmt: skip
        if form.get("grant_type") != "client_credentials":
            return _aad_error(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.")
        if not form.get("scope", "").endswith("/.default"):
            return _aad_error(400, "invalid_scope", 1002012, f"The provided value for scope {form.get('scope')} is not "
                              "valid. Client credential flows must have a scope value with /.default suffixed to the "
                              "resource identifier (application ID URI).")  # fmt: skip
        client = form.get("client_id", "")
        if client not in apps:
            return _aad_error(400, "unauthorized_client", 700016, f"Application with identifier '{client}' was not "
                              f"found in the directory '{tenant}'.")  # fmt: skip
        if form.get("client_assertion_type") != JWT_BEARER or not form.get("client_assertion"):
            return _aad_error(401, "invalid_client", 7000218, "The request body must contain the following parameter: "
                              "'client_assertion' or 'client_secret'.")  # fmt: skip
        try:
            unverified = jwt.decode(form["client_assertion"], options={"verify_signature": False})
        except jwt.PyJWTError:
            return _aad_error(401, "invalid_client", 50027, "JWT token is invalid or malformed.")
        iss, sub, aud = unverified.get("iss"), unverified.get("sub"), unverified.get("aud")
        matching = [c for c in apps[client] if c[0] == iss and c[1] == sub]
        if not matching:
            return _aad_error(400, "invalid_client", 70021, "No matching federated identity record found for "
                              f"presented assertion. Assertion Issuer: '{iss}'. Assertion Subject: '{sub}'. "
                              f"Assertion Audience: '{aud}'.")  # fmt: skip
        if not any(aud in c[2] for c in matching):
            return _aad_error(400, "invalid_client", 700212, "No matching federated identity record found for "
                              f"presented assertion audience '{aud}'.")  # fmt: skip
        try:
            self.verify(form["client_assertion"], str(aud))
        except Refusal as e:
            if e.kind == "expired":
                return _aad_error(400, "invalid_client", 700024, "Client assertion is not within its valid time range.")
            return _aad_error(401, "invalid_client", 50013, "Assertion failed signature validation.")
        token = {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
                 "access_token": "eyJ0eXAiOiJKV1Qi." + secrets.token_urlsafe(32)}  # fmt: skip
        return 200, "application/json", json.dumps(token).encode()


def _aws_error(status: int, code: str, message: str) -> tuple[int, str, bytes]:
    kind = "Receiver" if status >= 500 else "Sender"
    doc = (f'<ErrorResponse xmlns="{AWS_NS}"><Error><Type>{kind}</Type><Code>{code}</Code>'
           f"<Message>{escape(message)}</Message></Error>"
           f"<RequestId>{secrets.token_hex(8)}</RequestId></ErrorResponse>")  # fmt: skip
    return status, "text/xml", doc.encode()


def _oauth_error(status: int, error: str, description: str) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps({"error": error, "error_description": description}).encode()


def _aad_error(status: int, error: str, code: int, text: str) -> tuple[int, str, bytes]:
    trace = secrets.token_hex(16)
    now = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())
    body = {"error": error, "error_description": f"AADSTS{code}: {text}\r\nTrace ID: {trace}\r\nCorrelation ID: "
            f"{secrets.token_hex(16)}\r\nTimestamp: {now}", "error_codes": [code], "timestamp": now,
            "trace_id": trace, "error_uri": f"https://login.microsoftonline.com/error?code={code}"}  # fmt: skip
    return status, "application/json", json.dumps(body).encode()
