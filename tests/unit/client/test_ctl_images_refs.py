"""`platformctl registry images`: image references and sizes as a person reads them."""

from __future__ import annotations

import pytest

from platform_api.ctl.common import USAGE, CtlError
from platform_api.ctl.images import human, split_image

DIGEST = "sha256:" + "a" * 64


def test_an_image_is_a_repo_with_a_digest_or_a_tag() -> None:
    assert split_image(f"my-org/nginx@{DIGEST}") == ("my-org/nginx", DIGEST, "")
    assert split_image("my-org/team/nginx:1.25") == ("my-org/team/nginx", "", "1.25")
    for bad in ("my-org/nginx", "my-org/nginx:", ":latest", "my-org/nginx@", "@" + DIGEST, "my-org/nginx@md5:x"):
        with pytest.raises(CtlError) as e:
            split_image(bad)
        assert e.value.code == USAGE, bad


def test_sizes_in_binary_units() -> None:
    assert [human(n) for n in (0, 1023, 1536, 5 << 20, 3 << 30, 7 << 40)] == [
        "0 B", "1023 B", "1.5 KiB", "5.0 MiB", "3.0 GiB", "7.0 TiB",
    ]  # fmt: skip
