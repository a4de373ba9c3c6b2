"""Unit tests of the pure shared rules of `core`: uid paths, page tokens, field masks, time, the LRU."""

from __future__ import annotations

import base64

import pytest

from platform_api.core import clock, errors, fieldmask, pagetoken, uidp
from platform_api.core.lru import LRU
from platform_api.gen.records.registry_v2 import Repo

ORG = "a" * 40
CHILD = ORG + "/" + "b" * 16


class TestUidp:
    def test_valid(self) -> None:
        assert uidp.valid(ORG) and uidp.valid(CHILD) and uidp.valid(CHILD + "/" + "c" * 16)
        for bad in ["", "A" * 40, "a" * 39, ORG + "/", ORG + "/" + "b" * 15, "/" + ORG, ORG + "//" + "b" * 16]:
            assert not uidp.valid(bad), bad

    def test_new_ids_are_valid_children(self) -> None:
        root = uidp.new_root()
        child = uidp.new_child(root)
        assert uidp.valid(root) and uidp.valid(child) and uidp.parent(child) == root
        assert uidp.new_root() != root

    def test_hierarchy_helpers(self) -> None:
        deep = CHILD + "/" + "c" * 16
        assert uidp.parent(ORG) == ""
        assert uidp.parents(deep) == [CHILD, ORG]
        assert uidp.ancestry(deep) == [deep, CHILD, ORG]
        assert uidp.root(deep) == ORG
        assert uidp.is_ancestor(ORG, deep) and not uidp.is_ancestor(deep, deep)
        assert uidp.is_ancestor_or_self(deep, deep)
        # A sibling root sharing a prefix is not a descendant.
        assert not uidp.is_ancestor(ORG[:-1], ORG)

    def test_descendant_range_holds_exactly_descendants(self) -> None:
        lo, hi = uidp.descendant_range(ORG)
        inside = [CHILD, CHILD + "/" + "f" * 16, ORG + "/" + "0" * 16]
        outside = [ORG, "a" * 39 + "b", "a" * 39 + "9" + "/" + "0" * 16, "b" * 40]
        assert all(lo < u < hi for u in inside)
        assert not any(lo < u < hi for u in outside)


class TestPageToken:
    key = b"k" * 32

    def test_round_trip(self) -> None:
        token = pagetoken.encode(self.key, "q1", ["nginx", CHILD])
        assert pagetoken.decode(self.key, token, "q1") == ["nginx", CHILD]

    def test_bound_to_query(self) -> None:
        token = pagetoken.encode(self.key, "q1", ["x"])
        with pytest.raises(errors.ApiError) as e:
            pagetoken.decode(self.key, token, "q2")
        assert e.value.code == errors.INVALID_ARGUMENT

    def test_tampering_and_garbage_are_rejected(self) -> None:
        token = pagetoken.encode(self.key, "q1", ["x"])
        raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        raw[-3] ^= 1
        forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
        for bad in [forged, "not a token!", "", "AAAA", pagetoken.encode(b"other" * 8, "q1", ["x"])]:
            with pytest.raises(errors.ApiError) as e:
                pagetoken.decode(self.key, bad, "q1")
            assert e.value.code == errors.INVALID_ARGUMENT

    def test_expired_token_restarts(self) -> None:
        issued = 1_000_000.0
        token = pagetoken.encode(self.key, "q1", ["x"], now=issued)
        assert pagetoken.decode(self.key, token, "q1", now=issued + pagetoken.LIFETIME_SECONDS - 1) == ["x"]
        assert pagetoken.decode(self.key, token, "q1", now=issued + pagetoken.LIFETIME_SECONDS + 1) is None


class TestFieldMask:
    current = Repo(uid=CHILD, name="nginx", description="old", aliases=["a:1"], create_time="t")
    patch = Repo(uid="ignored", name="renamed", description="new", create_time="x")
    updatable = frozenset({"name", "description", "aliases"})

    def test_mask_limits_changes(self) -> None:
        out = fieldmask.apply(self.current, self.patch, "description", self.updatable)
        assert (out.name, out.description, out.uid, out.aliases) == ("nginx", "new", CHILD, ["a:1"])

    def test_camel_case_paths_and_output_only_fields(self) -> None:
        out = fieldmask.apply(self.current, self.patch, "createTime,description,uid", self.updatable)
        assert (out.description, out.create_time, out.uid) == ("new", "t", CHILD)

    def test_star_replaces_every_updatable_field(self) -> None:
        out = fieldmask.apply(self.current, self.patch, "*", self.updatable)
        assert (out.name, out.description, out.aliases, out.uid) == ("renamed", "new", [], CHILD)

    def test_empty_mask_changes_nothing(self) -> None:
        assert fieldmask.apply(self.current, self.patch, "", self.updatable) == self.current

    def test_unknown_path(self) -> None:
        with pytest.raises(errors.ApiError) as e:
            fieldmask.apply(self.current, self.patch, "description,colour", self.updatable)
        assert e.value.code == errors.INVALID_ARGUMENT


def test_clock_format_and_parse() -> None:
    assert clock.format_ns(1_769_604_861_189_000_000) == "2026-01-28T12:54:21.189Z"
    assert clock.parse("2026-01-28T13:54:21.1891+01:00") == "2026-01-28T12:54:21.189Z"
    assert clock.parse("2026-01-28T12:54:21Z") == "2026-01-28T12:54:21.000Z"
    for bad in ["2026-01-28", "yesterday", "2026-01-28T12:54:21"]:
        with pytest.raises(ValueError):
            clock.parse(bad)


def test_clock_pads_years_and_sorts_as_text() -> None:
    assert clock.parse("0642-01-17T00:00:00Z") == "0642-01-17T00:00:00.000Z"
    assert clock.parse("0001-01-01T00:00:00.5+00:00") == "0001-01-01T00:00:00.500Z"
    assert clock.format_ns(-50_000_000_000 * 10**9) == "0385-07-25T07:06:40.000Z"
    assert clock.from_epoch(clock.to_epoch("0642-01-17T00:00:00.000Z")) == "0642-01-17T00:00:00.000Z"
    texts = ["2026-01-01T00:00:00Z", "0642-01-17T00:00:00Z", "9999-12-31T23:59:59Z", "0999-12-31T23:59:59Z"]
    normalized = [clock.parse(t) for t in texts]
    assert sorted(normalized) == [normalized[1], normalized[3], normalized[0], normalized[2]]


@pytest.mark.parametrize(
    "text", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+01:00", "10000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"]
)
def test_clock_refuses_years_outside_1_to_9999(text: str) -> None:
    with pytest.raises(ValueError):
        clock.parse(text)


def test_lru_forgets_the_least_recently_used() -> None:
    c: LRU[str, int] = LRU(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1
    c.put("c", 3)
    assert len(c) == 2 and c.get("b") is None and c.get("a") == 1 and c.get("c") == 3


def test_too_many_items_is_one_413_with_its_limit_and_count() -> None:
    e = errors.too_many_items("12 things match; ask for fewer", 10, 12)
    assert (e.code, e.http_status, e.reason) == (errors.RESOURCE_EXHAUSTED, 413, "TOO_MANY_ITEMS")
    assert e.message == "Resource exhausted: 12 things match; ask for fewer"
    assert e.info_metadata == {"limit": "10", "matched": "12"}
    assert errors.too_many_items("10 or more match", 10).info_metadata == {"limit": "10"}
