"""A comparison must compare something: kprof.compare and `kprof compare` refuse results with no
row in common, or whose common rows cannot be compared (plain durations against ratios),
instead of reporting "0 compared" and passing a CI gate. The refusal is the core's
(kprof::compare), so both front ends say the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kprof
import pytest
from kprof.errors import FormatError

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
NORMALIZED = DATA / "h200-python-normalized-2026-11-30.json"
PER_KERNEL = DATA / "h200-python-per-kernel-2026-11-30.json"

CANNOT = (
    "nothing to compare: the 8 rows found in both cannot be compared (not normalized in BASE, "
    "normalized against 'memory/scale' in NEW); valid: results whose rows have convertible units "
    "and are normalized the same way (or not at all) in both"
)


def test_plain_against_normalized_raises_a_format_error():
    with pytest.raises(FormatError) as raised:
        kprof.compare(DEMO, NORMALIZED)
    assert str(raised.value) == CANNOT
    assert isinstance(raised.value, ValueError)


def test_no_row_in_common_raises_saying_what_differs():
    with pytest.raises(FormatError, match=r"nothing to compare: no row of BASE has a counterpart"):
        kprof.compare(DEMO, PER_KERNEL)
    with pytest.raises(FormatError, match="NEW has no rows of the metrics asked for"):
        kprof.compare(DEMO, NORMALIZED, metric="throughput")


def test_the_command_exits_2_with_one_line():
    cli = [sys.executable, "-m", "kprof.cli", "compare", str(DEMO), str(NORMALIZED)]
    result = subprocess.run(cli, capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"kprof compare: {CANNOT}\n"
