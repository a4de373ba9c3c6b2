"""Unit tests of claim matching: RE2 semantics, anchoring, and the bounds on patterns and claims."""

from __future__ import annotations

import pytest

from platform_api.auth import matching
from platform_api.core import errors
from platform_api.gen.records.iam_v2 import Identity_ClaimMatch as ClaimMatch

AUD = ["https://api.example"]


def claims(**over: object) -> dict[str, object]:
    return {"iss": "https://issuer.example", "sub": "repo:acme/app", "aud": AUD[0], **over}


def cm(**kw: str) -> ClaimMatch:
    base = {"issuer": "https://issuer.example"}
    return ClaimMatch(**{**base, **kw})  # type: ignore[arg-type]


def test_patterns_match_the_whole_value() -> None:
    assert matching.claim_match_accepts(cm(subject_pattern="repo:acme/.*"), claims(), AUD)
    assert not matching.claim_match_accepts(cm(subject_pattern="acme"), claims(), AUD)
    assert not matching.claim_match_accepts(cm(subject_pattern="repo:acme/.*"), claims(sub="xrepo:acme/a"), AUD)


def test_catastrophic_patterns_run_in_linear_time() -> None:
    # Under backtracking this is 2^5000 steps; RE2 answers at once.
    assert not matching.claim_match_accepts(cm(subject_pattern="(a+)+b"), claims(sub="a" * 4000), AUD)
    assert matching.claim_match_accepts(cm(subject_pattern="(a+)+b"), claims(sub="a" * 4000 + "b"), AUD)


def test_claims_longer_than_the_cap_never_match_a_pattern() -> None:
    long_sub = "x" * (matching.MAX_CLAIM + 1)
    assert not matching.claim_match_accepts(cm(subject_pattern="x*"), claims(sub=long_sub), AUD)
    assert matching.claim_match_accepts(cm(subject_pattern="x*"), claims(sub=long_sub[:-1]), AUD)


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?=a)", "(?<!a)b", "x" * (matching.MAX_PATTERN + 1), "(", "a{2000}"])
def test_patterns_re2_refuses_are_invalid_arguments(pattern: str) -> None:
    with pytest.raises(errors.ApiError) as e:
        matching.check_claim_match(cm(subject_pattern=pattern))
    assert e.value.code == errors.INVALID_ARGUMENT


def test_a_stored_pattern_re2_refuses_matches_nothing() -> None:
    assert not matching.claim_match_accepts(cm(subject_pattern="(a)\\1"), claims(sub="aa"), AUD)
