"""The outputs of the H200 recordings stay as they were: DataFrames (values and dtypes), the
text table, JSON, CSV files, the CLI report and the HTML report, compared with the copies in
tests/data/contract/ (made by ``python3 tests/python/contract_outputs.py --write``)."""

from __future__ import annotations

import difflib
import json

import pytest
from contract_outputs import contract_file, outputs, recordings

pytest.importorskip("kprof._core")


def _diff(kept: str, now: str, name: str) -> str:
    lines = difflib.unified_diff(
        kept.splitlines(), now.splitlines(), f"kept/{name}", f"now/{name}", lineterm="", n=1
    )
    return "\n".join(list(lines)[:40])


def test_every_recording_has_a_contract():
    assert recordings(), "no recordings under tests/data"
    for path in recordings():
        assert contract_file(path).exists(), f"{contract_file(path)} is missing"


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.stem)
def test_outputs_are_unchanged(path):
    kept = json.loads(contract_file(path).read_text(encoding="utf-8"))
    now = outputs(path)
    assert sorted(now) == sorted(kept), "the set of outputs changed"
    changed = [name for name in kept if now[name] != kept[name]]
    assert not changed, "\n\n".join(_diff(kept[n], now[n], n) for n in changed)
