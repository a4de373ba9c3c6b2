"""The clouds' token services as CheckAccountAssociation calls them: the request each takes (a token of our
issuer in it) and what its answer says. No I/O here (iam/account_association_check.py sends the calls).

What each cloud is asked, and the token it gets (iss: our issuer; exp: a few minutes), as the vendor's account
association setups expect them (their published Terraform modules for AWS and GCP; the reference, 6.6, says
only "performs a live credential exchange against the provider"):
- **AWS**: STS `AssumeRoleWithWebIdentity` (query API: a form POST, an XML answer) of the role
  `<prefix>-canary` in the association's account, the role that exists for this check and has no
  permissions; token `aud` `amazon`, `sub` `canary:<group uid>` (what the role's trust policy requires).
- **GCP**: STS token exchange (RFC 8693: a form POST, a JSON answer) at the workload identity pool provider
  `//iam.googleapis.com/projects/<project number>/locations/global/workloadIdentityPools/<prefix>-pool/
  providers/<prefix>-provider`; token `aud` `google` (the provider's allowed audience), `sub`
  `canary:<group uid>`.
- **Azure**: the Microsoft identity platform's client credentials grant with a federated client assertion,
  for each application (client id) of the association in its tenant; token `aud` `api://AzureADTokenExchange`
  (the audience a federated identity credential takes by default), `sub` `<component>:<group uid>` (the
  component is the application's key in `azure.clientIds`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import quote

from platform_api.core import patterns, safe_xml
from platform_api.core.patterns import Pattern

CANARY = "canary"
AWS_AUDIENCE = "amazon"
GCP_AUDIENCE = "google"
AZURE_AUDIENCE = "api://AzureADTokenExchange"
MAX_ANSWER_BYTES = 64 * 1024
MAX_DETAIL = 512
# Any token will do: the check asks for nothing but the exchange itself.
AZURE_SCOPE = "https://management.azure.com/.default"
AWS_SESSION_NAME = "association-check"
# A tenant is a GUID or a domain name: it is a segment of the URL path.
_TENANT = Pattern(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,126}[A-Za-z0-9])?")


@dataclass(frozen=True)
class Call:
    """One request to a token service: a form POST."""

    url: str
    form: dict[str, str]
    accept: str


@dataclass(frozen=True)
class Answer:
    """The service's verdict: whether it issued credentials, and what it said."""

    accepted: bool
    detail: str


def subject(component: str, group: str) -> str:
    return f"{component}:{group}"


def _detail(text: str) -> str:
    """The first line of what a service said, cut short (Azure appends trace ids on further lines)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:MAX_DETAIL]


def aws_call(endpoint: str, account: str, role: str, token: str) -> Call:
    form = {
        "Action": "AssumeRoleWithWebIdentity",
        "Version": "2011-06-15",
        "RoleArn": f"arn:aws:iam::{account}:role/{role}",
        "RoleSessionName": AWS_SESSION_NAME,
        "WebIdentityToken": token,
        "DurationSeconds": "900",  # the least AWS grants
    }
    return Call(endpoint, form, "text/xml")


def aws_answer(status: int, body: bytes) -> Answer:
    """An AssumeRoleWithWebIdentityResponse (accepted: the role assumed) or an ErrorResponse (its code and
    message)."""
    try:
        root = safe_xml.parse(body, MAX_ANSWER_BYTES)
    except safe_xml.Refused:
        return Answer(False, f"AWS STS answered HTTP {status} without a readable XML document")
    name = safe_xml.local_name(root)
    if status == 200 and name == "AssumeRoleWithWebIdentityResponse":
        arn = _path(root, "AssumeRoleWithWebIdentityResult", "AssumedRoleUser", "Arn")
        return Answer(True, _detail(f"assumed {arn}" if arn else "role assumed"))
    if name == "ErrorResponse":
        code, message = _path(root, "Error", "Code"), _path(root, "Error", "Message")
        return Answer(False, _detail(f"{code or 'error'}: {message}"))
    return Answer(False, f"AWS STS answered HTTP {status} with an unexpected <{name[:40]}> document")


def _path(el: ET.Element, *names: str) -> str:
    """The text of the element at `names` below `el` ('' if any is missing)."""
    node: ET.Element | None = el
    for n in names:
        node = safe_xml.child(node, n) if node is not None else None
    return (node.text or "").strip() if node is not None else ""


def gcp_audience(project_number: str, prefix: str) -> str:
    return (
        f"//iam.googleapis.com/projects/{project_number}/locations/global/workloadIdentityPools/{prefix}-pool"
        f"/providers/{prefix}-provider"
    )


def gcp_call(endpoint: str, project_number: str, prefix: str, token: str) -> Call | None:
    """None when the project number is not one (digits)."""
    if not patterns.digits(project_number):
        return None
    form = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "audience": gcp_audience(project_number, prefix),
        "scope": "https://www.googleapis.com/auth/cloud-platform",
        "requested_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "subject_token": token,
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
    }
    return Call(endpoint, form, "application/json")


def azure_call(login_url: str, tenant: str, client_id: str, token: str) -> Call | None:
    """None when the tenant is neither a GUID nor a domain name."""
    if not _TENANT.fullmatch(tenant):
        return None
    form = {
        "grant_type": "client_credentials",
        "client_id": client_id,
        "scope": AZURE_SCOPE,
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": token,
    }
    return Call(f"{login_url.rstrip('/')}/{quote(tenant, safe='')}/oauth2/v2.0/token", form, "application/json")


def oauth_answer(service: str, status: int, body: bytes) -> Answer:
    """An OAuth 2.0 token answer (GCP STS, Azure AD): an `access_token` (accepted), or `error` and
    `error_description` (Azure's starts with its AADSTS code)."""
    try:
        doc = json.loads(body[:MAX_ANSWER_BYTES]) if len(body) <= MAX_ANSWER_BYTES else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        return Answer(False, f"{service} answered HTTP {status} without a JSON object")
    if status == 200 and isinstance(doc.get("access_token"), str) and doc["access_token"]:
        return Answer(True, f"{service} issued an access token")
    error, description = doc.get("error"), doc.get("error_description")
    if isinstance(error, str) and error:
        return Answer(False, _detail(f"{error}: {description}" if isinstance(description, str) else error))
    return Answer(False, f"{service} answered HTTP {status} with neither a token nor an error")


def gcp_answer(status: int, body: bytes) -> Answer:
    return oauth_answer("GCP STS", status, body)


def azure_answer(status: int, body: bytes) -> Answer:
    return oauth_answer("Azure AD", status, body)
