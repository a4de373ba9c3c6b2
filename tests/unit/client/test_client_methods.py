"""The client's typed method tables (client/methods/) are exactly what scripts/gen_client.py makes of the
contract, and describe every method the client dispatches."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

from platform_api.client import Client, contract
from platform_api.client.methods import registry

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "src" / "platform_api" / "client" / "methods"


def test_generated_methods_are_up_to_date(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_client.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True)  # fmt: skip
    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.py")}
    committed = {p.name: p.read_text() for p in COMMITTED.glob("*.py")}
    assert sorted(fresh) == sorted(committed), "run: python scripts/gen_client.py"
    for name, text in fresh.items():
        assert committed[name] == text, f"{name} is stale: run python scripts/gen_client.py"


def test_every_area_and_method_is_described() -> None:
    hints = typing.get_type_hints(Client)
    assert set(contract.areas()) <= set(hints)
    for area in contract.areas():
        protocol = hints[area]
        assert set(contract.area_methods(area)) == {n for n in vars(protocol) if not n.startswith("_")}, area
    ret = typing.get_type_hints(registry.Registry.create_repo)["return"]
    assert ret.__name__ == "Repo"
