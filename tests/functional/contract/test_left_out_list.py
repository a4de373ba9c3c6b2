"""The data behind the refusal of left-out fields (api/omitted.py) is checked against the wire facts: every pair of
`reserved N; reserved "name";` statements in our protos is a field of the vendor's message with that number and
name (tests/fixtures/wire-v2.md), the fields the code finds left out in each message are the ones the wire facts
say (as test_left_out_fields.py derives them), and docs/reference/wire-contract.md lists them as the code finds them.
"""

from __future__ import annotations

from pathlib import Path

from platform_api.api import omitted, schema
from platform_api.core import fieldmask
from tests.functional.contract.test_left_out_fields import FACTS, left_out

WIRE_CONTRACT = Path(__file__).resolve().parents[3] / "docs" / "reference" / "wire-contract.md"
MESSAGES = schema.messages()


def test_every_reserved_pair_is_a_field_of_the_vendors_message() -> None:
    checked = 0
    for desc in MESSAGES:
        for number, name in omitted.pairs(desc):
            vendor = FACTS.messages[desc.full_name.replace(".v2beta1.", ".v2.")].fields.get(name)
            assert vendor is not None, f"{desc.full_name} reserves {name!r}, which the contract does not have"
            assert vendor.number == number, f"{desc.full_name}: reserved {number} is {name!r}, which is {vendor.number}"
            assert vendor.json_name in (name, fieldmask.camel(name)), (desc.full_name, vendor)
            checked += 1
    assert checked == 2 * 23  # v2 and v2beta1: 23 fields of 6 messages


def test_the_code_finds_in_every_message_what_the_wire_facts_say() -> None:
    differ = {}
    for desc in MESSAGES:
        found = [name for _, name in omitted.pairs(desc)] + [fd.name for fd in omitted.declared_not_kept(desc)]
        if found != [f.name for f in left_out(desc)]:
            differ[desc.full_name] = found
    assert differ == {}


def test_the_plans_reach_every_create_and_update_with_left_out_fields() -> None:
    for m in schema.methods().values():
        if "Create" in m.name or "Update" in m.name:
            reachable = left_out(m.input) or any(
                left_out(fd.message_type) for fd in m.input.fields if fd.message_type is not None
            )
            assert bool(m.omitted) == bool(reachable), m.full_name


def test_each_v1_twin_declares_what_its_v2_message_leaves_out() -> None:
    entries = omitted.catalogue(MESSAGES)
    assert [e.message.rsplit(".", 1)[-1] for e in entries] == [
        "AccountAssociation", "Group", "Identity", "IdentityMetadata", "Repo", "Tag",
    ]  # fmt: skip
    for entry in entries:
        for v1_name in entry.v1:
            (desc,) = [d for d in MESSAGES if d.full_name == v1_name]
            assert [fd.name for fd in omitted.declared_not_kept(desc)] == list(entry.fields), v1_name


def test_the_guide_lists_the_refused_fields_the_code_finds() -> None:
    text = WIRE_CONTRACT.read_text()
    begin, end = "<!-- refused fields: begin -->\n", "  <!-- refused fields: end -->"
    listed = text[text.index(begin) + len(begin) : text.index(end)]
    assert listed == omitted.readme_list(omitted.catalogue(MESSAGES)), "update docs/reference/wire-contract.md"
