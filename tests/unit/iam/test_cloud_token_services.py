"""The token services' requests and answers as CheckAccountAssociation reads them (iam/cloud_token_services.py),
and the checker's settings: what a real service's answer says, what a hostile one cannot make us do (a
document type declaration, an endless body, a tenant that is a path), and endpoints refused at start."""

from __future__ import annotations

import json

import pytest

from platform_api.core.settings import InvalidSetting, Settings
from platform_api.iam import cloud_token_services as services
from platform_api.iam.account_association_check import Checker

NS = 'xmlns="https://sts.amazonaws.com/doc/2011-06-15/"'


def test_aws_answers() -> None:
    ok = (f"<AssumeRoleWithWebIdentityResponse {NS}><AssumeRoleWithWebIdentityResult><AssumedRoleUser><Arn>"
          "arn:aws:sts::123456789012:assumed-role/r/s</Arn></AssumedRoleUser></AssumeRoleWithWebIdentityResult>"
          "</AssumeRoleWithWebIdentityResponse>").encode()  # fmt: skip
    assert services.aws_answer(200, ok) == services.Answer(True, "assumed arn:aws:sts::123456789012:assumed-role/r/s")
    denied = (f"<ErrorResponse {NS}><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized"
              "</Message></Error></ErrorResponse>").encode()  # fmt: skip
    assert services.aws_answer(403, denied) == services.Answer(False, "AccessDenied: Not authorized")
    # A success document with an error status, another document, no XML, a DOCTYPE (entities) are all refusals.
    assert not services.aws_answer(500, ok).accepted
    assert services.aws_answer(200, b"<Other/>") == services.Answer(
        False, "AWS STS answered HTTP 200 with an unexpected <Other> document"
    )
    assert services.aws_answer(502, b"<html") == services.Answer(
        False, "AWS STS answered HTTP 502 without a readable XML document"
    )
    bomb = b'<!DOCTYPE x [<!ENTITY a "aaaa">]><ErrorResponse><Error><Code>&a;</Code></Error></ErrorResponse>'
    assert services.aws_answer(400, bomb).detail.endswith("without a readable XML document")
    huge = b"<ErrorResponse>" + b" " * services.MAX_ANSWER_BYTES + b"</ErrorResponse>"
    assert not services.aws_answer(400, huge).accepted


def test_oauth_answers() -> None:
    token = json.dumps({"access_token": "t", "token_type": "Bearer"}).encode()
    assert services.gcp_answer(200, token) == services.Answer(True, "GCP STS issued an access token")
    assert not services.gcp_answer(400, token).accepted  # a token with an error status is no success
    aad = {"error": "invalid_client", "error_description": "AADSTS70021: No match.\r\nTrace ID: 1\r\nTimestamp: 2"}
    assert services.azure_answer(401, json.dumps(aad).encode()) == services.Answer(
        False, "invalid_client: AADSTS70021: No match."
    )  # the first line only
    assert services.gcp_answer(400, b'{"error": "x", "error_description": "' + b"d" * 2000 + b'"}').detail == (
        "x: " + "d" * (services.MAX_DETAIL - 3))  # fmt: skip
    assert services.gcp_answer(503, b"<html>") == services.Answer(
        False, "GCP STS answered HTTP 503 without a JSON object"
    )
    assert services.gcp_answer(200, b"{}").detail == "GCP STS answered HTTP 200 with neither a token nor an error"


def test_requests() -> None:
    aws = services.aws_call("https://sts.amazonaws.com/", "123456789012", "platform-api-canary", "T")
    assert aws.form["RoleArn"] == "arn:aws:iam::123456789012:role/platform-api-canary" and aws.accept == "text/xml"
    gcp = services.gcp_call("https://sts.googleapis.com/v1/token", "42", "chainguard", "T")
    assert gcp is not None and gcp.form["audience"] == (
        "//iam.googleapis.com/projects/42/locations/global/workloadIdentityPools/chainguard-pool/providers/"
        "chainguard-provider")  # fmt: skip
    assert services.gcp_call("https://sts.googleapis.com/v1/token", "42/../x", "p", "T") is None
    azure = services.azure_call("https://login.microsoftonline.com/", "contoso.onmicrosoft.com", "c", "T")
    assert (
        azure is not None and azure.url == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
    )
    for tenant in ("../common", "a/b", "", "x?y", "-a", "a" * 129):
        assert services.azure_call("https://login.microsoftonline.com", tenant, "c", "T") is None, tenant


@pytest.mark.parametrize(
    ("setting", "value"),
    [("aws_sts_url", "sts.amazonaws.com"), ("gcp_sts_url", "http://sts.googleapis.com/v1/token"),
     ("azure_login_url", "http://127.0.0.1:9"), ("association_check_timeout", 0.0)],
)  # fmt: skip
def test_checker_settings_refused(setting: str, value: object) -> None:
    """An endpoint must be https (http on loopback only with --insecure-allow-loopback); a timeout above 0."""
    with pytest.raises(InvalidSetting):
        Checker(Settings(**{setting: value}))  # type: ignore[arg-type]


def test_checker_name_prefix() -> None:
    assert Checker(Settings()).prefix == "platform-api"
    assert Checker(Settings(compat_strings="reference")).prefix == "chainguard"
    assert Checker(Settings(association_name_prefix="acme")).prefix == "acme"
    assert Checker(Settings(azure_login_url="http://127.0.0.1:9", insecure_allow_loopback=True)).timeout == 5.0
