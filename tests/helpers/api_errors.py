"""In-process API errors: the `ApiError` a call raises, and the fields its BadRequest names."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from platform_api.core import errors


def raised(call: Callable[[], object]) -> errors.ApiError:
    """The ApiError `call()` raises (the test fails when it raises none, or another exception)."""
    with pytest.raises(errors.ApiError) as e:
        call()
    return e.value


def violated_fields(e: errors.ApiError) -> list[str]:
    """The fields of the error's BadRequest violations, in order ([] without a BadRequest)."""
    return [v["field"] for d in e.details for v in d.get("fieldViolations", [])]
